use crate::rule::declare_rule;

declare_rule! {
    /// The number of image placeholder tokens in a sample disagrees with the images the sample carries.
    ///
    /// ## What it checks
    /// For a vision-language model (its config names `image_token_index`/`image_token_id`), the count of that id in
    /// each `input_ids` row against the images of the row: the length of its `images` list (or `pixel_values`'
    /// first dimension when it has one per image), or one for an `image` column (none when it is null). The row is
    /// consistent when the count is
    /// - `images` (one placeholder per image, which the processor or the model expands), or
    /// - `images × tokens_per_image` when the config says how many tokens one image becomes (`image_seq_length`,
    ///   `num_image_tokens`): placeholders already expanded by the processor.
    ///
    /// Without `--model`, or without an image column, the check is skipped.
    ///
    /// ## Why it crashes
    /// The model scatters the image features into the placeholder positions (`masked_scatter`): too few
    /// placeholders raise `ValueError: Image features and image tokens do not match: tokens: N, features M`; on
    /// older versions, or through a custom merge, `masked_scatter` reads past its source on the GPU
    /// (`device-side assert triggered`). Truncation that cuts through the image's placeholders is the usual cause.
    ///
    /// ## Fix
    /// Build `input_ids` with the model's processor (`processor(text=..., images=...)`), which inserts one run of
    /// placeholders per image, and never truncate through them (`truncation=False`, or drop rows that are too long).
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg808_image_placeholder_mismatch.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/tokens.rs`, `tests/python/test_token_datasets.py`
    "LG808", "image-placeholder-mismatch", Error
}
