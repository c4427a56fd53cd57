use crate::rule::declare_rule;

declare_rule! {
    /// An integer tensor index outside the dimension it indexes: `x[idx]`, `x[:, idx] = v`, `index_put_`.
    ///
    /// ## What it checks
    /// Every value of an integer index tensor must lie in `[-size, size-1]` of the dimension it indexes (negative
    /// values count from the end, as in Python). Several index tensors are checked each against its own dimension.
    ///
    /// ## Why it crashes
    /// On CUDA the indexing kernel asserts (`IndexKernel.cu: ... Assertion `-sizes[i] <= index && index < sizes[i]
    /// && "index out of bounds"` failed`); on the CPU: `IndexError: index 255 is out of bounds for dimension 0 with
    /// size 19`. `index_put_(..., accumulate=True)` checks on the host, on CUDA too, and raises the same IndexError.
    ///
    /// ## Example
    /// mmsegmentation's `CrossEntropyLoss(class_weight=...)` computes `class_weight[label]` before it drops
    /// `ignore_index`, so the void label 255 indexes past the end of a 19-entry weight vector.
    ///
    /// ## Fix
    /// Mask ignore values out before indexing (`w[label.clamp(max=C-1)] * (label != ignore)`), and make lookup
    /// tables cover every value used as an index.
    ///
    /// ## Checked by
    /// - [`crate::ops::advanced_index::empty_dims`]
    /// - [`crate::ops::advanced_index::ranges`]
    /// - fixtures: `lg409_class_weight_void`, `lg409_second_index_dim` in `tests/rule_fixtures.rs`
    "LG409", "advanced-index-out-of-bounds", Error
}
