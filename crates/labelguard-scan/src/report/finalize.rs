//! Finalizing: everything derived from the raw parts (roles and fractions of the histogram,
//! the dataset findings, repairs, weights, the summary and per-rule counts), recomputed from
//! scratch so that finalizing twice, or after a merge, gives the same report.

use super::background::background_class;
use super::dataset_checks::{
    class_id_conventions, lg609_class_never_seen, lg610_class_in_one_split, lg611_class_imbalance,
    lg615_binary_255_masks, lg704_head_class_count_mismatch, lg710_mixed_boxes_and_polygons,
    lg712_difficult_objects,
};
use super::parts::sum_up;
use super::repair::propose;
use super::summary::summarize;
use crate::weights::suggest;
use labelguard_core::rules::LG610;
use labelguard_core::Severity;
use labelguard_labels::preset::{CITYSCAPES_LABEL_ID_NAMES, CITYSCAPES_LABEL_TO_TRAIN};
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::{ClassRow, FileRecord, ScanReport, SplitCount, Weights, MAX_OVERLAYS};
use std::collections::BTreeMap;

/// Recomputes everything derived from the raw parts. Idempotent.
pub fn finalize(report: &mut ScanReport) {
    let st = report.settings.clone();
    if st.strict {
        for f in report.files.iter_mut().flat_map(|f| f.findings.iter_mut()) {
            if f.finding.severity == Severity::Warning {
                f.finding.severity = Severity::Error;
            }
        }
    }
    if !report.datasets.is_empty() {
        for part in &mut report.datasets {
            finalize(part);
        }
        return sum_up(report);
    }
    finalize_histogram(report);
    class_id_conventions::reweigh_files(report);
    let binary = lg615_binary_255_masks::apply(report);
    report.files.sort_by(|a, b| {
        b.unreadable()
            .cmp(&a.unreadable())
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| first_code(a).cmp(first_code(b)))
    });
    for f in report.files.iter_mut().flat_map(|f| f.findings.iter_mut()) {
        f.repair = propose(&f.finding, &st);
    }
    report
        .layout_findings
        .sort_by(|a, b| a.finding.message.cmp(&b.finding.message));
    report.layout_findings.dedup();
    let mut dataset = report.layout_findings.clone();
    dataset.extend(binary.clone());
    if binary.is_empty() {
        dataset.extend(class_id_conventions::check(report));
    }
    for f in dataset_findings(report) {
        // One finding per rule and cause: the layout's own LG610 (class folders differ
        // between splits) already covers the classes missing from a split; a binary
        // dataset's classes are 0 and 255, not the histogram's class rows.
        let covered = dataset.iter().any(|d| d.finding.code == f.finding.code)
            || (!binary.is_empty() && f.finding.code != LG610.code);
        if !covered {
            dataset.push(f);
        }
    }
    // The object counts' findings (detection formats), whatever the histogram holds.
    dataset.extend(lg704_head_class_count_mismatch::check(report));
    dataset.extend(lg710_mixed_boxes_and_polygons::check(report));
    dataset.extend(lg712_difficult_objects::check(report));
    report.dataset = dataset;
    for f in &mut report.dataset {
        f.repair = propose(&f.finding, &st);
    }
    if st.strict {
        for f in &mut report.dataset {
            if f.finding.severity == Severity::Warning {
                f.finding.severity = Severity::Error;
            }
        }
    }
    report.weights = if binary.is_empty() {
        weight_suggestions(report)
    } else {
        lg615_binary_255_masks::weights(report)
    };
    summarize(report);
    // Overlays of the worst files first, bounded.
    let bad: BTreeMap<&str, u64> = report
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.bad_elements))
        .collect();
    report.overlays.sort_by(|a, b| {
        bad.get(b.0.as_str())
            .cmp(&bad.get(a.0.as_str()))
            .then(a.0.cmp(&b.0))
    });
    report.overlays.truncate(MAX_OVERLAYS);
}

