use crate::rule::declare_rule;

declare_rule! {
    /// Logits or log-probabilities contain NaN or infinity.
    ///
    /// ## What it checks
    /// The `input` of `cross_entropy` and `binary_cross_entropy_with_logits`, and `log_probs` of `ctc_loss`.
    ///
    /// ## Why it matters
    /// PyTorch propagates NaN into the loss and the gradients without an error; the next optimizer step
    /// writes NaN into the weights. (Minus infinity in `nll_loss`/`ctc_loss` log-probabilities is a
    /// legitimate zero probability; NaN and plus infinity are not.)
    ///
    /// ## Fix
    /// Find the source: a learning rate too high, fp16 overflow (use bfloat16 or a `GradScaler`), a `log(0)`,
    /// a division by zero in the model.
    ///
    /// ## Checked by
    /// - [`crate::ops::values::non_finite`]
    /// - fixture: `lg508_nan_logits` in `tests/rule_fixtures.rs`
    "LG508", "non-finite-values", Warning
}
