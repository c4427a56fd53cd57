use crate::rule::declare_rule;

declare_rule! {
    /// Position ids `0..L-1` beyond the position table: the sequence is longer than `max_position_embeddings`.
    ///
    /// ## What it checks
    /// An embedding lookup whose ids are exactly the positions `0, 1, ..., L-1` (per row) with `L` larger than the
    /// table. Positions counted from `padding_idx + 1` (1 or 2) with padding entries at `padding_idx`, as
    /// RoBERTa-style models make them, count too; so does a `gather` along the last dimension with such ids
    /// (RoBERTa gathers its token-type buffer by position before the position embedding).
    ///
    /// ## Why it crashes
    /// As every embedding lookup: the CUDA `index_select` kernel asserts, the CPU raises `IndexError: index out
    /// of range in self` (the gather: its own device assert, or `index ... is out of bounds` on the CPU).
    /// Hugging Face tokenizers warn first: `Token indices sequence length is longer than the specified maximum
    /// sequence length for this model`.
    ///
    /// ## Fix
    /// Truncate the inputs to the model's maximum length (`tokenizer(..., truncation=True,
    /// max_length=model.config.max_position_embeddings)`; positions counted from `padding_idx + 1` leave
    /// `max_position_embeddings - padding_idx - 1` tokens, 512 for roberta-base), or use a model with a longer
    /// context.
    ///
    /// ## Checked by
    /// - [`crate::ops::embedding::embedding_ids`]
    /// - [`crate::ops::indexing::gather`]
    /// - fixtures: `lg415_positions_beyond_table`, `lg415_roberta_positions_beyond_table`,
    ///   `lg415_roberta_token_type_buffer_gathered_by_positions` in `tests/rule_fixtures.rs`
    "LG415", "sequence-longer-than-positions", Error
}
