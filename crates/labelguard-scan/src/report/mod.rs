//! The aggregate report of a scan, and its JSON schema.
//!
//! One type serves three purposes: the accumulator the parallel pipeline folds file results
//! into, the JSON document (`--format json`, schema `labelguard-scan-report` version
//! [`SCHEMA_VERSION`], described in `schema/scan-report.schema.json`), and the input of
//! `labelguard merge`. Everything that can be summed (files, histogram rows, counters) is
//! stored raw; everything derived (summary, per-rule counts, dataset-level findings, class
//! fractions, weight suggestions) is recomputed by [`ScanReport::finalize`]. So merging the
//! shards of a scan and finalizing gives exactly the report of the unsharded scan.
//!
//! This file holds the model; the jobs done on it have a file each: [`fold`] (file results
//! and shard reports added in), [`finalize`] (everything derived; the dataset rules
//! LG609-LG611 are decided by their checks in [`crate::checks`]) and [`merge`] (the shards
//! of a scan into one report).

mod finalize;
mod fold;
mod merge;

pub use merge::{merge, MergeError};

use crate::analyze::FileKind;
use crate::config::{ScanOptions, Shard};
use crate::layout::LayoutKind;
use crate::weights::{Method, Suggestion};
use labelguard_core::rules::by_code;
use labelguard_core::{Finding, Rule, Severity, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Bumped on any incompatible change of the JSON document.
pub const SCHEMA_VERSION: u32 = 1;
pub const SCHEMA_NAME: &str = "labelguard-scan-report";

/// At most this many overlay pictures are kept for the HTML report (the worst files).
pub const MAX_OVERLAYS: usize = 100;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// The settings that decide the findings; reports can only be merged when they agree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub roots: Vec<String>,
    pub layouts: Vec<LayoutKind>,
    pub preset: Option<String>,
    pub num_classes: Option<u32>,
    pub ignore_index: i64,
    pub reduce_zero_label: bool,
    pub class_names: Vec<String>,
    pub label_column: Option<String>,
    pub class_weights: Option<String>,
    pub max_pixels: u64,
    pub imbalance_ratio: f64,
    pub strict: bool,
    pub weights_method: Method,
    /// The config file the settings came from.
    #[serde(default)]
    pub config: Option<String>,
    /// The preset the detected layout suggests, when the class count is unknown.
    #[serde(default)]
    pub suggested_preset: Option<String>,
}

impl Settings {
    pub fn new(
        roots: &[std::path::PathBuf],
        layouts: Vec<LayoutKind>,
        opts: &ScanOptions,
        class_names: Vec<String>,
    ) -> Settings {
        Settings {
            roots: roots
                .iter()
                .map(|r| r.to_string_lossy().into_owned())
                .collect(),
            layouts,
            preset: opts.preset.map(|p| p.name.to_string()),
            num_classes: opts.num_classes,
            ignore_index: opts.ignore_index,
            reduce_zero_label: opts.reduce_zero_label,
            class_names,
            label_column: opts.label_column.clone(),
            class_weights: opts
                .class_weights
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            max_pixels: opts.max_pixels,
            imbalance_ratio: opts.imbalance_ratio,
            strict: opts.strict,
            weights_method: opts.weights_method,
            config: opts
                .config_file
                .as_ref()
                .map(|p| crate::config::shown_path(p)),
            suggested_preset: None,
        }
    }
}

/// Totals, and the outcome that decides the exit code.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// `ok`, `warnings` or `errors` (after `--strict`).
    pub status: String,
    pub files_scanned: u64,
    pub files_with_errors: u64,
    pub files_with_warnings: u64,
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    /// Elements (pixels, rows, samples) counted in the histogram.
    pub elements: u64,
    /// Elements PyTorch would reject.
    pub bad_elements: u64,
}

/// How often a rule fired.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleCount {
    pub code: String,
    pub name: String,
    #[serde(with = "severity")]
    pub severity: Severity,
    pub summary: String,
    pub findings: u64,
    pub files: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocationRecord {
    pub tensor: String,
    /// Full index in PyTorch order: `[y, x]` for a mask, `[n, y, x]` for a batch, `[row]` for
    /// a table.
    pub index: Vec<usize>,
    pub value: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueRecord {
    pub value: String,
    pub count: u64,
}

/// One finding, self-contained (it repeats its file's path).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FindingRecord {
    /// The file, or `null` for a finding about the whole dataset.
    pub path: Option<String>,
    pub code: String,
    pub rule: String,
    #[serde(with = "severity")]
    pub severity: Severity,
    #[serde(with = "verdict")]
    pub verdict: Verdict,
    pub message: String,
    pub hint: Option<String>,
    pub fix: String,
    pub locations: Vec<LocationRecord>,
    pub count: Option<u64>,
    pub values: Vec<ValueRecord>,
    /// The repair `labelguard fix` would apply, when the rule has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair: Option<crate::repair::Repair>,
}

