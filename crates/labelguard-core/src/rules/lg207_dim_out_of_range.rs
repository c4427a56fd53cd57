use crate::finding::{Finding, Verdict};
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
    /// - [`finding`] (in this file) builds the finding when [`crate::ops::shapes::wrap_dim`]
    ///   refuses a dim; the contracts that call it:
    /// - [`crate::ops::index_along_dim::dim_of`]
    /// - [`crate::ops::index_along_dim::index_add`]
    /// - [`crate::ops::indexing::gather`]
    /// - [`crate::ops::indexing::scatter_common`]
    /// - [`crate::ops::indexing::index_select`]
    /// - [`crate::ops::take_put::take_along_dim`] (also a 0-d input)
    /// - fixture: `lg207_dim_out_of_range` in `tests/rule_fixtures.rs`
    "LG207", "dim-out-of-range", Error, Metadata
}

/// The finding for a `dim` outside a tensor of `ndim` dimensions (a 0-d tensor counts as 1-d, as
/// in PyTorch's `maybe_wrap_dim`).
pub fn finding(dim: i64, ndim: usize) -> Finding {
    let n = ndim.max(1) as i64;
    Finding::new(
        &RULE,
        Verdict::Error,
        format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        ),
    )
    .fix(format!("use a dim between {} and {}", -n, n - 1))
}
