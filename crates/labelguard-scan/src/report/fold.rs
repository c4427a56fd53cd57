//! Folding: each file's result, and each shard's raw parts, added into a report.

use crate::analyze::FileResult;
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::{FileRecord, ScanReport};
use std::collections::BTreeSet;

/// Folds one file's result in.
pub fn add_result(report: &mut ScanReport, r: FileResult) {
    // Deduplicated with the layout's when the report is finalized.
    report
        .layout_findings
        .extend(r.dataset.iter().cloned().map(ScanFinding::about_dataset));
    if r.dataset_level {
        report
            .layout_findings
            .extend(r.findings.iter().cloned().map(ScanFinding::about_dataset));
        return;
    }
    report.summary.files_scanned += 1;
    report.summary.elements += r.elements;
    report.summary.bad_elements += r.bad;
    report.histogram.untallied += r.hist_overflow;
    report.objects.add(&r.objects);
    report.tokens.add(&r.tokens);
    if !r.histogram.is_empty() || !r.declared.is_empty() {
        report.histogram.unit = union_unit(&report.histogram.unit, r.unit.as_str());
        report.histogram.tallied_files += 1;
        report.histogram.label_ids_files += u64::from(r.display.ends_with("_labelIds.png"));
    }
    for (id, count) in &r.histogram {
        let row = report.histogram.row(*id);
        row.count += count;
        row.files += 1;
        // Looked up before it is cloned: a clean file of ten classes would clone its split's
        // name ten times.
        if !row.splits.contains_key(&r.split) {
            row.splits.insert(r.split.clone(), Default::default());
        }
        let s = row.splits.get_mut(&r.split).expect("inserted above");
        s.count += count;
        s.files += 1;
        s.file_pixels += r.elements;
    }
    for (id, name) in &r.declared {
        let row = report.histogram.row(*id);
        row.name.get_or_insert_with(|| name.clone());
    }
    if let Some(overlay) = r.overlay {
        report
            .overlays
            .push((r.display.clone(), crate::overlay::encode_png(&overlay)));
    }
    if !r.findings.is_empty() {
        let findings = r
            .findings
            .iter()
            .map(|f| ScanFinding::in_file(&r.display, f.clone()))
            .collect();
        report.files.push(FileRecord {
            path: r.display,
            split: r.split,
            kind: r.kind,
            shape: r.shape,
            elements: r.elements,
            bad_elements: r.bad,
            findings,
        });
    }
}

/// Adds another (partial) report's raw parts: its files, histogram and counters.
pub fn absorb(report: &mut ScanReport, other: ScanReport) {
    report.summary.files_scanned += other.summary.files_scanned;
    report.summary.elements += other.summary.elements;
    report.summary.bad_elements += other.summary.bad_elements;
    report.histogram.untallied += other.histogram.untallied;
    report.objects.add(&other.objects);
    report.tokens.add(&other.tokens);
    report.histogram.tallied_files += other.histogram.tallied_files;
    report.histogram.label_ids_files += other.histogram.label_ids_files;
    report.histogram.unit = union_unit(&report.histogram.unit, &other.histogram.unit);
    for (id, row) in other.histogram.classes {
        match report.histogram.classes.get_mut(&id) {
            Some(mine) => {
                if mine.name.is_none() {
                    mine.name = row.name;
                }
                mine.count += row.count;
                mine.files += row.files;
                for (split, c) in row.splits {
                    mine.splits.entry(split).or_default().add(&c);
                }
            }
            None => {
                report.histogram.classes.insert(id, row);
            }
        }
    }
    report.files.extend(other.files);
    report.layout_findings.extend(other.layout_findings);
    report.overlays.extend(other.overlays);
}

pub(super) fn union_unit(a: &str, b: &str) -> String {
    let mut parts: BTreeSet<&str> = BTreeSet::new();
    for u in [a, b] {
        for p in u.split('+') {
            if matches!(p, "pixels" | "samples" | "objects") {
                parts.insert(p);
            }
        }
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.into_iter().collect::<Vec<_>>().join("+")
    }
}
