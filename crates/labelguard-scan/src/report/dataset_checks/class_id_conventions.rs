//! LG104 one-based-labels, LG105 cityscapes-label-ids, LG106 zero-means-ignore, decided for the
//! whole dataset: a numbering convention is a property of the dataset, which one file cannot
//! show (a mask without a 0 is not 1-based when the next one holds 0; a class C that is rare in
//! one mask is common in the dataset), and its repair must reach every mask of the dataset, also
//! those that happen to hold no out-of-range id (a 1-based mask without C still needs its labels
//! shifted). So, once every file is scanned:
//!
//! 1. each file's class-id finding whose only bad id is C is weighed again on the dataset's
//!    histogram ([`labelguard_core::ops::class_ids::reweigh`]): a stray value stays a data error
//!    in its file (LG101), a convention is named only where the dataset shows it;
//! 2. a convention the dataset shows, in some files but not all, becomes one dataset finding
//!    whose repair is for every mask (the files without a finding of their own need it too).
//!
//! Documentation: `labelguard_core::rules::lg104_one_based_labels` (and LG105, LG106).

use labelguard_core::finding::ValueCount;
use labelguard_core::ops::class_ids::reweigh;
use labelguard_core::rules::{LG104, LG105, LG106};
use labelguard_core::{Finding, Verdict};
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::ScanReport;
use std::collections::BTreeMap;

/// The largest Cityscapes labelId: a dataset holding a larger id (trainIds' void 255) is not in
/// labelId space.
const LAST_LABEL_ID: i64 = 33;

/// Weighs each file's class-id findings again on the dataset's evidence (step 1).
pub fn reweigh_files(r: &mut ScanReport) {
    let Some(c) = r.settings.num_classes.map(i64::from) else {
        return;
    };
    let ignore = r.settings.ignore_index;
    let histogram = counts(r);
    for file in &mut r.files {
        let elements = file.elements;
        for x in &mut file.findings {
            if let Some(f) = reweigh(&x.finding, &histogram, c, ignore, elements) {
                x.finding = f;
            }
        }
    }
}

/// The dataset findings of the conventions the dataset shows (step 2).
pub fn check(r: &ScanReport) -> Vec<ScanFinding> {
    let Some(c) = r.settings.num_classes.map(i64::from) else {
        return Vec::new();
    };
    let files_with = |code: &str| {
        r.files
            .iter()
            .filter(|f| f.findings.iter().any(|x| x.finding.code == code))
            .count() as u64
    };
    let histogram = counts(r);
    let tallied = r.histogram.tallied_files;
    let mut out = Vec::new();
    let (one_based, zero_other) = (files_with(LG104.code), files_with(LG106.code));
    // When every file read holds the convention's own finding, each already carries its repair.
    let reaches_more = |files: u64| files > 0 && files < tallied;
    let c_row = |what: &str| {
        let (n, files) = r
            .histogram
            .classes
            .get(&c)
            .map_or((0, 0), |row| (row.count, row.files));
        format!("id {c} occurs {n} times in {files} files, {what}")
    };
    // Every mask is shifted only when no file holds a 0 (a lone 1-based file among 0-based
    // ones keeps its own repair).
    if reaches_more(one_based) && !histogram.contains_key(&0) {
        out.push(convention(
            &LG104,
            format!(
                "the labels are 1-based in every file: id 0 never occurs in the {tallied} files read, and {}; the files without {c} are numbered from 1 too",
                c_row("as a class does")
            ),
            "subtract one from every label of every mask (1..C -> 0..C-1), not only in the files that hold C",
            &[c],
            &histogram,
        ));
    }
    if reaches_more(zero_other) {
        out.push(convention(
            &LG106,
            format!(
                "0 means 'other' in every file: the ids run 0..{c} over the {tallied} files read and {}",
                c_row("as a class does")
            ),
            "reduce the zero label in every mask (0 -> void, v -> v-1; mmseg: reduce_zero_label=True), not only in the files that hold C",
            &[c],
            &histogram,
        ));
    }
    let label_id_files = files_with(LG105.code);
    let highest = histogram.keys().next_back().copied().unwrap_or(0);
    let named = r.histogram.id_space.is_some();
    let most = label_id_files > 0 && 2 * label_id_files >= tallied && highest <= LAST_LABEL_ID;
    if c == 19 && (named || most) && reaches_more(label_id_files) {
        let ids: Vec<i64> = (19..=LAST_LABEL_ID)
            .filter(|v| histogram.contains_key(v))
            .collect();
        out.push(convention(
            &LG105,
            format!(
                "the masks are Cityscapes labelIds: {label_id_files} of the {tallied} files read hold labelIds beyond 18, and no file holds an id above {LAST_LABEL_ID} (trainIds' void 255)"
            ),
            "map every mask from labelIds to trainIds (cityscapesScripts' table), also those whose ids happen to stay below 19",
            &ids,
            &histogram,
        ));
    }
    out
}

/// Every id of the dataset and how often it occurs (the ignore value included).
fn counts(r: &ScanReport) -> BTreeMap<i64, u64> {
    r.histogram
        .classes
        .values()
        .filter(|row| row.count > 0)
        .map(|row| (row.id, row.count))
        .collect()
}

/// A dataset finding of a convention; its `values` (with their counts) choose its repair.
fn convention(
    rule: &labelguard_core::Rule,
    message: String,
    fix: &str,
    values: &[i64],
    histogram: &BTreeMap<i64, u64>,
) -> ScanFinding {
    let mut f = Finding::new(rule, Verdict::DeviceAssert, message).fix(fix);
    f.values = values
        .iter()
        .map(|v| ValueCount {
            value: v.to_string(),
            count: histogram.get(v).copied().unwrap_or(0),
        })
        .collect();
    f.count = Some(f.values.iter().map(|v| v.count).sum());
    ScanFinding::about_dataset(f)
}
