use crate::rule::declare_rule;

declare_rule! {
    /// `multinomial` got probabilities that are negative, infinite or NaN.
    ///
    /// ## What it checks
    /// Every entry of the input to `torch.multinomial` must be finite and non-negative.
    ///
    /// ## Why it fails
    /// With `replacement=False` or `num_samples=1` PyTorch checks on the host: `probability tensor contains
    /// either `inf`, `nan` or element < 0` (what Hugging Face `generate(do_sample=True)` shows). With
    /// replacement and several samples, the CUDA kernel asserts instead. Typical causes: fp16 overflow of the
    /// logits, logits passed instead of probabilities, all tokens filtered to -inf.
    ///
    /// ## Fix
    /// Sample from `torch.softmax(logits.float(), -1)`; load the model in bfloat16 or float32; check
    /// `torch.isfinite(logits).all()`.
    ///
    /// ## Checked by
    /// - [`crate::ops::multinomial::multinomial`]
    /// - fixture: `lg505_multinomial_nan` in `tests/rule_fixtures.rs`
    "LG505", "multinomial-invalid-probabilities", Error
}
