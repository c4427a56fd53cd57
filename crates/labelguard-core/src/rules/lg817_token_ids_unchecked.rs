use crate::rule::declare_rule;

declare_rule! {
    /// Token data was read but its ids could not be checked: nothing says how large the vocabulary is, or the text is not tokenized yet.
    ///
    /// ## What it checks
    /// A flat token file (nanoGPT's `train.bin`/`val.bin`, a Megatron/NeMo/GPT-NeoX `.bin` + `.idx`) holds only the ids:
    /// the vocabulary they index comes from elsewhere. labelguard takes it from `--vocab-size N`, else from `--model`
    /// (the embedding's rows), else, for nanoGPT, from the `vocab_size` of the `meta.pkl` beside the files (read
    /// without running the pickle). With none of them, the ids are read (the largest one is reported) but not checked, and this finding says so rather than
    /// passing the data silently. labelguard does not guess a vocabulary (nanoGPT's GPT-2 default of 50304 rows is
    /// a setting of `train.py`, not of the data).
    ///
    /// A `datasets` folder (or Arrow, Parquet or JSONL file read as token data) with no `input_ids` column is the
    /// other case: raw text that a data collator or a later `.map(tokenizer)` tokenizes (`{"text", "label"}`, as
    /// IMDB or GLUE are published). It is not corrupt, and nothing in it can be checked against a model yet: this
    /// finding names its columns and says that neither token ids nor labels were checked.
    ///
    /// ## Why it matters
    /// Nothing crashes because of it, but an id at or beyond the embedding's rows (LG801) would make `nn.Embedding`
    /// assert on CUDA (`srcIndex < srcSelectDimSize`) and labelguard could not see it.
    ///
    /// ## Fix
    /// Scan with `--vocab-size N` (the `vocab_size` the model is built with), or `--model MODEL_DIR` (a Hugging Face model directory, or any folder with a `config.json` that gives
    /// `vocab_size`), or keep the `meta.pkl` that the dataset's `prepare.py` wrote beside the token files. For a
    /// dataset not tokenized yet: scan it after tokenizing (`.map(tokenize)` then `save_to_disk`), or let
    /// `labelguard.enable()` / `labelguard run` check each batch while training.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg817_token_ids_unchecked.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/token_bin.rs`
    "LG817", "token-ids-unchecked", Warning
}
