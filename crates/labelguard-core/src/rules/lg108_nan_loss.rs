use crate::finding::{Finding, Verdict};
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
    /// - [`finding`] (in this file) builds the finding; the contracts that call it:
    /// - [`crate::ops::bce::binary_cross_entropy`]
    /// - [`crate::ops::bce::binary_cross_entropy_with_logits`]
    /// - [`crate::ops::classification::probability_targets`]
    /// - [`crate::ops::classification::nll_loss_nd`]
    /// - fixture: `lg108_all_ignored` in `tests/rule_fixtures.rs`
    "LG108", "nan-loss", Warning
}

/// The finding: a mean over nothing (every target ignored, zero total weight, empty tensors) is
/// NaN; `why` says which.
pub fn finding(why: &str) -> Finding {
    Finding::new(
        &RULE,
        Verdict::Silent,
        format!("with reduction='mean' the loss is NaN: {why}"),
    )
    .fix("skip batches without labelled targets, or use reduction='sum' and divide by a count you control")
}
