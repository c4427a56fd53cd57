use crate::rule::declare_rule;

declare_rule! {
    /// The table has no label column: not the one `--label-column` names, nor (a warning) one of the usual names.
    ///
    /// ## What it checks
    /// The header of CSV/TSV files, the keys of JSONL records (`.jsonl`, or JSON Lines in a `.json`
    /// file) and the schema of Parquet files. When no column is named and none has a usual label
    /// name (`label`, `labels`, `class`, `target`, `y`, `category`), the finding is a warning: the
    /// table of a text dataset (`{"text": ...}` for `run_clm.py`) has no labels, and its rows are
    /// named as not checked.
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
