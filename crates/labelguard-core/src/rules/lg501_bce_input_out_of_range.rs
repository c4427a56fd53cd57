use crate::rule::declare_rule;

declare_rule! {
    /// `binary_cross_entropy` got an input (prediction) outside [0, 1], or NaN.
    ///
    /// ## What it checks
    /// Every element of `input` of `F.binary_cross_entropy` / `nn.BCELoss` must be a probability.
    ///
    /// ## Why it crashes
    /// On CUDA the kernel asserts `input_val >= zero && input_val <= one` (`Loss.cu`); on the CPU: `all
    /// elements of input should be between 0 and 1`. NaN fails the same comparison.
    ///
    /// ## Fix
    /// Pass logits to `F.binary_cross_entropy_with_logits` / `nn.BCEWithLogitsLoss` instead (stable, and it
    /// works under autocast); or apply `torch.sigmoid` first. If the values are NaN, find where they appear.
    ///
    /// ## Checked by
    /// - [`crate::ops::bce::probability_range`]
    /// - [`crate::ops::bce::binary_cross_entropy`]
    /// - fixture: `lg501_bce_logits_passed` in `tests/rule_fixtures.rs`
    "LG501", "bce-input-out-of-range", Error
}
