use crate::rule::declare_rule;

declare_rule! {
    /// A special token's id (pad, bos, eos, an added special token, the image placeholder) is at or beyond the embedding table.
    ///
    /// ## What it checks
    /// Every special token id that the tokenizer or the config names (`pad_token_id`, `bos_token_id`,
    /// `eos_token_id`, `image_token_index`/`image_token_id`, the tokenizer's special added tokens and
    /// `all_special_ids`) against the rows of the input embedding. Negative ids (a config's `pad_token_id: -1`) count.
    ///
    /// ## Why it crashes
    /// Special tokens are in every sample (bos/eos framing, padding, an image placeholder per image), so the first
    /// batch already looks up a row that does not exist: a CUDA `index_select` device assert, an `IndexError: index
    /// out of range in self` on the CPU. A `pad_token_id` beyond the table fails even earlier, when the model is
    /// built: `nn.Embedding(..., padding_idx=...)` asserts `Padding_idx must be within num_embeddings`.
    ///
    /// ## Fix
    /// `model.resize_token_embeddings(len(tokenizer))` after `add_special_tokens`, or set the config's ids to the
    /// tokenizer's (`model.config.pad_token_id = tokenizer.pad_token_id`).
    ///
    /// ## Checked by
    /// - [`crate::model::check_model`]
    /// - tests: `python/tests/test_model_check.py`
    "LG810", "special-token-beyond-embeddings", Error
}
