use crate::rule::declare_rule;

declare_rule! {
    /// The same object is annotated twice.
    ///
    /// ## What it checks
    /// Identical lines of a YOLO label file and identical COCO annotations (same image, category and box).
    ///
    /// ## Why it matters
    /// The object weighs twice in the loss, and matching assigns one of the two copies to nothing (ultralytics
    /// removes duplicate labels with a warning).
    ///
    /// ## Fix
    /// Remove the duplicates; they usually come from concatenating exports.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg711_duplicate_annotation.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg711_duplicate_annotation` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG711", "duplicate-annotation", Warning
}
