//! The streaming scanner: splits a byte stream into lines in one pass, with bounded memory, and
//! hands the analyzer only the lines that matter.
//!
//! Most lines of a training log are progress and metrics. Outside a traceback the scanner runs one
//! multi-pattern search (the knowledge base's skim anchors) over the whole buffer and looks only
//! at the lines that contain an anchor; inside a traceback every line goes to the analyzer. Lines
//! end at `\n` or `\r` (progress bars); `\r` does not start a new line number. A line longer than
//! [`MAX_LINE`] is analysed in pieces of that size, so a 100 MB line costs what 100 MB of short
//! lines cost.

use crate::analyze::Analyzer;
use crate::observed::SourceId;
use memchr::{memchr2, memchr_iter, memrchr2};

/// The longest piece of a line analysed at once.
pub const MAX_LINE: usize = 1 << 20;

/// Splits one stream into lines. One per stream: stdout and stderr of a child each get their own.
pub struct Scanner {
    source: SourceId,
    carry: Vec<u8>,
    line_no: u64,
    bytes: u64,
    /// The stream so far ends with `\n` (a last line that is complete, not an empty one).
    ends_with_newline: bool,
}

impl Scanner {
    pub fn new(source: SourceId) -> Scanner {
        Scanner {
            source,
            carry: Vec::new(),
            line_no: 1,
            bytes: 0,
            ends_with_newline: false,
        }
    }

    /// Feeds the next bytes of the stream, in chunks of any size.
    pub fn feed(&mut self, mut data: &[u8], a: &mut Analyzer) {
        self.bytes += data.len() as u64;
        if let Some(&last) = data.last() {
            self.ends_with_newline = last == b'\n';
        }
        if !self.carry.is_empty() {
            let Some(i) = memchr2(b'\n', b'\r', data) else {
                self.push_carry(data, a);
                return;
            };
            self.push_carry(&data[..i], a);
            self.flush_carry(a);
            self.end_line(data[i]);
            data = &data[i + 1..];
        }
        match memrchr2(b'\n', b'\r', data) {
            Some(last) => {
                self.body(&data[..=last], a);
                self.push_carry(&data[last + 1..], a);
            }
            None => self.push_carry(data, a),
        }
    }

    /// Accounts for `bytes` of the stream (holding `newlines` line ends, `last` its last byte)
    /// that went by without being analysed, because they came faster than they could be: line
    /// numbers and totals stay right; the line the gap cuts is not analysed.
    pub fn skip(&mut self, bytes: u64, newlines: u64, last: u8) {
        self.bytes += bytes;
        self.carry.clear();
        self.line_no += newlines;
        self.ends_with_newline = last == b'\n';
    }

    /// Ends the stream: analyses a last line without a terminator and records the totals.
    pub fn finish(&mut self, a: &mut Analyzer) {
        self.flush_carry(a);
        let lines = self.line_no - u64::from(self.bytes == 0 || self.ends_with_newline);
        a.source_read(self.source, self.bytes, lines);
    }

    fn end_line(&mut self, terminator: u8) {
        if terminator == b'\n' {
            self.line_no += 1;
        }
    }

    fn consider(source: SourceId, line_no: u64, line: &[u8], a: &mut Analyzer) {
        if !line.is_empty() && (a.dense() || a.obs.kb.skim.is_match(line)) {
            a.line(source, line_no, line, &[]);
        }
    }

    fn push_carry(&mut self, mut data: &[u8], a: &mut Analyzer) {
        while self.carry.len() + data.len() >= MAX_LINE {
            let take = MAX_LINE - self.carry.len();
            self.carry.extend_from_slice(&data[..take]);
            data = &data[take..];
            self.flush_carry(a);
        }
        self.carry.extend_from_slice(data);
    }

    fn flush_carry(&mut self, a: &mut Analyzer) {
        Self::consider(self.source, self.line_no, &self.carry, a);
        self.carry.clear();
    }

    /// Complete lines: `body` ends with a terminator.
    fn body(&mut self, body: &[u8], a: &mut Analyzer) {
        let mut pos = 0;
        while pos < body.len() {
            let start = if a.dense() {
                pos
            } else {
                match a.obs.kb.skim.find(&body[pos..]) {
                    None => {
                        self.line_no += memchr_iter(b'\n', &body[pos..]).count() as u64;
                        return;
                    }
                    Some(m) => {
                        let hit = pos + m.start();
                        let start =
                            memrchr2(b'\n', b'\r', &body[pos..hit]).map_or(pos, |i| pos + i + 1);
                        self.line_no += memchr_iter(b'\n', &body[pos..start]).count() as u64;
                        start
                    }
                }
            };
            let end =
                start + memchr2(b'\n', b'\r', &body[start..]).expect("body ends with a terminator");
            let line = &body[start..end];
            if line.len() <= MAX_LINE && !line.is_empty() {
                // Dense, or the skim search just found an anchor in it. What precedes it in the
                // buffer goes along: the analyzer reads the line before it only when it needs it.
                a.line(self.source, self.line_no, line, &body[..start]);
            } else {
                for piece in line.chunks(MAX_LINE) {
                    Self::consider(self.source, self.line_no, piece, a);
                }
            }
            self.end_line(body[end]);
            pos = end + 1;
        }
    }
}
