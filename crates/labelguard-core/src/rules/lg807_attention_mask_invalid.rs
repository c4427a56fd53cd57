use crate::rule::declare_rule;

declare_rule! {
    /// An `attention_mask` holds values other than 0 and 1, or its row is not as long as the row of `input_ids`.
    ///
    /// ## What it checks
    /// Every value of the `attention_mask` column is 0 or 1, and each row has the length of its `input_ids` row
    /// (so must `token_type_ids` rows, and `labels` rows with `--model` when the model is not an encoder-decoder:
    /// T5's and BART's labels, `is_encoder_decoder`, are a target sequence of their own length). Checked with or
    /// without `--model`.
    ///
    /// ## Why it matters
    /// A row of another length fails when the collator stacks the batch (`ValueError: expected sequence of length
    /// ...`) or, once padded separately, masks the wrong tokens; a length mismatch of `labels` shifts the loss onto
    /// the wrong tokens. Values like 2 are not rejected: transformers turns the mask into an additive bias
    /// (`(1 - mask) * min_value`), so a 2 becomes a large *positive* bias and a silently wrong attention, and
    /// Flash-Attention's unpadding reads the mask's sum as a length.
    ///
    /// ## Fix
    /// Build the mask with the tokenizer (`return_attention_mask=True`) and pad every column together
    /// (`tokenizer.pad`, `DataCollatorWithPadding`); a packed-sequence mask of segment numbers needs a model that
    /// accepts it.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg807_attention_mask_invalid.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/tokens.rs`, `tests/python/test_token_datasets.py`, `tests/python/test_token_judge.py`
    "LG807", "attention-mask-invalid", Error
}
