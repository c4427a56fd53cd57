//! LG704 head-class-count-mismatch, decided once for a YOLO dataset: a head (`--num-classes`)
//! larger than the classes `data.yaml` names. Every label file is judged against the same
//! names, so the analysis of a file leaves this to the dataset (a finding per file would repeat
//! it for every file); the finding itself is built by
//! `crate::checks::lg704_head_class_count_mismatch`. Documented in
//! `labelguard_core::rules::lg704_head_class_count_mismatch`.

use crate::checks::lg704_head_class_count_mismatch as lg704;
use crate::framework::Framework;
use crate::layout::yolo;
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::ScanReport;

/// The finding when a YOLO dataset's head has more classes than its names.
pub fn check(report: &ScanReport) -> Option<ScanFinding> {
    let st = &report.settings;
    if st.layouts != [yolo::KIND] || st.class_names.is_empty() {
        return None;
    }
    let framework = st
        .framework
        .as_deref()
        .and_then(|f| f.parse().ok())
        .unwrap_or(Framework::Ultralytics);
    let names = st.class_names.len();
    let needed = framework.classes_needed(&(0..names as i64).collect::<Vec<_>>());
    let c = st.num_classes?;
    (u64::from(c) > needed).then(|| {
        ScanFinding::about_dataset(lg704::head_larger_than_needed(framework, c, needed, names))
    })
}
