//! LG611 class-imbalance: the largest class outnumbers the smallest seen one by more than
//! `imbalance_ratio`. Decided over the whole scan's histogram when the report is finalized;
//! documented in `labelguard_core::rules::lg611_class_imbalance`.

use labelguard_core::finding::ValueCount;
use labelguard_core::rules::LG611;
use labelguard_core::{Finding, Verdict};
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::{ClassRow, ScanReport};

/// The finding naming the largest and smallest classes, when their ratio is past the limit.
pub fn check(report: &ScanReport) -> Option<ScanFinding> {
    let limit = report.settings.imbalance_ratio;
    let rows = report.class_rows();
    let seen: Vec<&&ClassRow> = rows.iter().filter(|r| r.count > 0).collect();
    if seen.len() < 2 {
        return None;
    }
    let max = seen
        .iter()
        .max_by_key(|r| (r.count, std::cmp::Reverse(r.id)))
        .expect("two rows");
    let min = seen
        .iter()
        .min_by_key(|r| (r.count, r.id))
        .expect("two rows");
    let ratio = max.count as f64 / min.count as f64;
    if ratio <= limit {
        return None;
    }
    let unit = report.count_unit();
    let mut f = Finding::new(
        &LG611,
        Verdict::Silent,
        format!(
            "class {} has {} {unit}, class {} only {}: a ratio of {:.0} (limit {})",
            report.class_label(max),
            max.count,
            report.class_label(min),
            min.count,
            ratio,
            limit
        ),
    )
    .hint("with plain cross-entropy the rare classes barely move the gradient")
    .fix("weight the loss (see the suggested weights; --write-weights FILE), oversample rare classes, or use a focal/Dice loss");
    let mut by_count: Vec<&&&ClassRow> = seen.iter().collect();
    by_count.sort_by_key(|r| (r.count, r.id));
    f.values = by_count
        .iter()
        .take(5)
        .map(|r| ValueCount {
            value: report.class_label(r),
            count: r.count,
        })
        .collect();
    Some(ScanFinding::about_dataset(f))
}
