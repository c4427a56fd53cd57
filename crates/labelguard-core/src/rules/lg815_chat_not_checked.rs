use crate::rule::declare_rule;

declare_rule! {
    /// Conversations of a chat dataset were not checked: there is no tokenizer or chat template to render them with.
    ///
    /// ## What it checks
    /// A chat dataset (`messages`, ShareGPT `conversations`; JSONL, or a `list<struct>` column of Parquet or a
    /// `save_to_disk` folder) is checked by rendering each conversation
    /// with the model's chat template and tokenizing it with its `tokenizer.json` (lengths against the
    /// position table: LG805; ids against the embedding: LG801). This finding says when that could not be
    /// done, and why: no `--model`, a model directory without `tokenizer.json` or without a chat template,
    /// or a template construct labelguard's renderer does not support (the rows are named).
    ///
    /// ## Why it matters
    /// Nothing crashes because of it, but the conversations' lengths and token ids are unchecked:
    /// labelguard says so rather than passing the data silently.
    ///
    /// ## Fix
    /// Pass the model directory the data is trained with (`--model DIR`, holding `tokenizer.json` and the
    /// chat template the training script uses).
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg815_chat_not_checked.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/chat.rs`, `crates/labelguard-scan/tests/chat_tables.rs`,
    ///   `tests/python/test_chat_templates.py`, `tests/python/test_chat_tables.py`
    "LG815", "chat-not-checked", Warning
}