impl FindingRecord {
    pub fn from_finding(path: Option<&str>, f: &Finding) -> FindingRecord {
        FindingRecord {
            path: path.map(String::from),
            code: f.code.to_string(),
            rule: f.rule.to_string(),
            severity: f.severity,
            verdict: f.verdict,
            message: f.message.clone(),
            hint: f.hint.clone(),
            fix: f.fix.clone(),
            locations: f
                .locations
                .iter()
                .map(|l| LocationRecord {
                    tensor: l.tensor.clone(),
                    index: l.index.clone(),
                    value: l.value.clone(),
                })
                .collect(),
            count: f.count,
            values: f
                .values
                .iter()
                .map(|v| ValueRecord {
                    value: v.value.clone(),
                    count: v.count,
                })
                .collect(),
            repair: None,
        }
    }

    /// The catalogue entry of this finding's rule.
    pub fn rule_info(&self) -> Option<&'static Rule> {
        by_code(&self.code)
    }
}

/// A file that has findings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub split: String,
    pub kind: FileKind,
    pub shape: Option<Vec<usize>>,
    pub elements: u64,
    pub bad_elements: u64,
    pub findings: Vec<FindingRecord>,
}

impl FileRecord {
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }
    pub fn count(&self, s: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == s).count()
    }
    /// The file cannot be read at all (unreadable, corrupt, empty, a decompression bomb): it
    /// will crash the DataLoader, so every renderer lists it first.
    pub fn unreadable(&self) -> bool {
        self.findings
            .iter()
            .any(|f| UNREADABLE.contains(&f.code.as_str()))
    }
}

/// The rules of files that cannot be read.
pub const UNREADABLE: &[&str] = &["LG601", "LG602", "LG603", "LG604"];

/// Per-split tallies of one id.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SplitCount {
    pub count: u64,
    pub files: u64,
    /// Pixels (elements) of the files in which this id occurs: median-frequency balancing's `P_c`.
    pub file_pixels: u64,
}

impl SplitCount {
    pub(crate) fn add(&mut self, o: &SplitCount) {
        self.count += o.count;
        self.files += o.files;
        self.file_pixels += o.file_pixels;
    }
}

/// One histogram row: a class, the ignore value, or an id outside the classes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassRow {
    pub id: i64,
    pub name: Option<String>,
    /// `class`, `ignore` or `out_of_range`.
    pub role: String,
    pub count: u64,
    /// Share of the counted elements outside the ignore value.
    pub fraction: f64,
    pub files: u64,
    pub splits: BTreeMap<String, SplitCount>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// `pixels` (masks, arrays), `samples` (tables, ImageFolder), `pixels+samples`, or `none`.
    pub unit: String,
    /// Every class 0..C-1 (seen or not), then every other id seen, by id.
    #[serde(with = "rows")]
    pub classes: BTreeMap<i64, ClassRow>,
    /// Elements whose id was not tallied because a file held too many distinct ids.
    pub untallied: u64,
}

/// Core's `Severity` and `Verdict` serialise as lowercase names; these read them back.
mod severity {
    use labelguard_core::Severity;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Severity, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.as_str())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Severity, D::Error> {
        match String::deserialize(d)?.as_str() {
            "error" => Ok(Severity::Error),
            "warning" => Ok(Severity::Warning),
            "info" => Ok(Severity::Info),
            other => Err(D::Error::custom(format!("unknown severity '{other}'"))),
        }
    }
}

mod verdict {
    use labelguard_core::Verdict;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Verdict, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.as_str())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Verdict, D::Error> {
        let text = String::deserialize(d)?;
        [
            Verdict::Ok,
            Verdict::Silent,
            Verdict::DeviceAssert,
            Verdict::Error,
        ]
        .into_iter()
        .find(|v| v.as_str() == text)
        .ok_or_else(|| D::Error::custom(format!("unknown verdict '{text}'")))
    }
}

