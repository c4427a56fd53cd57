//! Lines counted again without being analysed again.
//!
//! Logs repeat themselves: a failing kernel prints one assertion line per GPU thread, every rank
//! prints the same error, a training loop prints the same warning every step. The analyzer
//! records what a line did when it analysed it ([`Recorder`]); when that was only counting
//! (bumping the count of a group that then exists), a later line with the same bytes
//! ([`Replays`]), or an assertion line that differs only in its block and thread numbers
//! ([`RecentSites`]), is counted the same way without being parsed; a line that did nothing is
//! skipped when a line of the same shape (the same bytes but for the digits) did nothing
//! ([`QuietShapes`]). All are bounded.

use crate::assertion::same_but_threads;
use crate::observed::{Count, SourceId};
use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, Hasher};

/// What the line being analysed did.
pub(crate) struct Recorder {
    pub counts: Vec<Count>,
    /// The line did nothing but count (and things that a second time change nothing: an era
    /// already noted, a hint already kept, a group already full).
    pub pure: bool,
    /// The line is an exception line outside a traceback, for which the line before it is
    /// looked at as a possible source line (each time: that line differs).
    pub orphan: bool,
    /// The line was one kernel assertion, whose group does not depend on the line's block and
    /// thread numbers (`assertion::key_apart_from_threads`).
    pub threads_apart: bool,
    /// The line matched no message and holds no assertion, outside any traceback.
    pub quiet: bool,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            counts: Vec::new(),
            pure: true,
            orphan: false,
            threads_apart: false,
            quiet: false,
        }
    }

    pub fn start(&mut self) {
        self.counts.clear();
        self.pure = true;
        self.orphan = false;
        self.threads_apart = false;
        self.quiet = false;
    }

    pub fn count(&mut self, c: Count) {
        self.counts.push(c);
    }

    /// The line changed something that a repetition would not change the same way.
    pub fn impure(&mut self) {
        self.pure = false;
    }
}

/// What a repetition of an analysed line does.
pub(crate) struct Replay {
    src: SourceId,
    pub counts: Box<[Count]>,
    pub orphan: bool,
    /// The line was one kernel assertion and nothing else, in this group.
    pub single: Option<usize>,
    pub threads_apart: bool,
}

/// Lines longer than this are not remembered.
const MAX_REMEMBERED_LINE: usize = 512;
/// The bytes of remembered lines, and the lines, kept at most; when full the memory starts
/// afresh.
const MAX_REMEMBERED_BYTES: usize = 1 << 20;
const MAX_REMEMBERED_LINES: usize = 1 << 14;

/// The analysed lines whose effect was only counting, by their bytes.
#[derive(Default)]
pub(crate) struct Replays {
    lines: HashMap<Box<[u8]>, Replay, LineHash>,
    bytes: usize,
}

impl Replays {
    /// The effect of `raw` from `src`, when a line with the same bytes was analysed before.
    pub fn get(&self, src: SourceId, raw: &[u8]) -> Option<&Replay> {
        if self.lines.is_empty() || raw.len() > MAX_REMEMBERED_LINE {
            return None;
        }
        self.lines.get(raw).filter(|r| r.src == src)
    }

    /// Remembers a line just analysed whose effect was only counting (`rec.pure`). Lines that
    /// did nothing at all are not remembered: a log of distinct lines would fill the memory.
    pub fn insert(&mut self, src: SourceId, raw: &[u8], rec: &Recorder, single: Option<usize>) {
        if !rec.pure || raw.len() > MAX_REMEMBERED_LINE || (rec.counts.is_empty() && !rec.orphan) {
            return;
        }
        if self.bytes + raw.len() > MAX_REMEMBERED_BYTES || self.lines.len() >= MAX_REMEMBERED_LINES
        {
            self.lines.clear();
            self.bytes = 0;
        }
        self.bytes += raw.len();
        self.lines.insert(
            raw.into(),
            Replay {
                src,
                counts: rec.counts.as_slice().into(),
                orphan: rec.orphan,
                single,
                threads_apart: rec.threads_apart,
            },
        );
    }
}

/// The last lines analysed, while each was one kernel assertion and nothing else (kernels and
/// ranks interleave their lines).
#[derive(Default)]
pub(crate) struct RecentSites {
    /// Oldest first.
    lines: VecDeque<RecentSite>,
}

struct RecentSite {
    src: SourceId,
    group: usize,
    raw: Vec<u8>,
    orphan: bool,
    threads_apart: bool,
}

/// How many interleaved assertion lines are remembered (ranks of a node, kernels of a step).
const RECENT_SITES: usize = 16;
/// A longer line is remembered only as the last line.
const MAX_RECENT_LINE: usize = 4096;

