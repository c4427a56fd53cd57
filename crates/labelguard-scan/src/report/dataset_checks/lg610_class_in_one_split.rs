//! LG610 class-in-one-split: a class occurs in only one of the splits compared (train and
//! val when both exist, else every named split). Decided over the whole scan's histogram when
//! the report is finalized; documented in `labelguard_core::rules::lg610_class_in_one_split`.
//! The ImageFolder layout's variant, splits with different class folders, is decided from the
//! folders it lists, at discovery, by [`crate::checks::lg610_class_in_one_split`].

use labelguard_core::finding::ValueCount;
use labelguard_core::rules::LG610;
use labelguard_core::{Finding, Verdict};
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::ScanReport;
use std::collections::BTreeSet;

/// The finding naming every class seen in one split only, when two splits have labels.
pub fn check(report: &ScanReport) -> Option<ScanFinding> {
    let rows = report.class_rows();
    // Splits with labels: compare train and val when both exist, else every named split.
    let splits: BTreeSet<String> = rows
        .iter()
        .flat_map(|r| {
            r.splits
                .iter()
                .filter(|(_, c)| c.count > 0)
                .map(|(s, _)| s.clone())
        })
        .filter(|s| s != "all")
        .collect();
    let compared: Vec<String> = if splits.contains("train") && splits.contains("val") {
        vec!["train".into(), "val".into()]
    } else {
        splits.into_iter().collect()
    };
    if compared.len() < 2 {
        return None;
    }
    let mut only: Vec<(String, String)> = Vec::new();
    for r in &rows {
        let present: Vec<&String> = compared
            .iter()
            .filter(|s| r.splits.get(*s).is_some_and(|c| c.count > 0))
            .collect();
        if present.len() == 1 {
            only.push((report.class_label(r), present[0].clone()));
        }
    }
    if only.is_empty() {
        return None;
    }
    let text: Vec<String> = only
        .iter()
        .map(|(c, s)| format!("{c} only in {s}"))
        .collect();
    let mut f = Finding::new(
        &LG610,
        Verdict::Silent,
        format!(
            "{} in only one of the splits {}: {}",
            if only.len() == 1 {
                "1 class occurs".to_string()
            } else {
                format!("{} classes occur", only.len())
            },
            compared.join("/"),
            text.join(", ")
        ),
    )
    .hint("a class only in val is never trained; a class only in train is never evaluated")
    .fix("re-split so that every class is represented in each split");
    f.count = Some(only.len() as u64);
    f.values = only
        .iter()
        .map(|(c, s)| ValueCount {
            value: format!("{c}: {s}"),
            count: 1,
        })
        .collect();
    Some(ScanFinding::about_dataset(f))
}
