use crate::rule::declare_rule;

declare_rule! {
    /// Class-probability targets are not probability distributions.
    ///
    /// ## What it checks
    /// When `cross_entropy` gets a float target shaped like `input`, every element must be in [0, 1] and the
    /// values along the class dimension must sum to 1.
    ///
    /// ## Why it matters
    /// PyTorch computes `-sum(target * log_softmax(input))` without checking; negative entries or rows that do
    /// not sum to 1 give a loss whose minimum is not the intended distribution (or no minimum at all).
    ///
    /// ## Fix
    /// Normalise the targets (`target / target.sum(1, keepdim=True)`); if they are class ids stored as floats
    /// in a tensor that happens to be shaped like `input`, pass `target.long()` with the class-index shape.
    ///
    /// ## Checked by
    /// - [`crate::ops::classification::soft_target_distribution`]
    /// - fixture: `lg504_soft_targets` in `tests/rule_fixtures.rs`
    "LG504", "soft-target-not-distribution", Warning
}
