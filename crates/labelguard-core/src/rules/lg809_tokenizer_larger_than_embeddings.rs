use crate::rule::declare_rule;

declare_rule! {
    /// The tokenizer emits ids at or beyond the model's embedding table: tokens were added without resizing it.
    ///
    /// ## What it checks
    /// The tokenizer's largest id (`len(tokenizer) - 1` for a usual tokenizer, added tokens included) against the
    /// rows of the model's input embedding: the rows stored in the weights when labelguard can read them
    /// (`model.safetensors`' header, `get_input_embeddings().num_embeddings`), else the config's `vocab_size`.
    /// A tokenizer smaller than the table is fine (models round their tables up to a multiple of 64 or 128).
    ///
    /// ## Why it crashes
    /// Every text containing one of the tokens beyond the table makes the embedding lookup read past its end: on
    /// CUDA the `index_select` kernel asserts (`device-side assert triggered`, `srcIndex < srcSelectDimSize`), on
    /// the CPU PyTorch raises `IndexError: index out of range in self`. It happens on the first batch that holds
    /// such a token, possibly hours into training. The usual cause: `tokenizer.add_tokens(...)` or
    /// `tokenizer.add_special_tokens(...)` (a chat template's `<|im_start|>`, a `[PAD]` added for padding) without
    /// `model.resize_token_embeddings(len(tokenizer))`.
    ///
    /// ## Fix
    /// `model.resize_token_embeddings(len(tokenizer))` after adding tokens (and save the model again), or use the
    /// tokenizer that belongs to the model.
    ///
    /// ## Checked by
    /// - [`crate::model::check_model`]
    /// - tests: `python/tests/test_model_check.py` (a grown tokenizer against transformers' own models)
    "LG809", "tokenizer-larger-than-embeddings", Error
}
