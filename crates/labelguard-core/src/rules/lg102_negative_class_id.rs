use crate::rule::declare_rule;

declare_rule! {
    /// Negative class id: a class-index target is negative and is not `ignore_index`.
    ///
    /// ## What it checks
    /// Targets of `cross_entropy` / `nll_loss` below zero, other than the ignore value.
    ///
    /// ## Why it crashes
    /// The CUDA kernel asserts `t >= 0 && t < n_classes`; the CPU raises `IndexError: Target -3 is out of
    /// bounds.` PyTorch's default `ignore_index` is -100, so any other negative "unknown" marker crashes.
    ///
    /// ## Example
    /// `F.cross_entropy(logits, torch.tensor([2, -5, 0]))`.
    ///
    /// ## Fix
    /// Set `ignore_index` to the marker, or replace the marker with -100 (PyTorch's default ignore value).
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`crate::ops::class_ids::class_finding`]
    /// - fixture: `lg102_negative` in `tests/rule_fixtures.rs`
    "LG102", "negative-class-id", Error
}
