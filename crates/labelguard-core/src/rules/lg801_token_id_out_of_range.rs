use crate::rule::declare_rule;

declare_rule! {
    /// A token id in `input_ids` is at or beyond the model's embedding rows, or negative.
    ///
    /// ## What it checks
    /// Every id of the `input_ids` column of a tokenized dataset (a `datasets` directory saved with `save_to_disk`,
    /// Parquet or JSONL with list columns) against `[0, rows)`, where `rows` is the input embedding's row count
    /// (the stored weight's, else the config's `vocab_size`). Negative ids are checked without `--model` too.
    /// Gemma3 and PaliGemma replace their image placeholder by 0 before the lookup when it is beyond the
    /// vocabulary, so that id is accepted for them.
    ///
    /// ## Why it crashes
    /// `nn.Embedding` looks each id up: on CUDA the `index_select` kernel asserts `srcIndex < srcSelectDimSize`
    /// (`device-side assert triggered`), on the CPU it raises `IndexError: index out of range in self`. The usual
    /// cause is a tokenizer with added tokens (`tokenizer.add_tokens`, `add_special_tokens`, a chat template's new
    /// markers) whose model was not resized, or data tokenized with another model's tokenizer.
    ///
    /// ## Fix
    /// `model.resize_token_embeddings(len(tokenizer))` after adding tokens, or tokenize with the model's own
    /// tokenizer; a negative id is a padding value written by hand: pad with `tokenizer.pad_token_id`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg801_token_id_out_of_range.rs` (same name, in the scan crate)
    /// - `crates/labelguard-scan/src/checks/token_stream.rs`: flat token files (nanoGPT's `train.bin` against
    ///   `meta.pkl`'s `vocab_size` or `--model`, Megatron's `.bin` + `.idx` against `--model`), by position or sequence
    /// - tests: `crates/labelguard-scan/tests/tokens.rs`, `tests/python/test_token_datasets.py`
    "LG801", "token-id-out-of-range", Error
}