mod rows {
    use super::ClassRow;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(m: &BTreeMap<i64, ClassRow>, s: S) -> Result<S::Ok, S::Error> {
        m.values().collect::<Vec<_>>().serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<i64, ClassRow>, D::Error> {
        let v: Vec<ClassRow> = Vec::deserialize(d)?;
        Ok(v.into_iter().map(|r| (r.id, r)).collect())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weights {
    /// The split the counts come from (`train` when there is one).
    pub computed_on: String,
    /// The method `--write-weights` uses.
    pub selected: Method,
    pub suggestions: Vec<Suggestion>,
}

/// The scan report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanReport {
    pub schema: String,
    pub schema_version: u32,
    pub tool: Tool,
    pub settings: Settings,
    /// This report covers shard K of N, or the whole dataset (`null`).
    pub shard: Option<Shard>,
    pub summary: Summary,
    pub rules: Vec<RuleCount>,
    /// Files with findings, by path. Clean files are only counted.
    pub files: Vec<FileRecord>,
    /// Findings about the dataset as a whole (their `path` is `null`).
    pub dataset: Vec<FindingRecord>,
    pub histogram: Histogram,
    pub weights: Option<Weights>,
    /// Findings about the dataset's folders made while discovering it (ImageFolder class
    /// folders that differ between splits); part of `dataset` after finalizing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layout_findings: Vec<FindingRecord>,
    /// One report per dataset when the scanned paths hold several; the fields above then
    /// sum them up (files, summary, rules and every dataset finding, its message naming the
    /// dataset), and each dataset's histogram and weights are in its own report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub datasets: Vec<ScanReport>,
    /// Overlay pictures (PNG) of files with bad pixels, for the HTML report; not serialised.
    #[serde(skip)]
    pub overlays: Vec<(String, Vec<u8>)>,
}

impl ScanReport {
    pub fn empty(settings: Settings, shard: Option<Shard>) -> ScanReport {
        ScanReport {
            schema: SCHEMA_NAME.to_string(),
            schema_version: SCHEMA_VERSION,
            tool: Tool {
                name: "labelguard".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            settings,
            shard,
            summary: Summary::default(),
            rules: Vec::new(),
            files: Vec::new(),
            dataset: Vec::new(),
            histogram: Histogram {
                unit: "none".into(),
                ..Histogram::default()
            },
            weights: None,
            layout_findings: Vec::new(),
            datasets: Vec::new(),
            overlays: Vec::new(),
        }
    }

    /// Class rows in `[0, C-1]`.
    pub(crate) fn class_rows(&self) -> Vec<&ClassRow> {
        self.histogram
            .classes
            .values()
            .filter(|r| r.role == "class")
            .collect()
    }

    pub(crate) fn class_label(&self, r: &ClassRow) -> String {
        match &r.name {
            Some(n) => format!("{} ({n})", r.id),
            None => r.id.to_string(),
        }
    }

    /// The unit the histogram counts in a message: `samples` for tables, else `pixels`.
    pub(crate) fn count_unit(&self) -> &'static str {
        if self.histogram.unit == "samples" {
            "samples"
        } else {
            "pixels"
        }
    }

    /// Class ids were counted but not range-checked: no class count was given, and the ids
    /// come from the data (not from an ImageFolder's own numbering).
    pub fn unchecked(&self) -> bool {
        if !self.datasets.is_empty() {
            return self.datasets.iter().any(|d| d.unchecked());
        }
        self.settings.num_classes.is_none()
            && self
                .settings
                .layouts
                .iter()
                .any(|l| *l != LayoutKind::ImageFolder)
            && self.histogram.classes.values().any(|r| r.count > 0)
    }

    /// Whether the scan found errors (exit code 1).
    pub fn has_errors(&self) -> bool {
        self.summary.errors > 0
    }

    /// The files ranked worst first: unreadable files, then errors, then bad elements, then
    /// warnings.
    pub fn worst_files(&self, n: usize) -> Vec<&FileRecord> {
        let mut v: Vec<&FileRecord> = self.files.iter().collect();
        v.sort_by(|a, b| {
            b.unreadable()
                .cmp(&a.unreadable())
                .then(b.count(Severity::Error).cmp(&a.count(Severity::Error)))
                .then(b.bad_elements.cmp(&a.bad_elements))
                .then(b.count(Severity::Warning).cmp(&a.count(Severity::Warning)))
                .then(a.path.cmp(&b.path))
        });
        v.truncate(n);
        v
    }

    /// Every finding, file findings first (by path), then dataset findings.
    pub fn all_findings(&self) -> impl Iterator<Item = &FindingRecord> {
        // Files are stored unreadable first (see `finalize`).
        self.files
            .iter()
            .flat_map(|f| f.findings.iter())
            .chain(self.dataset.iter())
    }
}

pub(crate) fn record(
    rule: &'static Rule,
    verdict: Verdict,
    message: String,
    hint: Option<String>,
    fix: &str,
) -> FindingRecord {
    let f = Finding::new(rule, verdict, message)
        .maybe_hint(hint)
        .fix(fix);
    FindingRecord::from_finding(None, &f)
}
