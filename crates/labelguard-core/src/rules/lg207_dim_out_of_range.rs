use crate::rule::declare_rule;

declare_rule! {
    /// The `dim` argument is outside the tensor's dimensions.
    ///
    /// ## What it checks
    /// `dim` of `gather`, `scatter` and `index_select` must lie in `[-ndim, ndim-1]` (a 0-d tensor counts as
    /// one dimension).
    ///
    /// ## Why it fails
    /// PyTorch raises `IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)`.
    ///
    /// ## Fix
    /// Use the dimension that holds the classes or positions (usually `dim=1` or `dim=-1`).
    ///
    /// ## Checked by
    /// - [`crate::ops::shapes::dim_finding`]
    /// - [`crate::ops::take_put::take_along_dim`]
    /// - fixture: `lg207_dim_out_of_range` in `tests/rule_fixtures.rs`
    "LG207", "dim-out-of-range", Error
}
