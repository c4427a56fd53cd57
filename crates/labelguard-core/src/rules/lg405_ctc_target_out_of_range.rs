use crate::rule::declare_rule;

declare_rule! {
    /// CTC target label outside `[0, C-1]`.
    ///
    /// ## What it checks
    /// Every label used by `ctc_loss` (the first `target_lengths[i]` entries of each target sequence) must be
    /// a valid class of the log-probabilities' last dimension.
    ///
    /// ## Why it matters
    /// PyTorch does not check: on the CPU the loss reads past the class dimension and returns garbage; on CUDA
    /// the kernel reads out of bounds and fails with `an illegal memory access was encountered`, which kills
    /// the CUDA context like a device-side assert.
    ///
    /// ## Fix
    /// Make the vocabulary size of the output layer cover every label (`len(alphabet) + 1` with the blank).
    ///
    /// ## Checked by
    /// - [`crate::ops::ctc::value_checks`]
    /// - fixture: `lg405_ctc_target` in `tests/rule_fixtures.rs`
    "LG405", "ctc-target-out-of-range", Error
}
