use crate::rule::declare_rule;

declare_rule! {
    /// The label column named by `--label-column` is not in the table.
    ///
    /// ## What it checks
    /// The header of CSV/TSV files, the keys of JSONL records and the schema of Parquet files.
    ///
    /// ## Why it matters
    /// Nothing of the table can be checked, and the training code that reads the same column raises `KeyError`.
    ///
    /// ## Fix
    /// Pass the right `--label-column` (the finding lists the columns the table has).
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg613_label_column_missing.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg613_label_column_missing` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG613", "label-column-missing", Error
}
