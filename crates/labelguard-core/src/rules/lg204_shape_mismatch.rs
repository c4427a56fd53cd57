use crate::rule::declare_rule;

declare_rule! {
    /// The shapes of the tensors do not fit together.
    ///
    /// ## What it checks
    /// The relations PyTorch checks on the host between `input`, `target`, `index`, `src` and the lengths of
    /// a call: batch sizes, spatial sizes, `input.size() == target.size()` for BCE, index no larger than the
    /// input apart from `dim`.
    ///
    /// ## Why it fails
    /// PyTorch raises before any kernel runs (`Expected input batch_size (8) to match target batch_size (4)`,
    /// `size mismatch`, `Using a target size that is different to the input size`).
    ///
    /// ## Fix
    /// Print both shapes at the call. Typical causes: the last batch is smaller, a mask and an image were
    /// resized differently, logits are `[N, H, W, C]` instead of `[N, C, H, W]` (`permute(0, 3, 1, 2)`).
    ///
    /// ## Checked by
    /// - [`crate::ops::bce::same_size`]
    /// - [`crate::ops::bincount::bincount`]
    /// - [`crate::ops::classification::cross_entropy`]
    /// - [`crate::ops::classification::target_shape`]
    /// - [`crate::ops::classification::nll_loss_nd`]
    /// - [`crate::ops::embedding::embedding`]
    /// - [`crate::ops::indexing::shape_finding`]
    /// - [`crate::ops::indexing::index_select`]
    /// - [`crate::ops::take_put::take_along_dim`]
    /// - fixture: `lg204_batch_mismatch` in `tests/rule_fixtures.rs`
    "LG204", "shape-mismatch", Error, Metadata
}
