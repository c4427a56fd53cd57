use crate::rule::declare_rule;

declare_rule! {
    /// A marker the chat template writes (`<|im_start|>`) is not one token of the tokenizer: it is split into pieces.
    ///
    /// ## What it checks
    /// The `<|name|>` markers a chat template writes literally (ChatML's `<|im_start|>` and `<|im_end|>`,
    /// Llama 3's `<|eot_id|>`, Phi's `<|user|>`) are encoded with the model's `tokenizer.json` as
    /// `tokenizer.encode(marker, add_special_tokens=False)` encodes them. A marker that comes out as more than
    /// one id was never added to the tokenizer: the finding names it and the pieces it splits into. Special
    /// tokens named in `tokenizer_config.json` (`bos_token`, `eos_token`, `pad_token`, `unk_token`,
    /// `extra_special_tokens` / `additional_special_tokens`) are added by transformers when the tokenizer
    /// loads, so they are always one id; labelguard adds them the same way before rendering.
    ///
    /// ## Why it matters
    /// Nothing crashes: the model trains on ordinary pieces (`<`, `|`, `im`, `_start`, ...) where the template
    /// meant one delimiter, so it cannot emit the marker as one token when generating (an end-of-turn it never
    /// stops on), and every conversation is longer than the template's author counted. This is what a ChatML
    /// template set on a tokenizer that lacks its tokens does (`tokenizer.chat_template = ...` without
    /// `add_special_tokens`).
    ///
    /// ## Fix
    /// Add the markers as special tokens and grow the embedding to match:
    /// `tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})` then
    /// `model.resize_token_embeddings(len(tokenizer))` (TRL's `setup_chat_format` does both), and save both.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg820_chat_marker_split.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/chat.rs`, `tests/python/test_chat_tables.py`
    "LG820", "chat-marker-split", Warning
}
