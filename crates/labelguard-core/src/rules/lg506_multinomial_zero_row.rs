use crate::rule::declare_rule;

declare_rule! {
    /// A row of `multinomial`'s probabilities sums to zero.
    ///
    /// ## What it checks
    /// Every distribution (row) given to `torch.multinomial` needs a positive sum.
    ///
    /// ## Why it fails
    /// PyTorch raises `invalid multinomial distribution (sum of probabilities <= 0)` on the host, or asserts
    /// in the CUDA kernel when sampling with replacement.
    ///
    /// ## Fix
    /// Guard rows whose candidates were all filtered out (top-k/top-p with a bad mask), e.g. fall back to
    /// greedy decoding for them.
    ///
    /// ## Checked by
    /// - [`crate::ops::multinomial::multinomial`]
    /// - fixture: `lg506_multinomial_zero_row` in `tests/rule_fixtures.rs`
    "LG506", "multinomial-zero-row", Error
}
