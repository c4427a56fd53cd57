//! The analyzer's multi-process lines: the rank a line's prefix names, TorchElastic's failure
//! summary and agent lines (`crate::ranks`), and the ranks that say a peer is gone.

use super::{Analyzer, MAX_GROUPS};
use crate::observed::SourceId;
use crate::ranks;

impl Analyzer {
    /// Reads the rank of a line's prefix, and feeds the line to TorchElastic's summary; returns
    /// whether the line was the summary's own.
    pub(super) fn rank_line(
        &mut self,
        src: SourceId,
        line_no: u64,
        prefix: &str,
        t: &str,
        full: &str,
    ) -> bool {
        self.line_rank = ranks::of_prefix(prefix);
        let mut elastic = std::mem::take(&mut self.obs.elastic);
        let summary = elastic.line(t, || self.seen(src, line_no, full));
        self.obs.elastic = elastic;
        if summary {
            self.rec.impure();
        }
        summary
    }

    /// Counts the rank of a line that says a peer is gone among the ranks that failed that way.
    pub(super) fn peer_rank(&mut self, t: &str) {
        let ranks = &mut self.obs.peer_ranks;
        if let Some(r) = self.line_rank.or_else(|| ranks::of_text(t)) {
            if !ranks.contains(&r) && ranks.len() < MAX_GROUPS {
                ranks.push(r);
            }
        }
    }
}
