use crate::rule::declare_rule;

declare_rule! {
    /// Token or position id outside the embedding table.
    ///
    /// ## What it checks
    /// Every index given to `embedding` must lie in `[0, num_embeddings-1]`.
    ///
    /// ## Why it crashes
    /// On CUDA `index_select` asserts (`Indexing.cu: indexSelectLargeIndex: ... Assertion `srcIndex <
    /// srcSelectDimSize` failed`); negative ids fail the same check because the index is compared unsigned.
    /// On the CPU: `IndexError: index out of range in self`.
    ///
    /// ## Example
    /// Tokens added to a tokenizer without resizing the model's embeddings; sequences longer than
    /// `max_position_embeddings`; -100 label padding fed into `input_ids`.
    ///
    /// ## Fix
    /// `model.resize_token_embeddings(len(tokenizer))` after adding tokens; truncate to the model's maximum
    /// length; replace -100 with `pad_token_id` in `input_ids`.
    ///
    /// ## Checked by
    /// - [`crate::ops::embedding::embedding`]
    /// - [`crate::ops::embedding::embedding_ids`]
    /// - fixture: `lg401_token_id` in `tests/rule_fixtures.rs`
    "LG401", "embedding-index-out-of-range", Error
}