impl RecentSites {
    /// The group of a remembered assertion line that `raw` equals but for its block and thread
    /// numbers, when counting `raw` into it is all that analysing `raw` would do; that line
    /// becomes the last one. The last line is trusted as it was before this memory had more
    /// lines; an older one must also not be an exception line (such a line looks at the line
    /// before it, which differs), and its group must not depend on its block and thread numbers.
    pub fn matching(&mut self, src: SourceId, raw: &[u8]) -> Option<usize> {
        let n = self.lines.len();
        let i = (0..n).rev().find(|&i| {
            let r = &self.lines[i];
            r.src == src
                && (i + 1 == n || (!r.orphan && r.threads_apart))
                && same_but_threads(&r.raw, raw)
        })?;
        let r = self.lines.remove(i).expect("found");
        let group = r.group;
        self.lines.push_back(r);
        Some(group)
    }

    /// Remembers the line just analysed: one assertion of `group` and nothing else.
    pub fn push(
        &mut self,
        src: SourceId,
        group: usize,
        raw: &[u8],
        orphan: bool,
        threads_apart: bool,
    ) {
        if raw.len() > MAX_RECENT_LINE
            || self
                .lines
                .back()
                .is_some_and(|r| r.raw.len() > MAX_RECENT_LINE)
        {
            self.lines.clear();
        }
        let mut r = if self.lines.len() == RECENT_SITES {
            self.lines.pop_front().expect("full")
        } else {
            RecentSite {
                src,
                group,
                raw: Vec::new(),
                orphan,
                threads_apart,
            }
        };
        r.src = src;
        r.group = group;
        r.orphan = orphan;
        r.threads_apart = threads_apart;
        r.raw.clear();
        r.raw.extend_from_slice(raw);
        self.lines.push_back(r);
    }

    /// Forgets every line: the line just analysed was not a lone assertion.
    pub fn clear(&mut self) {
        self.lines.clear();
    }
}

/// The shapes (digits made `0`) of clean lines outside tracebacks that matched no message, held
/// no assertion and were no exception line: a line of such a shape does nothing either. Digits
/// decide nothing else for such a line (names, prefixes and structure keep their lengths and
/// kinds of characters), except through a message needle that holds digits, so a shape that
/// could hold one of those is not remembered.
pub(crate) struct QuietShapes {
    shapes: HashSet<Box<[u8]>, LineHash>,
    bytes: usize,
    scratch: Vec<u8>,
    /// The shapes of the needles that hold digits.
    digit_needles: Vec<Vec<u8>>,
}

impl QuietShapes {
    pub fn new<'n>(needles: impl Iterator<Item = &'n str>) -> QuietShapes {
        QuietShapes {
            shapes: HashSet::default(),
            bytes: 0,
            scratch: Vec::new(),
            digit_needles: needles
                .filter(|n| n.bytes().any(|c| c.is_ascii_digit()))
                .map(|n| shape(n.as_bytes(), &mut Vec::new()).to_vec())
                .collect(),
        }
    }

    /// Whether a line of the shape of `raw` did nothing.
    pub fn contains(&mut self, raw: &[u8]) -> bool {
        !self.shapes.is_empty()
            && raw.len() <= MAX_REMEMBERED_LINE
            && self.shapes.contains(shape(raw, &mut self.scratch))
    }

    /// Remembers the shape of a clean line that did nothing.
    pub fn insert(&mut self, raw: &[u8]) {
        if raw.len() > MAX_REMEMBERED_LINE {
            return;
        }
        let s = shape(raw, &mut self.scratch);
        if self
            .digit_needles
            .iter()
            .any(|n| memchr::memmem::find(s, n).is_some())
        {
            return;
        }
        if self.bytes + s.len() > MAX_REMEMBERED_BYTES || self.shapes.len() >= MAX_REMEMBERED_LINES
        {
            self.shapes.clear();
            self.bytes = 0;
        }
        self.bytes += s.len();
        self.shapes.insert(s.into());
    }
}

/// `raw` with every ASCII digit made `0`, in `out`.
fn shape<'a>(raw: &[u8], out: &'a mut Vec<u8>) -> &'a [u8] {
    out.clear();
    out.extend(
        raw.iter()
            .map(|&c| if c.is_ascii_digit() { b'0' } else { c }),
    );
    out
}

/// A fast hash of lines (a multiply-rotate over 8-byte words) with a seed drawn once per
/// process, for the memories above: they are looked up for most lines looked at closely.
#[derive(Clone)]
pub(crate) struct LineHash(u64);

impl Default for LineHash {
    fn default() -> LineHash {
        LineHash(RandomState::new().hash_one(0x6c67u64))
    }
}

impl BuildHasher for LineHash {
    type Hasher = LineHasher;
    fn build_hasher(&self) -> LineHasher {
        LineHasher(self.0)
    }
}

pub(crate) struct LineHasher(u64);

impl LineHasher {
    fn mix(&mut self, word: u64) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for LineHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.mix(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}
