use crate::rule::declare_rule;

declare_rule! {
    /// The labels have a gap: C distinct values on a dimension of C classes, but not `0..C-1`.
    ///
    /// ## What it checks
    /// A label-shaped gather/scatter index (or one-hot, or the class index of `x[rows, labels]`, as for LG416)
    /// whose values are C distinct ids with one id missing below the largest, such as `{0, 1, 2, 4}` with 4 channels (BraTS labels: 0 background, 1 necrosis, 2 edema,
    /// 4 enhancing tumour, no 3).
    ///
    /// ## Why it crashes
    /// The largest id is outside `[0, C-1]`: the CUDA scatter/gather kernel asserts, the CPU raises.
    ///
    /// ## Fix
    /// Remap the labels to consecutive ids before one-hot encoding (BraTS: `label[label == 4] = 3`; MONAI:
    /// `MapLabelValued(keys="label", orig_labels=[0, 1, 2, 4], target_labels=[0, 1, 2, 3])`).
    ///
    /// ## Checked by
    /// - [`crate::ops::indexing::labels_cause`]
    /// - fixture: `lg417_brats_labels` in `tests/rule_fixtures.rs`
    "LG417", "label-set-gap", Error
}
