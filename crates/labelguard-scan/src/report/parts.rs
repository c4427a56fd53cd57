//! A scan of several datasets: one report per dataset (its own layout, settings, histogram,
//! weights), summed up in the enclosing report so that every renderer and the exit code see
//! every file and finding.

use super::summary::summarize;
use labelguard_scan_model::{Histogram, ScanReport, Summary, MAX_OVERLAYS};

/// `finalize` for a report with `datasets`, once each is finalized: sums them up.
pub(crate) fn sum_up(report: &mut ScanReport) {
    let mut files = Vec::new();
    let mut dataset = Vec::new();
    let mut overlays = Vec::new();
    let mut summary = Summary::default();
    for part in &mut report.datasets {
        files.extend(part.files.iter().cloned());
        let name = part.settings.roots.join(", ");
        // `path` stays null (a dataset finding); the message names the dataset.
        dataset.extend(part.dataset.iter().cloned().map(|mut f| {
            f.finding.message = format!("{name}: {}", f.finding.message);
            f
        }));
        overlays.extend(part.overlays.iter().cloned());
        summary.files_scanned += part.summary.files_scanned;
        summary.elements += part.summary.elements;
        summary.bad_elements += part.summary.bad_elements;
    }
    files.sort_by(|a, b| {
        b.unreadable()
            .cmp(&a.unreadable())
            .then_with(|| a.path.cmp(&b.path))
    });
    let bad: std::collections::BTreeMap<&str, u64> = files
        .iter()
        .map(|f| (f.path.as_str(), f.bad_elements))
        .collect();
    overlays.sort_by(|a, b| {
        bad.get(b.0.as_str())
            .cmp(&bad.get(a.0.as_str()))
            .then(a.0.cmp(&b.0))
    });
    overlays.truncate(MAX_OVERLAYS);
    report.files = files;
    report.dataset = dataset;
    report.overlays = overlays;
    report.summary = summary;
    report.histogram = Histogram {
        unit: "none".into(),
        ..Histogram::default()
    };
    report.weights = None;
    report.layout_findings.clear();
    summarize(report);
}
