use crate::rule::declare_rule;

declare_rule! {
    /// Padding value -1 with the default `ignore_index=-100`.
    ///
    /// ## What it checks
    /// Targets equal to -1 (the usual padding or "unknown" marker) while `ignore_index` is still PyTorch's
    /// default -100.
    ///
    /// ## Why it crashes
    /// -1 is not a class id: the CUDA loss kernel asserts and the CPU raises `IndexError: Target -1 is out of
    /// bounds.` Hugging Face models expect -100 for positions the loss must skip.
    ///
    /// ## Fix
    /// Pass `ignore_index=-1`, or pad the labels with -100 (`DataCollatorForTokenClassification(label_pad_token_id=-100)`).
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`crate::ops::class_ids::class_finding`]
    /// - [`crate::ops::ctc::value_checks`]
    /// - fixtures: `lg107_padding_minus_one`, `lg107_ctc_padding_minus_one` in `tests/rule_fixtures.rs`
    "LG107", "padding-value-not-ignored", Error
}
