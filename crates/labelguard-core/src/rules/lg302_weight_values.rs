use crate::rule::declare_rule;

declare_rule! {
    /// Weights are negative, NaN or infinite.
    ///
    /// ## What it checks
    /// `weight` and `pos_weight` of the losses, and `weights` of `bincount`.
    ///
    /// ## Why it matters
    /// PyTorch multiplies by the weights without checking them: a negative class weight makes the model
    /// maximise the loss of that class, a NaN weight makes the loss NaN, and a zero total weight divides by zero.
    ///
    /// ## Fix
    /// Recompute the weights (inverse frequency with a floor, median-frequency balancing), and check
    /// `torch.isfinite(w).all() and (w >= 0).all()`.
    ///
    /// ## Checked by
    /// - [`crate::ops::values::weight_values`]
    /// - fixture: `lg302_negative_weight` in `tests/rule_fixtures.rs`
    "LG302", "weight-values", Warning
}
