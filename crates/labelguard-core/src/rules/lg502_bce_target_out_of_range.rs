use crate::rule::declare_rule;

declare_rule! {
    /// `binary_cross_entropy` got a target outside [0, 1], or NaN.
    ///
    /// ## What it checks
    /// Every element of `target` of `F.binary_cross_entropy` / `nn.BCELoss` must lie in [0, 1].
    ///
    /// ## Why it crashes
    /// On CUDA the kernel asserts `target_val >= zero && target_val <= one`; on the CPU: `all elements of
    /// target should be between 0 and 1`. Binary masks stored as 0/255 are the usual cause.
    ///
    /// ## Fix
    /// Scale the targets: `mask / 255` or `(mask > 0).float()`.
    ///
    /// ## Checked by
    /// - [`crate::ops::bce::binary_cross_entropy`]
    /// - fixture: `lg502_bce_target_255` in `tests/rule_fixtures.rs`
    "LG502", "bce-target-out-of-range", Error
}
