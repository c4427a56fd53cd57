use crate::rule::declare_rule;

declare_rule! {
    /// A label-shaped gather/scatter index holds the value C on a dimension of C classes.
    ///
    /// ## What it checks
    /// `gather`/`scatter` with an `[N, 1]` (or `[N, 1, ...]`) index on dim 1 of an `[N, C, ...]` tensor reads or
    /// writes one class per sample, as in label-smoothing cross entropy, mixup's one-hot or MONAI's `one_hot`;
    /// so does `scatter` with a `[1, H, W, ...]` index on dim 0 of a `[C, H, W, ...]` tensor (the one-hot of one
    /// channel-first sample, as MONAI's `AsDiscrete(to_onehot=C)` makes it), and an integer index into the class
    /// dimension of an advanced-indexing read `x[rows, labels]` or one-value write `t[mask, labels] = 1` (every
    /// dimension indexed, no other dimension of size `C`: hand-written NLL, the one-hot targets of torchvision's
    /// RetinaNet and FCOS heads, mmseg's sigmoid cross entropy). When the out-of-range values are exactly `C`,
    /// the labels count `C+1` classes. The same reasoning runs on class and category embeddings
    /// ([`crate::ops::embedding::embedding_ids`]), whose finding keeps the embedding's rule.
    ///
    /// ## Why it crashes
    /// The CUDA scatter/gather kernel asserts (`ScatterGatherKernel.cu: ... "index out of bounds"`); the CPU
    /// raises `index 5 is out of bounds for dimension 1 with size 5`.
    ///
    /// ## Fix
    /// Make the class count (`num_classes`, the head's width, `out_channels`, the one-hot width) `C+1`, the number
    /// of label values; or map the labels to `0..C-1`. Whether the extra class is a background class depends on the
    /// library (torchvision's detection heads count one, YOLO's do not): its fix says so.
    ///
    /// ## Checked by
    /// - [`crate::ops::indexing::labels_cause`], from [`crate::ops::indexing::label_cause`] and
    ///   [`crate::ops::advanced_index::ranges`]
    /// - fixtures: `lg416_label_shaped_scatter`, `lg416_channel_first_one_hot`, `lg416_one_hot_index_put` in
    ///   `tests/rule_fixtures.rs`
    "LG416", "label-index-equals-classes", Error
}
