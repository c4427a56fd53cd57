use crate::rule::declare_rule;

declare_rule! {
    /// More index dimensions than the tensor has.
    ///
    /// ## What it checks
    /// The integer, slice and tensor indices of `x[...]` (a boolean mask counts for its number of dimensions) must
    /// not address more dimensions than `x` has.
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `IndexError: too many indices for tensor of dimension 2`.
    ///
    /// ## Fix
    /// Check the rank of the tensor at the indexing line: a squeezed batch dimension, or a `[N]` tensor where
    /// `[N, C]` was expected.
    ///
    /// ## Checked by
    /// - [`crate::ops::advanced_index::place`]
    /// - fixture: `lg214_too_many_indices` in `tests/rule_fixtures.rs`
    "LG214", "too-many-indices", Error, Metadata
}
