use crate::rule::declare_rule;

declare_rule! {
    /// Sampling without replacement asks for more samples than a row has non-zero probabilities.
    ///
    /// ## What it checks
    /// With `replacement=False`, `num_samples` must not exceed the number of non-zero entries of any row.
    ///
    /// ## Why it matters
    /// PyTorch accepts it and returns categories whose probability is zero, so the "samples" are not draws
    /// from the distribution.
    ///
    /// ## Fix
    /// Lower `num_samples`, or sample with replacement.
    ///
    /// ## Checked by
    /// - [`crate::ops::multinomial::multinomial`]
    /// - fixture: `lg507_multinomial_too_few` in `tests/rule_fixtures.rs`
    "LG507", "multinomial-too-few-categories", Warning
}
