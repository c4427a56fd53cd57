use crate::rule::declare_rule;

declare_rule! {
    /// A mask without its image, or an image without its mask.
    ///
    /// ## What it checks
    /// The pairing of the recognised layout (Cityscapes `gtFine` / `leftImg8bit`, Pascal VOC `SegmentationClass` /
    /// `JPEGImages`, ADE20K `annotations` / `images`, `masks` / `images`, or `--image-template`).
    ///
    /// ## Why it matters
    /// Datasets that list files from one side raise `FileNotFoundError` in a worker; datasets that zip two sorted
    /// lists silently pair every later image with the wrong mask.
    ///
    /// ## Fix
    /// Restore the missing file or remove the orphan, and build pairs by stem rather than by position.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg608_missing_pair.rs` (same name, in the scan crate, which has its inputs)
    /// - fixture: `lg608_missing_pair` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG608", "missing-pair", Warning
}
