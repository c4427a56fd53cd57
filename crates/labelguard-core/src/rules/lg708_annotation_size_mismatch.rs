use crate::rule::declare_rule;

declare_rule! {
    /// The size an annotation records disagrees with its image.
    ///
    /// ## What it checks
    /// A COCO RLE's `size` against its image's `height` and `width`, and VOC's `<size>` against the image file's
    /// header.
    ///
    /// ## Why it matters
    /// Masks decoded from the RLE have another shape than the image (`input and target batch or spatial sizes don't
    /// match`); boxes scaled by the recorded size land in the wrong place.
    ///
    /// ## Fix
    /// Regenerate the annotation from the image it belongs to, or correct the recorded size.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg708_annotation_size_mismatch.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg708_annotation_size_mismatch` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG708", "annotation-size-mismatch", Error
}
