use crate::rule::declare_rule;

declare_rule! {
    /// A `token_type_ids` value is outside the model's token-type table.
    ///
    /// ## What it checks
    /// Every value of the `token_type_ids` column against `[0, type_vocab_size)` (2 for BERT, 1 for RoBERTa).
    /// Negative values are checked without `--model` too.
    ///
    /// ## Why it crashes
    /// The token-type embedding is an `nn.Embedding` of `type_vocab_size` rows: on CUDA the lookup asserts
    /// (`device-side assert triggered`), on the CPU `IndexError: index out of range in self`. RoBERTa has one row,
    /// so BERT-style pair encodings (`0` then `1`) crash it.
    ///
    /// ## Fix
    /// Tokenize with the model's own tokenizer (RoBERTa's does not return `token_type_ids`:
    /// `return_token_type_ids=False`), or drop the column: `ds.remove_columns("token_type_ids")`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg806_token_type_out_of_range.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/tokens.rs`, `tests/python/test_token_datasets.py`
    "LG806", "token-type-out-of-range", Error
}
