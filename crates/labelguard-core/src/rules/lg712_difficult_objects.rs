use crate::rule::declare_rule;

declare_rule! {
    /// Objects are flagged difficult, truncated or crowd.
    ///
    /// ## What it checks
    /// VOC's `<difficult>` and `<truncated>` flags (set by any non-zero integer, as `int(text)` reads them) and COCO's
    /// `iscrowd`, counted over the whole dataset: one Info finding about the dataset, not one per file.
    ///
    /// ## Why it matters
    /// Frameworks disagree about them: torchvision's `VOCDetection` returns difficult objects like any other, mmdet's
    /// VOC evaluation ignores them, and COCO's crowd regions are excluded from matching; a model trained on them and
    /// evaluated without them, or the reverse, scores differently.
    ///
    /// ## Fix
    /// Decide whether the pipeline trains on them, and say so in the dataset's config.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/report/dataset_checks/lg712_difficult_objects.rs` (same name, in the scan crate: counted over the whole dataset when the report is finalised; the wording is in `src/checks/lg712_difficult_objects.rs`)
    /// - fixture: `lg712_difficult_objects` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG712", "difficult-objects", Info
}
