use crate::rule::declare_rule;

declare_rule! {
    /// Position ids `0..L-1` beyond the position table: the sequence is longer than `max_position_embeddings`.
    ///
    /// ## What it checks
    /// An embedding lookup whose ids are exactly the positions `0, 1, ..., L-1` (per row) with `L` larger than the
    /// table.
    ///
    /// ## Why it crashes
    /// As every embedding lookup: the CUDA `index_select` kernel asserts, the CPU raises `IndexError: index out
    /// of range in self`. Hugging Face tokenizers warn first: `Token indices sequence length is longer than the
    /// specified maximum sequence length for this model`.
    ///
    /// ## Fix
    /// Truncate the inputs to the model's maximum length (`tokenizer(..., truncation=True,
    /// max_length=model.config.max_position_embeddings)`), or use a model with a longer context.
    ///
    /// ## Checked by
    /// - [`crate::ops::embedding::embedding_ids`]
    /// - fixture: `lg415_positions_beyond_table` in `tests/rule_fixtures.rs`
    "LG415", "sequence-longer-than-positions", Error
}
