use crate::rule::declare_rule;

declare_rule! {
    /// The target has an extra dimension of size 1 (a channel dimension).
    ///
    /// ## What it checks
    /// A segmentation target shaped `[N, 1, H, W]` or `[N, H, W, 1]`, or a classification target `[N, 1]`,
    /// where PyTorch wants `[N, H, W]` or `[N]`.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `only batches of spatial targets supported (3D tensors) but got targets of
    /// dimension: 4`, or `0D or 1D target tensor expected, multi-target not supported`. Masks read as
    /// single-channel images and labels read as a one-column table keep this dimension.
    ///
    /// ## Fix
    /// Remove it: `target.squeeze(1)` for `[N, 1, H, W]`, `target.squeeze(-1)` for `[N, H, W, 1]` and `[N, 1]`.
    ///
    /// ## Checked by
    /// - [`crate::ops::label_target::LabelTarget::shape`] (the scan's label arrays and the Python data guards)
    /// - [`crate::ops::classification::target_shape`]
    /// - [`crate::ops::nll_loss2d::nll_loss2d`]
    /// - fixture: `lg203_channel_dim` in `tests/rule_fixtures.rs`
    "LG203", "extra-target-dim", Error, Metadata
}
