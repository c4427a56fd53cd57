use crate::rule::declare_rule;

declare_rule! {
    /// A boolean mask used as an index does not have the shape of the dimensions it indexes.
    ///
    /// ## What it checks
    /// `x[mask]`, `x[:, mask] = v`, `x.index_put_((mask,), v)`: a `bool` (or deprecated `uint8`) index tensor of `k`
    /// dimensions selects along `k` dimensions of `x`, and its shape must equal theirs exactly. The mask of
    /// `x.masked_scatter(mask, source)` must broadcast with `x`.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `IndexError: The shape of the mask [3] at index 0 does not match the shape of
    /// the indexed tensor [4, 5] at index 0`. A `uint8` tensor of class ids given as an index is read as a mask, so
    /// `weights[labels.byte()]` fails the same way.
    ///
    /// ## Fix
    /// Build the mask from the tensor it indexes (`x[x > 0]`), or index with `long` ids (`weights[labels.long()]`).
    ///
    /// ## Checked by
    /// - [`crate::ops::advanced_index::place`]
    /// - [`crate::ops::masked_scatter::masked_scatter`] (a mask that does not broadcast to the tensor)
    /// - fixture: `lg211_mask_shape` in `tests/rule_fixtures.rs`
    "LG211", "mask-shape-mismatch", Error, Metadata
}
