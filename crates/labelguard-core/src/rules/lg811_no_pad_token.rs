use crate::rule::declare_rule;

declare_rule! {
    /// The tokenizer has no padding token: batches of different lengths cannot be padded.
    ///
    /// ## What it checks
    /// Neither the tokenizer (`pad_token` in `tokenizer_config.json` or `special_tokens_map.json`,
    /// `tokenizer.pad_token_id`) nor the model's config (`pad_token_id`) names a padding token. Checked only when a
    /// tokenizer was found. Llama, Mistral and GPT-2 tokenizers ship without one.
    ///
    /// ## Why it matters
    /// `tokenizer(texts, padding=True)` raises `ValueError: Asking to pad but the tokenizer does not have a padding
    /// token`, and `DataCollatorWithPadding` with it. The usual repairs go wrong in the ways that do crash: adding
    /// `[PAD]` without resizing the embedding (LG809/LG810), or padding the labels with the pad id instead of -100.
    ///
    /// ## Fix
    /// `tokenizer.pad_token = tokenizer.eos_token` (and `model.config.pad_token_id = tokenizer.pad_token_id`), or
    /// `tokenizer.add_special_tokens({"pad_token": "[PAD]"})` followed by `model.resize_token_embeddings(len(tokenizer))`.
    ///
    /// ## Checked by
    /// - [`crate::model::check_model`]
    /// - tests: `python/tests/test_model_check.py`
    "LG811", "no-pad-token", Warning
}
