use crate::rule::declare_rule;

declare_rule! {
    /// Token type (segment) ids beyond a 2-row table: `token_type_ids` >= `type_vocab_size`.
    ///
    /// ## What it checks
    /// An embedding lookup into a table of 1 or 2 rows with ids beyond it. Tables that small are the token type
    /// embeddings of BERT-style models (`type_vocab_size` is 2 for BERT, 1 for RoBERTa).
    ///
    /// ## Why it crashes
    /// As every embedding lookup: the CUDA `index_select` kernel asserts, the CPU raises `IndexError: index out
    /// of range in self`.
    ///
    /// ## Fix
    /// Pass `token_type_ids` made by the model's own tokenizer (0 and 1 only; RoBERTa takes none), or set
    /// `type_vocab_size` to the number of segments the data uses.
    ///
    /// ## Checked by
    /// - [`crate::ops::embedding::embedding_ids`]
    /// - fixture: `lg414_token_type_ids` in `tests/rule_fixtures.rs`
    "LG414", "token-type-id-out-of-range", Error
}
