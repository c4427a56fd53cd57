use crate::rule::declare_rule;

declare_rule! {
    /// A sample whose labels are all the ignore index: it trains nothing, and a batch of such samples gives a NaN loss.
    ///
    /// ## What it checks
    /// Rows of the `labels` list column in which every label equals the ignore index (`-100`), or that are empty.
    /// Checked with or without `--model`.
    ///
    /// ## Why it matters
    /// No device assert: `cross_entropy` with `reduction='mean'` divides by the number of labels that are not
    /// ignored, so a batch made only of such rows gives `loss = nan` (0/0), and the run goes on with NaN weights
    /// after the optimizer step; in a mixed batch the row just trains nothing. The usual cause is truncation: the
    /// prompt fills `max_length` and the answer, the only part with labels, is cut off.
    ///
    /// ## Fix
    /// Filter such rows out (`ds.filter(lambda r: any(l != -100 for l in r["labels"]))`), or truncate the prompt
    /// rather than the answer (a larger `max_length`, `truncation_side='left'`).
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg804_all_labels_ignored.rs` (same name, in the scan crate)
    /// - tests: `crates/labelguard-scan/tests/tokens.rs`, `tests/python/test_token_datasets.py`
    "LG804", "all-labels-ignored", Warning
}
