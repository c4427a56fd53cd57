use crate::rule::declare_rule;

declare_rule! {
    /// A tokenized sample is longer than the model's position table, or its `position_ids` index outside it.
    ///
    /// ## What it checks
    /// The length of each `input_ids` row against `max_position_embeddings` (less the offset of RoBERTa-style
    /// models, which count positions from `padding_idx + 1`: 512 tokens for roberta-base's 514 rows). When the
    /// data has a `position_ids` column (packed rows), its values instead, against `[0, max_position_embeddings)`:
    /// positions that run on across the documents of a packed row (150..349 against 256 positions), and negative
    /// positions (also without a model); the rows and positions are named. A packed row longer than the table
    /// whose positions restart at each document is fine. Chat JSONL conversations are checked by their length
    /// after the model's chat template and tokenizer (`apply_chat_template`).
    ///
    /// ## Why it crashes
    /// Models with a learned position table (BERT, RoBERTa, GPT-2, OPT, ...) look positions `0..L-1` up in it: on
    /// CUDA the `index_select` kernel asserts (`device-side assert triggered`), on the CPU `IndexError: index out of
    /// range in self`. Models with rotary positions (Llama, Mistral, Qwen, ...) do not crash: the finding is then a
    /// warning, as positions beyond the trained context degrade the model.
    ///
    /// ## Fix
    /// Tokenize with `truncation=True, max_length=N` (`N` at most the number in the finding), or pack/split long
    /// documents into chunks of at most `N` tokens. For packed rows, restart `position_ids` at 0 at every document
    /// boundary.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg805_sequence_beyond_positions.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/tokens.rs`, `crates/labelguard-scan/tests/token_positions.rs`,
    ///   `tests/python/test_token_datasets.py`, `tests/python/test_chat_templates.py`
    "LG805", "sequence-beyond-positions", Error
}
