use crate::rule::declare_rule;

declare_rule! {
    /// The input of `kl_div` is not log-probabilities.
    ///
    /// ## What it checks
    /// `F.kl_div` / `nn.KLDivLoss` take the model's log-probabilities as `input`: entries at most 0 whose
    /// exponentials sum to 1 along some dimension (the batch dimension left out). Probabilities (a softmax) or
    /// raw logits are reported.
    ///
    /// ## Why it matters
    /// The loss is `target * (log(target) - input)`: with probabilities or logits as `input` its minimum is not
    /// at the target distribution. PyTorch does not check, and nothing raises.
    ///
    /// ## Fix
    /// Pass `student_logits.log_softmax(dim)` as `input`.
    ///
    /// ## Checked by
    /// - [`crate::ops::kl_div::kl_div`]
    /// - fixture: `lg423_kl_div_probabilities` in `tests/rule_fixtures.rs`
    "LG423", "kl-div-input-not-log-probabilities", Warning
}
