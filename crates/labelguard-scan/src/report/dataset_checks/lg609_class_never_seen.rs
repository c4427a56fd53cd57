//! LG609 class-never-seen: a class in `[0, C-1]`, or one the data declares (a COCO
//! category), never occurs in the scanned labels. Decided
//! over the whole scan's histogram when the report is finalized; documented in
//! `labelguard_core::rules::lg609_class_never_seen`.

use crate::report::background::background_class;
use labelguard_core::rules::LG609;
use labelguard_core::{Finding, Location, Verdict};
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::{ClassRow, ScanReport};

/// The finding naming every class never seen, when the classes are known: from the class
/// count, or declared by the data (a COCO file's categories are rows without a count).
pub fn check(report: &ScanReport) -> Option<ScanFinding> {
    let rows = report.class_rows();
    let never: Vec<&&ClassRow> = rows.iter().filter(|r| r.count == 0).collect();
    if never.is_empty() {
        return None;
    }
    let unit = report.count_unit();
    let labels: Vec<String> = never.iter().map(|r| report.class_label(r)).collect();
    // A detection head that counts background as class 0 has one output more than the object
    // classes that can occur: say which count the finding is of.
    let head = report.settings.num_classes.map(u64::from);
    let of = match head {
        Some(h) if unit == "objects" && background_class(report) && h == rows.len() as u64 + 1 => {
            format!(
                "the {} object classes of the {h}-class head (class 0 is background)",
                rows.len()
            )
        }
        _ => format!("{} classes", rows.len()),
    };
    let mut f = Finding::new(
        &LG609,
        Verdict::Silent,
        format!("{} of {of} never {} in the scanned labels: {}", never.len(), if never.len() == 1 { "occurs" } else { "occur" }, labels.join(", ")),
    )
    .hint("the model cannot learn these classes; if they should be there, the ids may be shifted (1-based, reduce_zero_label) or num_classes is too large")
    .fix("check num_classes and the id mapping; drop the classes from the head or add labelled samples of them");
    f.count = Some(never.len() as u64);
    f.locations = never
        .iter()
        .take(labelguard_core::finding::MAX_LOCATIONS)
        .map(|r| Location {
            tensor: "class".into(),
            index: vec![r.id as usize],
            value: r.name.clone().unwrap_or_else(|| format!("0 {unit}")),
        })
        .collect();
    Some(ScanFinding::about_dataset(f))
}
