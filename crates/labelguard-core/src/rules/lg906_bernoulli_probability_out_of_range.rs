use crate::rule::declare_rule;

declare_rule! {
    /// `bernoulli` got probabilities outside [0, 1], or NaN.
    ///
    /// ## What it checks
    /// Every probability passed to `torch.bernoulli(p)` or `Tensor.bernoulli_(p)` must lie in [0, 1].
    ///
    /// ## Why it crashes
    /// With a probability tensor on CUDA the sampling kernel asserts (`Assertion `0 <= p && p <= 1` failed.`,
    /// or `0 <= p1 && p1 <= 1` ... `p4` in the unrolled kernel); NaN fails the comparison too. On the CPU:
    /// `Expected p_in >= 0 && p_in <= 1 to be true, but got false.`; a scalar `p` is checked on the host:
    /// `bernoulli_ expects p to be in [0, 1], but got p=1.5`.
    ///
    /// ## Example
    /// `torch.bernoulli(logits)` where `torch.bernoulli(torch.sigmoid(logits))` was meant.
    ///
    /// ## Fix
    /// Pass probabilities (`sigmoid`, then `clamp(0, 1)`), and find where NaN comes from if there is any.
    ///
    /// ## Checked by
    /// - `crates/labelguard-diagnose/src/checks/lg906_bernoulli_probability_out_of_range.rs` (same name, in the diagnose crate, which has its inputs)
    /// - fixtures: the logs in `tests/fixtures/logs/` with their expected rules in `expected.toml` (`crates/labelguard-diagnose/tests/corpus.rs`)
    "LG906", "bernoulli-probability-out-of-range", Error
}
