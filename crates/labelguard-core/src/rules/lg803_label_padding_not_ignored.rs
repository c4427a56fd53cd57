use crate::rule::declare_rule;

declare_rule! {
    /// Labels are padded (or masked) with `-1` or another negative value instead of the ignore index `-100`.
    ///
    /// ## What it checks
    /// Negative values in the `labels` column of a tokenized dataset other than the loss's ignore index (`-100`,
    /// or `--ignore-index`). Checked with or without `--model`.
    ///
    /// ## Why it crashes
    /// transformers' losses call `cross_entropy(..., ignore_index=-100)`; any other negative label is a class
    /// index below 0: on CUDA `nll_loss` asserts `t >= 0 && t < n_classes` (`device-side assert triggered`), on the
    /// CPU it raises `IndexError: Target -1 is out of bounds.` `-1` comes from collators written for other
    /// frameworks, or from `tokenizer.pad_token_id` being `None` and replaced by `-1`.
    ///
    /// ## Fix
    /// Pad and mask labels with `-100`: `DataCollatorForSeq2Seq(tokenizer, label_pad_token_id=-100)`, or
    /// `labels = [l if l >= 0 else -100 for l in labels]`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg803_label_padding_not_ignored.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/tokens.rs`, `tests/python/test_token_datasets.py`
    "LG803", "label-padding-not-ignored", Error
}
