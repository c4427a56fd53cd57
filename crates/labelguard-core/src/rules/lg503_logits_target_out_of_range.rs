use crate::rule::declare_rule;

declare_rule! {
    /// `binary_cross_entropy_with_logits` got targets outside [0, 1].
    ///
    /// ## What it checks
    /// Targets of `F.binary_cross_entropy_with_logits` / `nn.BCEWithLogitsLoss`.
    ///
    /// ## Why it matters
    /// PyTorch does not check: a target of 255 or -1 gives a loss without a minimum, which the model drives
    /// towards infinity. Nothing crashes; the training silently diverges.
    ///
    /// ## Fix
    /// Scale 0/255 masks to 0/1 (`mask / 255`); mask out ignore values with `weight` instead of leaving them
    /// in the target.
    ///
    /// ## Checked by
    /// - [`crate::ops::bce::binary_cross_entropy_with_logits`]
    /// - fixture: `lg503_logits_target` in `tests/rule_fixtures.rs`
    "LG503", "logits-target-out-of-range", Warning
}
