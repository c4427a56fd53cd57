//! LG712 difficult-objects: the dataset's objects flagged difficult or truncated (VOC) or
//! crowd (COCO), counted over every file ([`ScanReport::objects`]) when the report is
//! finalised; the finding's wording is in [`crate::checks::lg712_difficult_objects`].
//! Documented in `labelguard_core::rules::lg712_difficult_objects`.

use crate::checks::lg712_difficult_objects::counted;
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::ScanReport;

/// The finding counting the flagged objects, when there are any.
pub fn check(report: &ScanReport) -> Option<ScanFinding> {
    let o = &report.objects;
    let objects = if report.histogram.unit == "objects" {
        report.summary.elements
    } else {
        report
            .histogram
            .classes
            .values()
            .map(|r| r.count)
            .sum::<u64>()
    };
    counted(o.difficult, o.truncated, o.crowd, objects).map(ScanFinding::about_dataset)
}
