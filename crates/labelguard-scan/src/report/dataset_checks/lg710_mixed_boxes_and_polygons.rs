//! LG710 mixed-boxes-and-polygons: a YOLO dataset with box label files and polygon label files.
//! Decided over the whole scan's object counts ([`crate::analyze::ObjectStats`]) when the report
//! is finalized; documented in `labelguard_core::rules::lg710_mixed_boxes_and_polygons`. A
//! single file that mixes both is the file's own LG710
//! (`crate::checks::lg710_mixed_boxes_and_polygons::yolo_file_mixes`), and counts as a polygon
//! file here, as ultralytics reads it.

use labelguard_core::finding::count;
use labelguard_core::rules::LG710;
use labelguard_core::{Finding, Verdict};
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::ScanReport;

/// The finding when some label files hold boxes and others polygons.
pub fn check(report: &ScanReport) -> Option<ScanFinding> {
    let o = &report.objects;
    if o.files_with_boxes == 0 || o.files_with_polygons == 0 {
        return None;
    }
    let f = Finding::new(
        &LG710,
        Verdict::Silent,
        format!(
            "the dataset mixes {} and {}",
            count(o.files_with_boxes, "box label file"),
            count(o.files_with_polygons, "polygon label file")
        ),
    )
    .hint("ultralytics warns 'Box and segment counts should be equal' and drops every polygon: a segmentation model trains without masks; a detection model trains on the polygons' bounding boxes")
    .fix("convert the label files to one format: boxes only for detection, polygons only for segmentation");
    let mut f = f;
    f.count = Some(o.files_with_boxes.min(o.files_with_polygons));
    Some(ScanFinding::about_dataset(f))
}