fn finalize_histogram(report: &mut ScanReport) {
    let st = &report.settings;
    let h = &report.histogram;
    let label_ids = st.preset.as_deref() == Some("cityscapes")
        && h.tallied_files > 0
        && h.label_ids_files == h.tallied_files;
    report.histogram.id_space = label_ids.then(|| "label_ids".to_string());
    if let Some(c) = st.num_classes.filter(|_| !label_ids) {
        if report.summary.elements > 0 || !report.histogram.classes.is_empty() {
            // A detection head that counts background as class 0 (torchvision) has no
            // objects of class 0 to see: that row is not a class never seen.
            let first = i64::from(report.histogram.unit == "objects" && background_class(report));
            for id in first..c as i64 {
                report.histogram.row(id);
            }
        }
    }
    let counted: u64 = report
        .histogram
        .classes
        .values()
        .filter(|r| r.id != st.ignore_index)
        .map(|r| r.count)
        .sum();
    for row in report.histogram.classes.values_mut() {
        row.role = if row.id == st.ignore_index {
            "ignore"
        } else if row.id < 0 || st.num_classes.is_some_and(|c| row.id >= c as i64) {
            "out_of_range"
        } else {
            "class"
        }
        .to_string();
        let names: &[&str] = if label_ids {
            &CITYSCAPES_LABEL_ID_NAMES
        } else {
            &[]
        };
        // The settings' names first; else the name the data declared (COCO categories).
        let named = usize::try_from(row.id).ok().and_then(|i| {
            if label_ids {
                names.get(i).map(|n| n.to_string())
            } else {
                st.class_names.get(i).cloned()
            }
        });
        // Detection files declare their classes in the ids the head sees (a torchvision
        // class list without background is shifted by one): their names come first.
        row.name = if report.histogram.unit == "objects" {
            row.name.take().or(named)
        } else {
            named.or(row.name.take())
        };
        row.fraction = if row.role == "ignore" || counted == 0 {
            0.0
        } else {
            row.count as f64 / counted as f64
        };
    }
}

/// The findings about the whole dataset that its histogram decides (LG609-LG611).
fn dataset_findings(report: &ScanReport) -> Vec<ScanFinding> {
    // A scan of one mask file is not a scan of a dataset: which classes that mask lacks or
    // how they balance in it says nothing about the dataset.
    let one_mask = report.histogram.unit == "pixels"
        && matches!(report.settings.roots.as_slice(), [root] if std::path::Path::new(root).is_file());
    // Ids in labelId space are not the classes (LG105 says so already, once).
    if one_mask
        || report.histogram.id_space.is_some()
        || !report.histogram.classes.values().any(|r| r.count > 0)
    {
        return Vec::new();
    }
    [
        lg609_class_never_seen::check(report),
        lg610_class_in_one_split::check(report),
        lg611_class_imbalance::check(report),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn weight_suggestions(report: &ScanReport) -> Option<Weights> {
    let c = report.settings.num_classes? as i64;
    let rows = if report.histogram.id_space.is_some() {
        report.histogram.classes.values().collect()
    } else {
        report.class_rows()
    };
    let has_train = rows
        .iter()
        .any(|r| r.splits.get("train").is_some_and(|s| s.count > 0));
    let split = if has_train { "train" } else { "all" };
    let pick = |r: &ClassRow| -> SplitCount {
        if has_train {
            r.splits.get("train").cloned().unwrap_or_default()
        } else {
            let mut s = SplitCount::default();
            for c in r.splits.values() {
                s.add(c);
            }
            s
        }
    };
    let mut counts = vec![0u64; c as usize];
    let mut pixels = vec![0u64; c as usize];
    // labelIds count towards the trainId they map to (void ones towards none).
    let class_of = |id: i64| -> Option<usize> {
        if report.histogram.id_space.is_some() {
            let t = *CITYSCAPES_LABEL_TO_TRAIN.get(usize::try_from(id).ok()?)?;
            (i64::from(t) < c).then_some(t as usize)
        } else {
            (0..c).contains(&id).then_some(id as usize)
        }
    };
    for r in rows {
        if let Some(k) = class_of(r.id) {
            let s = pick(r);
            counts[k] += s.count;
            pixels[k] += s.file_pixels;
        }
    }
    let suggestions = suggest(&counts, &pixels, &report.histogram.unit);
    (!suggestions.is_empty()).then(|| Weights {
        computed_on: split.to_string(),
        selected: report.settings.weights_method,
        suggestions,
    })
}

pub(super) fn first_code(f: &FileRecord) -> &str {
    f.findings.first().map(|x| x.finding.code).unwrap_or("")
}
