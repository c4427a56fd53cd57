use crate::rule::declare_rule;

declare_rule! {
    /// A CTC target label equals the blank index.
    ///
    /// ## What it checks
    /// No label inside a target sequence may be the `blank` class (0 by default).
    ///
    /// ## Why it matters
    /// PyTorch accepts it, but the blank cannot be emitted as a label: the alignment is wrong and the loss is
    /// meaningless (often infinite).
    ///
    /// ## Fix
    /// Shift the alphabet so that real labels start at 1 when `blank=0`, or set `blank` to an unused class.
    ///
    /// ## Checked by
    /// - [`crate::ops::ctc::value_checks`]
    /// - fixture: `lg406_ctc_blank` in `tests/rule_fixtures.rs`
    "LG406", "ctc-target-is-blank", Warning
}
