use crate::rule::declare_rule;

declare_rule! {
    /// A YOLO dataset mixes box lines (`class cx cy w h`) and polygon lines (`class x1 y1 x2 y2 ...`).
    ///
    /// ## What it checks
    /// The number of columns of every line of the dataset's label files: across the dataset (some files of boxes,
    /// some of polygons) and within a file (a file with any polygon line is read as polygons by ultralytics, so its
    /// box lines become two-point polygons and wrong boxes).
    ///
    /// ## Why it matters
    /// Ultralytics warns `Box and segment counts should be equal` and drops every polygon, so a segmentation model
    /// trains without the masks it was meant to learn; a box model receives polygons as boxes.
    ///
    /// ## Fix
    /// Convert the files to one format: boxes only for detection, polygons only for segmentation.
    ///
    /// ## Checked by
    /// - `crates/labelguard-scan/src/report/dataset_checks/lg710_mixed_boxes_and_polygons.rs` (across the dataset, when the report is finalized)
    /// - `crates/labelguard-scan/src/checks/lg710_mixed_boxes_and_polygons.rs` (within one file)
    /// - fixtures: `lg710_mixed_boxes_and_polygons` and `lg710_mixed_boxes_and_polygons_in_a_file_yolo` in `crates/labelguard-scan/tests/dataset_rule_fixtures.rs`
    "LG710", "mixed-boxes-and-polygons", Warning
}
