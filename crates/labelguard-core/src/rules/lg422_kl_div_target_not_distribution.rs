use crate::rule::declare_rule;

declare_rule! {
    /// The target of `kl_div` is not a distribution of the kind `log_target` says.
    ///
    /// ## What it checks
    /// `F.kl_div` / `nn.KLDivLoss` with `log_target=False` (the default): entries must be in [0, 1] and sum to
    /// 1 along some dimension (the batch dimension left out); with `log_target=True`: entries at most 0 whose
    /// exponentials sum to 1. It names the likely mix-up: log-probabilities passed without `log_target=True`,
    /// probabilities with it, or raw logits. The tolerance of the sums follows the dtype (bfloat16 rounds).
    ///
    /// ## Why it matters
    /// PyTorch computes `xlogy(target, target) - target * input` (or `exp(target) * (target - input)`) without
    /// checking: negative targets give NaN, others a loss whose minimum is not the teacher's distribution.
    /// Nothing raises; the distillation trains on garbage.
    ///
    /// ## Fix
    /// `F.kl_div(student.log_softmax(1), teacher.softmax(1), reduction="batchmean")`, or both as
    /// log-probabilities with `log_target=True`.
    ///
    /// ## Checked by
    /// - [`crate::ops::kl_div::kl_div`]
    /// - fixture: `lg422_kl_div_log_target` in `tests/rule_fixtures.rs`
    "LG422", "kl-div-target-not-distribution", Warning
}
