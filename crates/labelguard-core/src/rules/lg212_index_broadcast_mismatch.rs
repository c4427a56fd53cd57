use crate::rule::declare_rule;

declare_rule! {
    /// Several index tensors that do not broadcast together.
    ///
    /// ## What it checks
    /// `x[rows, cols]` pairs the index tensors element by element: their shapes must broadcast
    /// (`x[torch.arange(N), labels]` needs `labels` of shape `[N]`).
    ///
    /// ## Why it fails
    /// PyTorch raises on the host: `IndexError: shape mismatch: indexing tensors could not be broadcast together
    /// with shapes [8], [8, 1]`.
    ///
    /// ## Fix
    /// Give both index tensors the same shape: `labels.view(-1)` for `[N, 1]` labels, or `rows[:, None]` to select
    /// a block on purpose.
    ///
    /// ## Checked by
    /// - [`crate::ops::advanced_index::broadcast_all`]
    /// - fixture: `lg212_index_broadcast` in `tests/rule_fixtures.rs`
    "LG212", "index-broadcast-mismatch", Error, Metadata
}
