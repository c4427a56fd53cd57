use crate::rule::declare_rule;

declare_rule! {
    /// A CTC target is too long for its input: no alignment exists.
    ///
    /// ## What it checks
    /// Each sequence needs `input_length >= target_length + number of repeated neighbours` (a blank must
    /// separate repeated labels).
    ///
    /// ## Why it matters
    /// The loss for that sequence is infinite (or silently 0 with `zero_infinity=True`), and its gradient is
    /// NaN or zero.
    ///
    /// ## Fix
    /// Downsample the time axis less, drop such samples, or pass `zero_infinity=True` knowingly.
    ///
    /// ## Checked by
    /// - [`crate::ops::ctc::value_checks`]
    /// - fixture: `lg408_ctc_infeasible` in `tests/rule_fixtures.rs`
    "LG408", "ctc-infeasible-alignment", Warning
}
