//! Whether class 0 is background for the framework a detection dataset was judged for.

use crate::framework::Framework;
use crate::layout::yolo;
use labelguard_scan_model::ScanReport;

/// Whether the detection framework the labels were judged for (`--framework`, else the
/// layout's own: ultralytics for YOLO, torchvision otherwise) counts background as class 0.
pub(crate) fn background_class(report: &ScanReport) -> bool {
    let given = report
        .settings
        .framework
        .as_deref()
        .and_then(|f| f.parse::<Framework>().ok());
    let framework = given.unwrap_or(if report.settings.layouts.contains(&yolo::KIND) {
        Framework::Ultralytics
    } else {
        Framework::Torchvision
    });
    framework.counts_background()
}
