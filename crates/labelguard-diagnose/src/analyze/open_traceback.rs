//! A traceback being read, and the tracebacks that users paste without CPython's header: some
//! start at the first frame and never reach an exception line (the message was pasted above
//! them), and some are pasted innermost frame first.

use super::Analyzer;
use crate::model::Frame;
use crate::observed::Traceback;
use std::collections::VecDeque;

pub(super) struct OpenTraceback {
    pub(super) frames: VecDeque<Frame>,
    pub(super) ipython: bool,
    pub(super) expect_code: bool,
    pub(super) stray: u32,
    /// Opened at a frame: no "Traceback (most recent call last):" line said the order.
    pub(super) headerless: bool,
}

impl OpenTraceback {
    /// A traceback that has just started: no frames yet.
    pub(super) fn new(ipython: bool, headerless: bool) -> OpenTraceback {
        OpenTraceback {
            frames: VecDeque::new(),
            ipython,
            expect_code: false,
            stray: 0,
            headerless,
        }
    }

    /// The finished traceback, outermost frame first. CPython prints the outermost frame first
    /// and it is the script's `<module>`; a headerless paste that ends at `<module>` and does not
    /// start there was pasted innermost first, so its order is turned back.
    pub(super) fn close(self) -> Traceback {
        let mut frames: Vec<Frame> = self.frames.into();
        let module = |f: Option<&Frame>| f.is_some_and(|f| f.function == "<module>");
        if self.headerless && module(frames.last()) && !module(frames.first()) {
            frames.reverse();
        }
        Traceback { frames }
    }
}

impl Analyzer {
    /// At the end of the log: a device-assert message with no traceback of its own, followed
    /// by a traceback pasted without its header that no exception line closed, takes that
    /// traceback (the earliest such one, so the choice does not depend on the map's order).
    pub(super) fn adopt_headerless(&mut self) {
        if self.obs.header.is_none()
            || self.obs.header_traceback.is_some()
            || self.obs.tracebacks.len() >= super::MAX_TRACEBACKS
        {
            return;
        }
        let first = self
            .open
            .iter()
            .filter(|(_, tb)| tb.headerless && !tb.frames.is_empty())
            .min_by_key(|(_, tb)| tb.frames[0].at)
            .map(|(k, _)| k.clone());
        if let Some(tb) = first.and_then(|k| self.open.remove(&k)) {
            self.obs.tracebacks.push(tb.close());
            self.obs.header_traceback = Some(self.obs.tracebacks.len() - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{diagnose_bytes, Options};

    const MATCHER: &str = "  File \"/p/models/matcher.py\", line 81, in forward\n    cost_class = pos_cost_class[:, tgt_ids] - neg_cost_class[:, tgt_ids]\n";
    const OUTER: &str = "  File \"/p/engine.py\", line 45, in train_one_epoch\n    loss_dict = criterion(outputs, targets)\n  File \"/p/main.py\", line 334, in <module>\n    main(args)\n";

    fn op_and_frame(log: &str) -> (String, Option<String>) {
        let r = diagnose_bytes(log.as_bytes(), "t", Options::default());
        let d = &r.findings[0];
        (
            d.op.clone(),
            d.user_frame.as_ref().map(|u| u.frame.function.clone()),
        )
    }

    #[test]
    fn a_traceback_pasted_innermost_first_after_its_message_is_read_in_order() {
        // The message first, then the frames innermost first and no exception line after them
        // (zhihou7/BatchFormer#22): the innermost frame is the matcher's, not `<module>`.
        let log = format!("CUDA error: device-side assert triggered\n{MATCHER}{OUTER}");
        let (op, _) = op_and_frame(&log);
        assert_eq!(op, "index");
    }

    #[test]
    fn a_headerless_traceback_in_cpython_order_is_kept() {
        let outer_first = "  File \"/p/main.py\", line 334, in <module>\n    main(args)\n  File \"/p/engine.py\", line 45, in train_one_epoch\n    loss_dict = criterion(outputs, targets)\n";
        let log = format!(
            "{outer_first}{MATCHER}RuntimeError: CUDA error: device-side assert triggered\n"
        );
        let (op, frame) = op_and_frame(&log);
        assert_eq!(op, "index");
        assert_eq!(frame.as_deref(), Some("forward"));
    }

    #[test]
    fn without_a_device_assert_message_an_unclosed_paste_is_not_adopted() {
        let log = format!("{MATCHER}{OUTER}");
        let r = diagnose_bytes(log.as_bytes(), "t", Options::default());
        assert!(
            r.findings.iter().all(|d| d.op != "index"),
            "{:?}",
            r.findings.iter().map(|d| &d.op).collect::<Vec<_>>()
        );
    }
}
