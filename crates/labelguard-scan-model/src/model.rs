//! The report's model: the settings, the summary, the files with findings, the class
//! histogram and the weights, as the JSON document holds them.

use crate::finding::ScanFinding;
use crate::layout_kind::LayoutKind;
use crate::parts::{FileKind, Method, ObjectStats, Shard, Suggestion, TokenStats};
use labelguard_core::rule::Category;
use labelguard_core::rules::category_of;
use labelguard_core::Severity;
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
    /// The detection framework given (`--framework`).
    #[serde(default)]
    pub framework: Option<String>,
    pub class_names: Vec<String>,
    pub label_column: Option<String>,
    pub class_weights: Option<String>,
    /// The model directory token data was checked against (`--model`).
    #[serde(default)]
    pub model: Option<String>,
    /// The vocabulary size token ids were checked against (`--vocab-size`); left out of the
    /// report when unset, so that reports without it read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vocab_size: Option<u64>,
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
    pub severity: Severity,
    pub summary: String,
    pub findings: u64,
    pub files: u64,
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
    pub findings: Vec<ScanFinding>,
}

impl FileRecord {
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.finding.severity).max()
    }
    pub fn count(&self, s: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.finding.severity == s)
            .count()
    }
    /// The file cannot be read at all (unreadable, corrupt, empty, a decompression bomb): it
    /// will crash the DataLoader, so every renderer lists it first.
    pub fn unreadable(&self) -> bool {
        self.findings
            .iter()
            .any(|f| category_of(f.finding.code) == Category::Unreadable)
    }
}

/// Per-split tallies of one id.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SplitCount {
    pub count: u64,
    pub files: u64,
    /// Pixels (elements) of the files in which this id occurs: median-frequency balancing's `P_c`.
    pub file_pixels: u64,
}

impl SplitCount {
    pub fn add(&mut self, o: &SplitCount) {
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

impl ClassRow {
    /// A row of `id` with nothing counted yet; its role, name and fraction are set when the
    /// report is finalized.
    pub fn empty(id: i64) -> ClassRow {
        ClassRow {
            id,
            name: None,
            role: String::new(),
            count: 0,
            fraction: 0.0,
            files: 0,
            splits: BTreeMap::new(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// `pixels` (masks, arrays), `samples` (tables, ImageFolder), `objects` (detection
    /// annotations), several joined by `+` (`pixels+samples`), or `none`.
    pub unit: String,
    /// Every class 0..C-1 (seen or not), then every other id seen, by id.
    #[serde(with = "rows")]
    pub classes: BTreeMap<i64, ClassRow>,
    /// Elements whose id was not tallied because a file held too many distinct ids.
    pub untallied: u64,
    /// Files whose ids were tallied, and those of them named `*_labelIds.png` (Cityscapes
    /// labelIds): when every tallied file is one, the histogram is in labelId space.
    #[serde(default)]
    pub tallied_files: u64,
    #[serde(default)]
    pub label_ids_files: u64,
    /// `label_ids` when the ids are Cityscapes labelIds (named by labelId; the weights are
    /// computed on them mapped to trainIds); absent for the dataset's own ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_space: Option<String>,
}

impl Histogram {
    /// The row of class `id`, made empty when the histogram has none yet.
    pub fn row(&mut self, id: i64) -> &mut ClassRow {
        self.classes
            .entry(id)
            .or_insert_with(|| ClassRow::empty(id))
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
    pub dataset: Vec<ScanFinding>,
    pub histogram: Histogram,
    pub weights: Option<Weights>,
    /// Findings about the dataset's folders made while discovering it (ImageFolder class
    /// folders that differ between splits); part of `dataset` after finalizing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layout_findings: Vec<ScanFinding>,
    /// One report per dataset when the scanned paths hold several; the fields above then
    /// sum them up (files, summary, rules and every dataset finding, its message naming the
    /// dataset), and each dataset's histogram and weights are in its own report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub datasets: Vec<ScanReport>,
    /// Overlay pictures (PNG) of files with bad pixels, for the HTML report; not serialised.
    #[serde(skip)]
    pub overlays: Vec<(String, Vec<u8>)>,
    /// Counts about detection objects (box and polygon files, difficult and crowd objects),
    /// summed over the files; absent for datasets without detection annotations.
    #[serde(default, skip_serializing_if = "ObjectStats::is_empty")]
    pub objects: ObjectStats,
    /// Counts of token data (tokens, sequences, documents) and the vocabularies its ids were
    /// checked against; absent for datasets without token files or tables.
    #[serde(default, skip_serializing_if = "TokenStats::is_empty")]
    pub tokens: TokenStats,
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
            objects: ObjectStats::default(),
            tokens: TokenStats::default(),
        }
    }

    /// Class rows in `[0, C-1]`.
    pub fn class_rows(&self) -> Vec<&ClassRow> {
        self.histogram
            .classes
            .values()
            .filter(|r| r.role == "class")
            .collect()
    }

    pub fn class_label(&self, r: &ClassRow) -> String {
        match &r.name {
            Some(n) => format!("{} ({n})", r.id),
            None => r.id.to_string(),
        }
    }

    /// The unit the histogram counts in a message: `samples` for tables, `objects` for
    /// detection annotations, else `pixels`.
    pub fn count_unit(&self) -> &'static str {
        match self.histogram.unit.as_str() {
            "samples" => "samples",
            "objects" => "objects",
            _ => "pixels",
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
                .any(|l| *l != LayoutKind::IMAGE_FOLDER)
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
    pub fn all_findings(&self) -> impl Iterator<Item = &ScanFinding> {
        // Files are stored unreadable first (see `finalize`).
        self.files
            .iter()
            .flat_map(|f| f.findings.iter())
            .chain(self.dataset.iter())
    }
}
