use crate::rule::declare_rule;

declare_rule! {
    /// `weight` or `pos_weight` cannot be broadcast to the target's shape.
    ///
    /// ## What it checks
    /// For `binary_cross_entropy` and `binary_cross_entropy_with_logits`, broadcasting the weight against
    /// the target must give exactly the target's shape (the loss is multiplied in place).
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `output with shape [8] doesn't match the broadcast shape [8, 8]`, or `The
    /// size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 1`.
    ///
    /// ## Fix
    /// `pos_weight` has one entry per class, on the last dimension: shape `[C]` for targets `[N, C]`.
    /// A per-sample weight for `[N, C]` targets has shape `[N, 1]`.
    ///
    /// ## Checked by
    /// - [`crate::ops::bce::broadcast_to`]
    /// - fixture: `lg303_pos_weight_shape` in `tests/rule_fixtures.rs`
    "LG303", "weight-not-broadcastable", Error, Metadata
}
