use crate::rule::declare_rule;

declare_rule! {
    /// An index of `index_add`, `index_copy` or `index_fill` outside the dimension.
    ///
    /// ## What it checks
    /// Every index must lie in `[0, size-1]` of `dim` (`index_fill` also accepts `[-size, -1]`).
    ///
    /// ## Why it crashes
    /// On CUDA the kernels assert (`indexAddSmallIndex: Assertion `dstIndex < dstAddDimSize` failed`,
    /// `"index_copy_(): index out of bounds"`, `idx >= -self_dim_size && idx < self_dim_size`); on the CPU:
    /// `index_copy_(): index 4 is out of bounds for dimension 0 with size 4`.
    ///
    /// ## Fix
    /// Check the indices where they are built; class ids used as indices must exclude ignore values.
    ///
    /// ## Checked by
    /// - [`crate::ops::index_along_dim::along_dim`]
    /// - [`crate::ops::index_along_dim::empty_dim`]
    /// - fixture: `lg411_index_copy` in `tests/rule_fixtures.rs`
    "LG411", "index-op-out-of-bounds", Error
}
