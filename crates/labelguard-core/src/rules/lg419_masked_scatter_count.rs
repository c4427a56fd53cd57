use crate::rule::declare_rule;

declare_rule! {
    /// `masked_scatter` is given fewer source elements than the mask has True entries: in a vision-language
    /// model, more image placeholder tokens in `input_ids` than image feature vectors.
    ///
    /// ## What it checks
    /// `x.masked_scatter(mask, source)` / `x.masked_scatter_(mask, source)` copies `source`'s elements, in
    /// order, to the True positions of `mask` (broadcast to `x`): `source` must hold at least as many elements
    /// as there are True entries. Vision-language models (LLaVA, Qwen2-VL, Gemma 3, PaliGemma, Idefics, ...)
    /// merge the image features into the text embeddings this way: the mask is `input_ids == image_token_id`
    /// widened to the hidden size, the source the projected image features, so the count of placeholder
    /// tokens must equal the count of feature vectors. transformers checks that equality itself in most
    /// models (`Image features and image tokens do not match`); under `labelguard.enable()` the same check
    /// runs before transformers' and torch's.
    ///
    /// ## Why it crashes
    /// On CUDA a one-thread kernel compares the mask's count with the source's size and asserts
    /// (`IndexKernel.cu: masked_scatter_size_check: block: [0,0,0], thread: [0,0,0] Assertion
    /// `totalElements <= srcSize` failed.`), after which every CUDA call fails with `device-side assert
    /// triggered`; the CPU raises `RuntimeError: Number of elements of source < number of ones in mask`. In a
    /// VLM the counts disagree when truncation (`max_length`) cut some image tokens or kept a partial image,
    /// when the prompt has `<image>` once per image but the text was tokenized without the processor (which
    /// expands it to one token per feature vector, e.g. 576 for LLaVA-1.5), when there are more `<image>`
    /// placeholders than images, or when the image resolution differs between the processor and the model.
    ///
    /// ## Fix
    /// Give one True entry per source element. For a VLM: build the inputs with the model's processor
    /// (`processor(text=..., images=...)` expands each `<image>` to the right number of tokens), one image per
    /// placeholder, and never truncate through image tokens (`truncation=False`, or a `max_length` that keeps
    /// every image's tokens).
    ///
    /// ## Checked by
    /// - [`crate::ops::masked_scatter::masked_scatter`]
    /// - fixtures: `lg419_more_ones_than_source`, `lg419_placeholders_disagree_with_features` in
    ///   `tests/rule_fixtures.rs`
    "LG419", "masked-scatter-count", Error
}
