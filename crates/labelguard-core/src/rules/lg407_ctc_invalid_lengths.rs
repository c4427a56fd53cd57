use crate::rule::declare_rule;

declare_rule! {
    /// CTC lengths do not fit the tensors.
    ///
    /// ## What it checks
    /// `input_lengths` and `target_lengths` have one entry per batch element; input lengths lie in `[0, T]`;
    /// target lengths are non-negative; concatenated targets have exactly `sum(target_lengths)` entries, and
    /// padded targets are at least `max(target_lengths)` long.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `Expected input_lengths to have value at most 50, but got value 60`,
    /// `input_lengths must be of size batch_size`.
    ///
    /// ## Fix
    /// Compute lengths after any downsampling of the time axis, and before padding.
    ///
    /// ## Checked by
    /// - [`crate::ops::ctc::lengths_finding`]
    /// - fixture: `lg407_ctc_lengths` in `tests/rule_fixtures.rs`
    "LG407", "ctc-invalid-lengths", Error
}
