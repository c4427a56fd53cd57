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
use crate::text::{previous_line, previous_line_is_final, PREVIOUS_LINE_WINDOW};
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
    /// The last bytes consumed before `carry` (whole lines with their terminators), so that
    /// the line before a line is known whatever the chunk boundaries: at least
    /// [`PREVIOUS_LINE_WINDOW`] bytes unless `tail_from_start`.
    tail: Vec<u8>,
    /// `tail` holds the stream from its first byte.
    tail_from_start: bool,
    /// `carry` is the rest of a line already analysed in pieces (longer than [`MAX_LINE`]).
    carry_split: bool,
}

impl Scanner {
    pub fn new(source: SourceId) -> Scanner {
        Scanner {
            source,
            carry: Vec::new(),
            line_no: 1,
            bytes: 0,
            ends_with_newline: false,
            tail: Vec::new(),
            tail_from_start: true,
            carry_split: false,
        }
    }

    /// Feeds the next bytes of the stream, in chunks of any size.
    pub fn feed(&mut self, mut data: &[u8], a: &mut Analyzer) {
        self.bytes += data.len() as u64;
        a.fed(data.len() as u64);
        if let Some(&last) = data.last() {
            self.ends_with_newline = last == b'\n';
        }
        if !self.carry.is_empty() || self.carry_split {
            let Some(i) = memchr2(b'\n', b'\r', data) else {
                self.push_carry(data, a);
                return;
            };
            self.push_carry(&data[..i], a);
            self.flush_carry(a);
            self.carry_split = false;
            self.remember(&data[i..=i]);
            self.end_line(data[i]);
            data = &data[i + 1..];
        }
        match memrchr2(b'\n', b'\r', data) {
            Some(last) => {
                self.body(&data[..=last], a);
                self.remember(&data[..=last]);
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
        self.carry_split = false;
        // What preceded the gap is no longer the line before anything.
        self.tail.clear();
        self.tail_from_start = false;
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

    fn consider(
        source: SourceId,
        line_no: u64,
        line: &[u8],
        prev: Option<&[u8]>,
        a: &mut Analyzer,
    ) {
        if !line.is_empty() && (a.dense() || a.obs.kb.skim.is_match(line)) {
            a.line(source, line_no, line, prev);
        }
    }

    /// Appends consumed bytes to `tail`, keeping twice the window.
    fn remember(&mut self, consumed: &[u8]) {
        let keep = 2 * PREVIOUS_LINE_WINDOW;
        if consumed.len() >= keep {
            self.tail.clear();
            self.tail
                .extend_from_slice(&consumed[consumed.len() - keep..]);
            self.tail_from_start = false;
        } else {
            self.tail.extend_from_slice(consumed);
            if self.tail.len() > keep {
                self.tail.drain(..self.tail.len() - keep);
                self.tail_from_start = false;
            }
        }
    }

    fn push_carry(&mut self, mut data: &[u8], a: &mut Analyzer) {
        while self.carry.len() + data.len() >= MAX_LINE {
            let take = MAX_LINE - self.carry.len();
            self.carry.extend_from_slice(&data[..take]);
            data = &data[take..];
            // A piece of a longer line: analysed without the line before, as `body` does.
            self.carry_split = true;
            self.flush_carry(a);
        }
        self.carry.extend_from_slice(data);
    }

    fn flush_carry(&mut self, a: &mut Analyzer) {
        let prev = if self.carry_split {
            None
        } else {
            previous_line(&self.tail, self.tail_from_start)
        };
        Self::consider(self.source, self.line_no, &self.carry, prev, a);
        let carry = std::mem::take(&mut self.carry);
        self.remember(&carry);
        self.carry = carry;
        self.carry.clear();
    }

    /// Complete lines: `body` ends with a terminator.
    fn body(&mut self, body: &[u8], a: &mut Analyzer) {
        let mut pos = 0;
        // The last line looked at repeated one analysed before: the next line is tried as a
        // repetition too, before the search for an anchor (a repetition holds one).
        let mut repeating = false;
        let mut joined = Vec::new();
        while pos < body.len() {
            if repeating && !a.dense() {
                let end =
                    pos + memchr2(b'\n', b'\r', &body[pos..]).expect("body ends with a terminator");
                let line = &body[pos..end];
                let counted = line.is_empty()
                    || (line.len() <= MAX_LINE && {
                        let prev = self.before(body, pos, &mut joined);
                        a.repeat(self.source, self.line_no, line, prev)
                    });
                if counted {
                    self.end_line(body[end]);
                    pos = end + 1;
                    continue;
                }
                repeating = false;
            }
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
                // Dense, or the skim search just found an anchor in it.
                let prev = self.before(body, start, &mut joined);
                repeating = a.repeat(self.source, self.line_no, line, prev);
                if !repeating {
                    a.analyse_line(self.source, self.line_no, line, prev);
                }
            } else {
                for piece in line.chunks(MAX_LINE) {
                    Self::consider(self.source, self.line_no, piece, None, a);
                }
            }
            self.end_line(body[end]);
            pos = end + 1;
        }
    }

    /// The line before the line at `start` of `body`: in this buffer, or (at its start) in what
    /// came before (`joined` is scratch).
    fn before<'b>(
        &'b self,
        body: &'b [u8],
        start: usize,
        joined: &'b mut Vec<u8>,
    ) -> Option<&'b [u8]> {
        let window = &body[..start];
        let from_start = self.tail_from_start && self.tail.is_empty();
        if previous_line_is_final(window, from_start) {
            previous_line(window, from_start)
        } else {
            joined.clear();
            joined.extend_from_slice(&self.tail);
            joined.extend_from_slice(window);
            previous_line(joined, self.tail_from_start)
        }
    }
}
