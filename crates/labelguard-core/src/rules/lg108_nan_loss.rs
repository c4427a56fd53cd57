use crate::rule::declare_rule;

declare_rule! {
    /// The loss is NaN because nothing contributes to the mean.
    ///
    /// ## What it checks
    /// With `reduction='mean'`, every target is `ignore_index`, the tensors are empty, or the class weights of
    /// all remaining targets sum to zero.
    ///
    /// ## Why it matters
    /// PyTorch divides by the number (or total weight) of contributing targets, which is zero, and returns NaN
    /// without an error. One NaN loss poisons the weights at the next optimizer step.
    ///
    /// ## Fix
    /// Skip such batches (`if (target != ignore_index).any(): ...`), or use `reduction='sum'` and divide by a
    /// count you control; make sure random crops keep some labelled pixels.
    ///
    /// ## Checked by
    /// - [`crate::ops::reduction::nan_loss`]
    /// - fixture: `lg108_all_ignored` in `tests/rule_fixtures.rs`
    "LG108", "nan-loss", Warning
}
