use crate::rule::declare_rule;

declare_rule! {
    /// An annotation refers to an image that is not there.
    ///
    /// ## What it checks
    /// COCO annotations whose `image_id` is not the `id` of an entry of `images`, YOLO label files without an image
    /// of the same stem, and VOC XML files whose image is missing. Images without labels are background samples, not
    /// findings.
    ///
    /// ## Why it matters
    /// Loaders index the images by id or path: a dangling `image_id` raises `KeyError` in pycocotools, a missing file
    /// raises `FileNotFoundError` in the DataLoader worker, often hours into an epoch.
    ///
    /// ## Fix
    /// Restore the image, or drop the annotations that refer to it.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg707_annotation_without_image.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg707_annotation_without_image` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG707", "annotation-without-image", Error
}
