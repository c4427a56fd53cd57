use crate::rule::declare_rule;

declare_rule! {
    /// The values written by an indexed assignment do not fit the positions they are written to.
    ///
    /// ## What it checks
    /// `x[idx] = v` and `index_put_`: `v` must broadcast to the shape of `x[idx]` (leading dimensions of size 1 of
    /// `v` are dropped by `__setitem__`) and have the dtype of `x`; `put_` needs as many source elements as
    /// indices; `index_add`/`index_copy` need `source.size(dim) == len(index)`.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `shape mismatch: value tensor of shape [3] cannot be broadcast to indexing
    /// result of shape [2, 5]`, `Index put requires the source and destination dtypes match`, `put_(): Expected
    /// source and index to have the same number of elements`.
    ///
    /// ## Fix
    /// Select the values with the same index (`x[mask] = y[mask]`), cast them (`v.to(x.dtype)`), or write a
    /// scalar.
    ///
    /// ## Checked by
    /// - [`crate::ops::advanced_index::index_put`]
    /// - [`crate::ops::index_along_dim::shape_error`]
    /// - [`crate::ops::take_put::put`]
    /// - fixture: `lg213_value_shape` in `tests/rule_fixtures.rs`
    "LG213", "value-shape-mismatch", Error, Metadata
}
