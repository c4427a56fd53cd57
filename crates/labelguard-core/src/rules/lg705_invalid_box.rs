use crate::rule::declare_rule;

declare_rule! {
    /// A bounding box has no area: zero or negative width or height, inverted corners, or a coordinate that is not a
    /// finite number.
    ///
    /// ## What it checks
    /// COCO `bbox` `[x, y, w, h]`, YOLO `cx cy w h`, and VOC `<bndbox>` corners (`xmax > xmin`, `ymax > ymin`).
    ///
    /// ## Why it matters
    /// torchvision's detection models raise `All bounding boxes should have positive height and width. Found invalid
    /// box ...`; other frameworks compute IoU and box-regression targets with a division by the box's size, which
    /// gives NaN or infinite losses.
    ///
    /// ## Fix
    /// Drop the box or correct it; a converter that writes `x2 y2` where `w h` belong makes many such boxes.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg705_invalid_box.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg705_invalid_box` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG705", "invalid-box", Error
}
