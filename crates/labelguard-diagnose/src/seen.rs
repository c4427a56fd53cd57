//! A line as the analyzer keeps it: where it came from and how often it was seen. A leaf that
//! the observations and the rank reader both build on.

use crate::model::Evidence;

/// Identifies an input: a file, stdin, or one stream of a child process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceId(pub u16);

/// The first line of a group of alike lines, their count and the last line number.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub ev: Evidence,
    pub source: SourceId,
}

impl Seen {
    pub(crate) fn bump(&mut self, line: u64) {
        self.ev.count += 1;
        self.ev.last_line = Some(line);
    }
}
