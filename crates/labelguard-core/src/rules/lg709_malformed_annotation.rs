use crate::rule::declare_rule;

declare_rule! {
    /// An annotation is not in the format's structure: a YOLO line with the wrong number of columns or a value that
    /// is not a number, a COCO entry without a required field or with a field of the wrong type, a VOC object without
    /// `<name>` or `<bndbox>`.
    ///
    /// ## What it checks
    /// Every line of a YOLO label file (5 columns for a box, 1 + an even number of at least 6 for a polygon; 6 columns,
    /// `class cx cy w h conf` as predictions are saved, are malformed, since ultralytics refuses them; a class id with a
    /// fraction is malformed), every COCO `images`, `annotations` and `categories` entry, every VOC
    /// `<object>` (its `<name>` and `<bndbox>` corners) and VOC's `<size>` (missing, or 0 as broken exports write
    /// it). For COCO: the three top-level lists, the fields the loaders index (`id`, `file_name`, `width`,
    /// `height` of an image; `id`, `image_id`, `category_id`, `bbox` of an annotation; `id`, `name` of a category)
    /// and their types, ids that repeat, a `bbox` that is not 4 numbers, a polygon with an odd number of
    /// coordinates, an RLE without `size`; one finding per kind of problem, with its count and first entries.
    ///
    /// ## Why it matters
    /// Loaders parse these fields without checks: `np.loadtxt`/`float()` raise `ValueError`, pycocotools raises
    /// `KeyError`, and a line with a missing column shifts the others so that a coordinate becomes the class id.
    ///
    /// ## Fix
    /// Regenerate the file with the converter, or correct or drop the entry named.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg709_malformed_annotation.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg709_malformed_annotation` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG709", "malformed-annotation", Error
}
