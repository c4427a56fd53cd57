use crate::rule::declare_rule;

declare_rule! {
    /// `embedding_bag` offsets are not increasing, or do not start at 0.
    ///
    /// ## What it checks
    /// The `offsets` of `F.embedding_bag` / `nn.EmbeddingBag` must start at 0 and never decrease, and none
    /// may exceed the number of indices.
    ///
    /// ## Why it crashes
    /// Each bag runs from `offsets[i]` to `offsets[i+1]`; on CUDA the kernel asserts `end >= begin`
    /// (`EmbeddingBag.cu: EmbeddingBag_updateOutputKernel: ... Assertion `end >= begin` failed.`).
    ///
    /// ## Fix
    /// Build offsets as `torch.cumsum(lengths, 0) - lengths` (or `[0] + cumsum[:-1]`) from the bag lengths,
    /// in the same order as the indices.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg907_embedding_bag_offsets.rs` (same name, in the diagnose crate, which has its inputs)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG907", "embedding-bag-offsets", Error
}
