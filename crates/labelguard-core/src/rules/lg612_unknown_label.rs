use crate::rule::declare_rule;

declare_rule! {
    /// A label in a table is not a class: an unknown name, an empty cell, or text where a number is expected.
    ///
    /// ## What it checks
    /// Each cell of the label column (`--label-column`) must be an integer class id or, with `--classes FILE`, one
    /// of the listed class names. When every label is a name and no classes file is given (`positive`/`negative`
    /// in the `--train_file` of transformers' `run_glue.py` or `run_classification.py`, which number the sorted
    /// distinct names themselves), the finding is a warning that the names were not range-checked.
    ///
    /// ## Why it matters
    /// A lookup `class_to_idx[name]` raises `KeyError` in a DataLoader worker; code that falls back to `-1` or to
    /// `len(classes)` produces the device-side assert instead.
    ///
    /// ## Fix
    /// Correct the spelling, add the class to the classes file (and to the model head), or drop the rows.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg612_unknown_label.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg612_unknown_label` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG612", "unknown-label", Error
}
