use crate::rule::declare_rule;

declare_rule! {
    /// The head's class count disagrees with the dataset's classes, without an out-of-range id.
    ///
    /// ## What it checks
    /// The class count given (`--num-classes`, `nc` in `data.yaml`) against what the framework needs for the declared
    /// classes: larger than needed (an extra background class where the framework has none, classes the data never
    /// declares), or `nc` that disagrees with the number of `names` in `data.yaml`.
    ///
    /// ## Why it matters
    /// No kernel asserts, but the extra outputs are trained as negatives only and skew the softmax; ultralytics
    /// refuses a `data.yaml` whose `names` and `nc` disagree (`'names' length ... and 'nc: ...' must match`).
    ///
    /// ## Fix
    /// Set the head's class count to what the framework needs (`labelguard scan` names it), and `nc` to `len(names)`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg704_head_class_count_mismatch.rs` (same name, in the scan crate, which reads the annotation files)
    /// - `crates/labelguard-scan/src/report/dataset_checks/lg704_head_class_count_mismatch.rs` (a YOLO dataset's head against its names, once)
    /// - fixture: `lg704_head_class_count_mismatch` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG704", "head-class-count-mismatch", Warning
}
