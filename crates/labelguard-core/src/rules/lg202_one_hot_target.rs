use crate::rule::declare_rule;

declare_rule! {
    /// One-hot or multi-label target passed where class indices are expected.
    ///
    /// ## What it checks
    /// A target with one more dimension than a class-index target, holding only 0 and 1, such as `[N, C]`
    /// one-hot rows, or an integer target with exactly the shape of `input` (the class-probability form,
    /// which needs floats).
    ///
    /// ## Why it fails
    /// For an integer target shaped like `input` PyTorch raises `Expected floating point type for target
    /// with class probabilities, got Long`; for other extra dimensions, `0D or 1D target tensor expected,
    /// multi-target not supported` or a size mismatch.
    ///
    /// ## Fix
    /// For single-label data take the index: `target.argmax(dim=1)`. To train on the one-hot rows as
    /// probabilities, pass `target.float()`. For multi-label data (several 1s per row) use
    /// `binary_cross_entropy_with_logits`.
    ///
    /// ## Checked by
    /// - [`crate::ops::label_target::LabelTarget::shape`] (the scan's label arrays and the Python data guards)
    /// - [`crate::ops::classification::probability_targets`]
    /// - [`crate::ops::classification::target_shape`]
    /// - fixtures: `lg202_one_hot_long`, `lg202_one_hot_spatial` in `tests/rule_fixtures.rs`
    "LG202", "one-hot-target", Error, Metadata
}
