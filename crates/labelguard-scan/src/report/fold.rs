//! Folding: each file's result, and each shard's raw parts, added into a report.

use super::finding::ScanFinding;
use super::model::{ClassRow, FileRecord, ScanReport};
use crate::analyze::FileResult;
use std::collections::BTreeSet;

impl ScanReport {
    /// Folds one file's result in.
    pub fn add_result(&mut self, r: FileResult) {
        // Deduplicated with the layout's when the report is finalized.
        self.layout_findings
            .extend(r.dataset.iter().cloned().map(ScanFinding::about_dataset));
        if r.dataset_level {
            self.layout_findings
                .extend(r.findings.iter().cloned().map(ScanFinding::about_dataset));
            return;
        }
        self.summary.files_scanned += 1;
        self.summary.elements += r.elements;
        self.summary.bad_elements += r.bad;
        self.histogram.untallied += r.hist_overflow;
        self.objects.add(&r.objects);
        self.tokens.add(&r.tokens);
        if !r.histogram.is_empty() || !r.declared.is_empty() {
            self.histogram.unit = union_unit(&self.histogram.unit, r.unit.as_str());
            self.histogram.tallied_files += 1;
            self.histogram.label_ids_files += u64::from(r.display.ends_with("_labelIds.png"));
        }
        for (id, count) in &r.histogram {
            let row = self
                .histogram
                .classes
                .entry(*id)
                .or_insert_with(|| ClassRow::empty(*id));
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
            let row = self
                .histogram
                .classes
                .entry(*id)
                .or_insert_with(|| ClassRow::empty(*id));
            row.name.get_or_insert_with(|| name.clone());
        }
        if let Some(overlay) = r.overlay {
            self.overlays
                .push((r.display.clone(), crate::overlay::encode_png(&overlay)));
        }
        if !r.findings.is_empty() {
            let findings = r
                .findings
                .iter()
                .map(|f| ScanFinding::in_file(&r.display, f.clone()))
                .collect();
            self.files.push(FileRecord {
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
    pub fn absorb(&mut self, other: ScanReport) {
        self.summary.files_scanned += other.summary.files_scanned;
        self.summary.elements += other.summary.elements;
        self.summary.bad_elements += other.summary.bad_elements;
        self.histogram.untallied += other.histogram.untallied;
        self.objects.add(&other.objects);
        self.tokens.add(&other.tokens);
        self.histogram.tallied_files += other.histogram.tallied_files;
        self.histogram.label_ids_files += other.histogram.label_ids_files;
        self.histogram.unit = union_unit(&self.histogram.unit, &other.histogram.unit);
        for (id, row) in other.histogram.classes {
            match self.histogram.classes.get_mut(&id) {
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
                    self.histogram.classes.insert(id, row);
                }
            }
        }
        self.files.extend(other.files);
        self.layout_findings.extend(other.layout_findings);
        self.overlays.extend(other.overlays);
    }
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
