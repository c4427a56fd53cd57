use crate::rule::declare_rule;

declare_rule! {
    /// An object's class, as the detection head sees it, is outside `[0, num_classes-1]`.
    ///
    /// ## What it checks
    /// Each object's class id (a COCO `category_id`, a YOLO line's first column, a VOC `<name>`'s index in the class
    /// list) mapped to the id the head sees under the framework (`--framework`: torchvision takes ids as stored and
    /// counts background as 0; mmdet and detectron2 map the declared categories to `0..K-1`; ultralytics takes YOLO
    /// ids as stored), against the head's class count (`--num-classes`, or `nc` of `data.yaml`).
    ///
    /// ## Why it matters
    /// The classification loss indexes its logits with the id: on CUDA `cross_entropy`'s kernel asserts (``Assertion `t >= 0 && t <
    /// n_classes` failed``) and the whole process dies; torchvision's `fastrcnn_loss` does the same.
    /// The usual causes: COCO's category ids 1..90 fed to an 80-class head, a head that forgot torchvision's
    /// background class (`num_classes = K` for ids 1..K), YOLO ids beyond `nc`.
    ///
    /// ## Fix
    /// Give the head the class count the framework needs (torchvision: largest id + 1, background included; mmdet,
    /// detectron2: the number of categories), or remap the ids to a contiguous range with `labelguard fix`.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg701_detection_class_out_of_range.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg701_detection_class_out_of_range` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG701", "detection-class-out-of-range", Error
}
