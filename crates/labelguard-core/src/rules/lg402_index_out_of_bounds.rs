use crate::rule::declare_rule;

declare_rule! {
    /// Index out of bounds in `gather`, `scatter`, `scatter_add` or `index_select`.
    ///
    /// ## What it checks
    /// Every index must lie in `[0, size-1]`, where `size` is the size of the input along `dim`. Negative
    /// indices are not wrapped by these ops.
    ///
    /// ## Why it crashes
    /// On CUDA the kernel asserts (`ScatterGatherKernel.cu: ... Assertion `idx_dim >= 0 && idx_dim <
    /// index_size && "index out of bounds"` failed`, or `Indexing.cu ... srcIndex < srcSelectDimSize`). On the
    /// CPU: `RuntimeError: index 5 is out of bounds for dimension 1 with size 3`.
    ///
    /// ## Fix
    /// Check the index range where it is built: labels used as indices must be masked first
    /// (`index.clamp(max=size-1)` together with a mask of the valid positions), and a lookup table must have an
    /// entry for every value used as an index.
    ///
    /// ## Checked by
    /// - [`crate::ops::indexing::index_values`]
    /// - [`crate::ops::take_put::take_along_dim`]
    /// - fixtures: `lg402_gather`, `lg402_index_select_void` in `tests/rule_fixtures.rs`
    "LG402", "index-out-of-bounds", Error
}
