use crate::rule::declare_rule;

declare_rule! {
    /// An id of `embedding_bag` outside the table.
    ///
    /// ## What it checks
    /// Every id given to `F.embedding_bag` / `nn.EmbeddingBag` must lie in `[0, num_embeddings-1]`.
    ///
    /// ## Why it crashes
    /// The CPU raises `Index 1 of input takes value 9 which is not in the valid range [0, 5)`. On CUDA, builds
    /// with the range assert fail with `Assertion `0 <= input_idx && input_idx < numRows` failed`; older builds do
    /// not check and read outside the table (garbage or `an illegal memory access was encountered`).
    ///
    /// ## Fix
    /// Size the table for every id (hashing buckets, vocabulary), and map unknown ids to a reserved row.
    ///
    /// ## Checked by
    /// - [`crate::ops::embedding_bag::embedding_bag`]
    /// - fixture: `lg412_embedding_bag` in `tests/rule_fixtures.rs`
    "LG412", "embedding-bag-index-out-of-range", Error
}
