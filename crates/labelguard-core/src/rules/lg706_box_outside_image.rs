use crate::rule::declare_rule;

declare_rule! {
    /// A box or polygon lies (partly) outside its image.
    ///
    /// ## What it checks
    /// Box corners and polygon points against the image's size (COCO's `width`/`height`; for VOC the image file's
    /// header, else `<size>`, with VOC's 1-based corners: `1..=width` is inside), and YOLO's normalised values as
    /// ultralytics bounds them: a box's `cx cy w h` as written and a polygon's box (centre and size of its points'
    /// bounds) within `[0, 1]`, give or take 1%. COCO boxes and points may reach 1 px past the border (converters
    /// round, and `x + w` of a box along the border lands a fraction over).
    ///
    /// ## Why it matters
    /// Random crops and flips then place the object where it is not; ultralytics refuses the whole label file
    /// (`non-normalized or out of bounds coordinates`, beyond a 1% tolerance) and ignores the image with all its
    /// labels, so for YOLO labels the finding is an error. A box in pixels written where YOLO wants normalised
    /// coordinates is the usual cause; the message says so when the values go well beyond 1.
    ///
    /// ## Fix
    /// Clip the box to the image, or normalise YOLO coordinates by the image's width and height.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/checks/lg706_box_outside_image.rs` (same name, in the scan crate, which reads the annotation files)
    /// - fixture: `lg706_box_outside_image` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG706", "box-outside-image", Warning
}
