//! The aggregate report of a scan, and its JSON schema.
//!
//! One type serves three purposes: the accumulator the parallel pipeline folds file results
//! into, the JSON document (`--format json`, schema `labelguard-scan-report` version
//! [`SCHEMA_VERSION`], described in `schema/scan-report.schema.json`), and the input of
//! `labelguard merge`. Everything that can be summed (files, histogram rows, counters) is
//! stored raw; everything derived (summary, per-rule counts, dataset-level findings, class
//! fractions, weight suggestions) is recomputed by [`ScanReport::finalize`]. So merging the
//! shards of a scan and finalizing gives exactly the report of the unsharded scan.

use crate::analyze::{FileKind, FileResult};
use crate::config::{ScanOptions, Shard};
use crate::layout::LayoutKind;
use crate::weights::{suggest, Method, Suggestion};
use labelguard_core::rules::{by_code, LG609, LG610, LG611};
use labelguard_core::{Finding, Rule, Severity, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

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
    fn add(&mut self, o: &SplitCount) {
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

    /// Folds one file's result in.
    pub fn add_result(&mut self, r: FileResult) {
        if r.dataset_level {
            self.layout_findings.extend(
                r.findings
                    .iter()
                    .map(|f| FindingRecord::from_finding(None, f)),
            );
            return;
        }
        self.summary.files_scanned += 1;
        self.summary.elements += r.elements;
        self.summary.bad_elements += r.bad;
        self.histogram.untallied += r.hist_overflow;
        if !r.histogram.is_empty() {
            let unit = if r.samples { "samples" } else { "pixels" };
            self.histogram.unit = union_unit(&self.histogram.unit, unit);
        }
        for (id, count) in &r.histogram {
            let row = self
                .histogram
                .classes
                .entry(*id)
                .or_insert_with(|| ClassRow {
                    id: *id,
                    name: None,
                    role: String::new(),
                    count: 0,
                    fraction: 0.0,
                    files: 0,
                    splits: BTreeMap::new(),
                });
            row.count += count;
            row.files += 1;
            let s = row.splits.entry(r.split.clone()).or_default();
            s.count += count;
            s.files += 1;
            s.file_pixels += r.elements;
        }
        if let Some(png) = r.overlay {
            self.overlays.push((r.display.clone(), png));
        }
        if !r.findings.is_empty() {
            let findings = r
                .findings
                .iter()
                .map(|f| FindingRecord::from_finding(Some(&r.display), f))
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
        self.histogram.unit = union_unit(&self.histogram.unit, &other.histogram.unit);
        for (id, row) in other.histogram.classes {
            match self.histogram.classes.get_mut(&id) {
                Some(mine) => {
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

    /// Recomputes everything derived from the raw parts. Idempotent.
    pub fn finalize(&mut self) {
        let st = self.settings.clone();
        if st.strict {
            for f in self.files.iter_mut().flat_map(|f| f.findings.iter_mut()) {
                if f.severity == Severity::Warning {
                    f.severity = Severity::Error;
                }
            }
        }
        if !self.datasets.is_empty() {
            return self.finalize_parts();
        }
        self.finalize_histogram();
        let binary = crate::binary::apply(self);
        self.files.sort_by(|a, b| {
            b.unreadable()
                .cmp(&a.unreadable())
                .then_with(|| a.path.cmp(&b.path))
                .then_with(|| first_code(a).cmp(first_code(b)))
        });
        for f in self.files.iter_mut().flat_map(|f| f.findings.iter_mut()) {
            f.repair = crate::repair::propose(f, &st);
        }
        self.layout_findings
            .sort_by(|a, b| a.message.cmp(&b.message));
        self.layout_findings.dedup();
        let mut dataset = self.layout_findings.clone();
        dataset.extend(binary.clone());
        for f in self.dataset_findings() {
            // One finding per rule and cause: the layout's own LG610 (class folders differ
            // between splits) already covers the classes missing from a split; a binary
            // dataset's classes are 0 and 255, not the histogram's class rows.
            let covered = dataset.iter().any(|d| d.code == f.code)
                || (!binary.is_empty() && f.code != LG610.code);
            if !covered {
                dataset.push(f);
            }
        }
        self.dataset = dataset;
        for f in &mut self.dataset {
            f.repair = crate::repair::propose(f, &st);
        }
        if st.strict {
            for f in &mut self.dataset {
                if f.severity == Severity::Warning {
                    f.severity = Severity::Error;
                }
            }
        }
        self.weights = if binary.is_empty() {
            self.weight_suggestions()
        } else {
            crate::binary::weights(self)
        };
        self.summarize();
        // Overlays of the worst files first, bounded.
        let bad: BTreeMap<&str, u64> = self
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.bad_elements))
            .collect();
        self.overlays.sort_by(|a, b| {
            bad.get(b.0.as_str())
                .cmp(&bad.get(a.0.as_str()))
                .then(a.0.cmp(&b.0))
        });
        self.overlays.truncate(MAX_OVERLAYS);
    }

    fn finalize_histogram(&mut self) {
        let st = &self.settings;
        if let Some(c) = st.num_classes {
            if self.summary.elements > 0 || !self.histogram.classes.is_empty() {
                for id in 0..c as i64 {
                    self.histogram
                        .classes
                        .entry(id)
                        .or_insert_with(|| ClassRow {
                            id,
                            name: None,
                            role: String::new(),
                            count: 0,
                            fraction: 0.0,
                            files: 0,
                            splits: BTreeMap::new(),
                        });
                }
            }
        }
        let counted: u64 = self
            .histogram
            .classes
            .values()
            .filter(|r| r.id != st.ignore_index)
            .map(|r| r.count)
            .sum();
        for row in self.histogram.classes.values_mut() {
            row.role = if row.id == st.ignore_index {
                "ignore"
            } else if row.id < 0 || st.num_classes.is_some_and(|c| row.id >= c as i64) {
                "out_of_range"
            } else {
                "class"
            }
            .to_string();
            row.name = usize::try_from(row.id)
                .ok()
                .and_then(|i| st.class_names.get(i))
                .cloned();
            row.fraction = if row.role == "ignore" || counted == 0 {
                0.0
            } else {
                row.count as f64 / counted as f64
            };
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

    fn class_label(&self, r: &ClassRow) -> String {
        match &r.name {
            Some(n) => format!("{} ({n})", r.id),
            None => r.id.to_string(),
        }
    }

    fn dataset_findings(&self) -> Vec<FindingRecord> {
        let st = &self.settings;
        let mut out = Vec::new();
        let counted = self.histogram.classes.values().any(|r| r.count > 0);
        if !counted {
            return out;
        }
        let unit = if self.histogram.unit == "samples" {
            "samples"
        } else {
            "pixels"
        };
        let rows = self.class_rows();
        if st.num_classes.is_some() {
            let never: Vec<&&ClassRow> = rows.iter().filter(|r| r.count == 0).collect();
            if !never.is_empty() {
                let labels: Vec<String> = never.iter().map(|r| self.class_label(r)).collect();
                let mut f = record(
                    &LG609,
                    Verdict::Silent,
                    format!("{} of {} classes never {} in the scanned labels: {}", never.len(), rows.len(), if never.len() == 1 { "occurs" } else { "occur" }, labels.join(", ")),
                    Some("the model cannot learn these classes; if they should be there, the ids may be shifted (1-based, reduce_zero_label) or num_classes is too large".into()),
                    "check num_classes and the id mapping; drop the classes from the head or add labelled samples of them",
                );
                f.count = Some(never.len() as u64);
                f.locations = never
                    .iter()
                    .take(labelguard_core::finding::MAX_LOCATIONS)
                    .map(|r| LocationRecord {
                        tensor: "class".into(),
                        index: vec![r.id as usize],
                        value: r.name.clone().unwrap_or_else(|| format!("0 {unit}")),
                    })
                    .collect();
                out.push(f);
            }
        }
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
        if compared.len() >= 2 {
            let mut only: Vec<(String, String)> = Vec::new();
            for r in &rows {
                let present: Vec<&String> = compared
                    .iter()
                    .filter(|s| r.splits.get(*s).is_some_and(|c| c.count > 0))
                    .collect();
                if present.len() == 1 {
                    only.push((self.class_label(r), present[0].clone()));
                }
            }
            if !only.is_empty() {
                let text: Vec<String> = only
                    .iter()
                    .map(|(c, s)| format!("{c} only in {s}"))
                    .collect();
                let mut f = record(
                    &LG610,
                    Verdict::Silent,
                    format!("{} in only one of the splits {}: {}", if only.len() == 1 { "1 class occurs".to_string() } else { format!("{} classes occur", only.len()) }, compared.join("/"), text.join(", ")),
                    Some("a class only in val is never trained; a class only in train is never evaluated".into()),
                    "re-split so that every class is represented in each split",
                );
                f.count = Some(only.len() as u64);
                f.values = only
                    .iter()
                    .map(|(c, s)| ValueRecord {
                        value: format!("{c}: {s}"),
                        count: 1,
                    })
                    .collect();
                out.push(f);
            }
        }
        let seen: Vec<&&ClassRow> = rows.iter().filter(|r| r.count > 0).collect();
        if seen.len() >= 2 {
            let max = seen
                .iter()
                .max_by_key(|r| (r.count, std::cmp::Reverse(r.id)))
                .expect("two rows");
            let min = seen
                .iter()
                .min_by_key(|r| (r.count, r.id))
                .expect("two rows");
            let ratio = max.count as f64 / min.count as f64;
            if ratio > st.imbalance_ratio {
                let mut f = record(
                    &LG611,
                    Verdict::Silent,
                    format!(
                        "class {} has {} {unit}, class {} only {}: a ratio of {:.0} (limit {})",
                        self.class_label(max),
                        max.count,
                        self.class_label(min),
                        min.count,
                        ratio,
                        st.imbalance_ratio
                    ),
                    Some("with plain cross-entropy the rare classes barely move the gradient".into()),
                    "weight the loss (see the suggested weights; --write-weights FILE), oversample rare classes, or use a focal/Dice loss",
                );
                let mut by_count: Vec<&&&ClassRow> = seen.iter().collect();
                by_count.sort_by_key(|r| (r.count, r.id));
                f.values = by_count
                    .iter()
                    .take(5)
                    .map(|r| ValueRecord {
                        value: self.class_label(r),
                        count: r.count,
                    })
                    .collect();
                out.push(f);
            }
        }
        out
    }

    fn weight_suggestions(&self) -> Option<Weights> {
        let c = self.settings.num_classes? as i64;
        let rows = self.class_rows();
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
        for r in rows {
            if (0..c).contains(&r.id) {
                let s = pick(r);
                counts[r.id as usize] = s.count;
                pixels[r.id as usize] = s.file_pixels;
            }
        }
        let suggestions = suggest(&counts, &pixels);
        (!suggestions.is_empty()).then(|| Weights {
            computed_on: split.to_string(),
            selected: self.settings.weights_method,
            suggestions,
        })
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

    pub(crate) fn summarize(&mut self) {
        let unchecked = self.unchecked();
        let s = &mut self.summary;
        s.errors = 0;
        s.warnings = 0;
        s.infos = 0;
        s.files_with_errors = 0;
        s.files_with_warnings = 0;
        let mut rules: BTreeMap<String, (u64, BTreeSet<String>, Severity)> = BTreeMap::new();
        // Dataset findings name their dataset in `path` when a scan holds several: they are
        // still not files.
        let all = self
            .files
            .iter()
            .flat_map(|f| f.findings.iter().map(|x| (x, true)))
            .chain(self.dataset.iter().map(|x| (x, false)));
        for (f, in_file) in all {
            match f.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Info => s.infos += 1,
            }
            let e = rules
                .entry(f.code.clone())
                .or_insert((0, BTreeSet::new(), f.severity));
            e.0 += 1;
            e.2 = e.2.max(f.severity);
            if let (true, Some(p)) = (in_file, &f.path) {
                e.1.insert(p.clone());
            }
        }
        for f in &self.files {
            match f.worst() {
                Some(Severity::Error) => s.files_with_errors += 1,
                Some(Severity::Warning) => s.files_with_warnings += 1,
                _ => {}
            }
        }
        s.status = if s.errors > 0 {
            "errors"
        } else if unchecked {
            "unchecked"
        } else if s.warnings > 0 {
            "warnings"
        } else {
            "ok"
        }
        .to_string();
        self.rules = rules
            .into_iter()
            .map(|(code, (n, files, sev))| {
                let rule = by_code(&code);
                RuleCount {
                    name: rule.map(|r| r.name.to_string()).unwrap_or_default(),
                    summary: rule.map(|r| r.summary().to_string()).unwrap_or_default(),
                    code,
                    severity: sev,
                    findings: n,
                    files: files.len() as u64,
                }
            })
            .collect();
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

fn first_code(f: &FileRecord) -> &str {
    f.findings.first().map(|x| x.code.as_str()).unwrap_or("")
}

fn union_unit(a: &str, b: &str) -> String {
    let mut parts: BTreeSet<&str> = BTreeSet::new();
    for u in [a, b] {
        for p in u.split('+') {
            if p == "pixels" || p == "samples" {
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

/// Why reports could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{0}")]
    Incompatible(String),
}

/// Merges the JSON reports of the shards of one scan into the report of the whole scan.
/// The shards must come from the same settings, be distinct, and (when they say they are
/// shards) cover 1..N exactly.
pub fn merge(reports: Vec<ScanReport>) -> Result<ScanReport, MergeError> {
    let bad = |m: String| Err(MergeError::Incompatible(m));
    let Some(first) = reports.first() else {
        return bad("no reports to merge".into());
    };
    for r in &reports {
        if r.schema != SCHEMA_NAME || r.schema_version != SCHEMA_VERSION {
            return bad(format!(
                "a report has schema {} version {}; this labelguard reads {SCHEMA_NAME} version {SCHEMA_VERSION}",
                r.schema, r.schema_version
            ));
        }
        if r.settings != first.settings {
            return bad("the reports were made with different settings (roots, classes, ignore_index, preset, limits): they are not shards of one scan".into());
        }
    }
    let shards: Vec<Option<Shard>> = reports.iter().map(|r| r.shard).collect();
    if shards.iter().any(|s| s.is_some()) {
        let Some(n) = shards.iter().flatten().map(|s| s.count).next() else {
            return bad("inconsistent shards".into());
        };
        let mut seen = BTreeSet::new();
        for s in &shards {
            match s {
                Some(s) if s.count == n => {
                    if !seen.insert(s.index) {
                        return bad(format!("shard {}/{n} is given twice", s.index));
                    }
                }
                Some(s) => {
                    return bad(format!(
                        "shard {}/{} does not belong to a scan split {n} ways",
                        s.index, s.count
                    ))
                }
                None => return bad("an unsharded report cannot be merged with shards".into()),
            }
        }
        let missing: Vec<String> = (1..=n)
            .filter(|k| !seen.contains(k))
            .map(|k| format!("{k}/{n}"))
            .collect();
        if !missing.is_empty() {
            return bad(format!("shards {} are missing", missing.join(", ")));
        }
    }
    let mut out = ScanReport::empty(first.settings.clone(), None);
    let parts = first.datasets.len();
    if reports.iter().any(|r| r.datasets.len() != parts) {
        return bad("the reports found different datasets: they are not shards of one scan".into());
    }
    let mut by_part: Vec<ScanReport> = first
        .datasets
        .iter()
        .map(|d| ScanReport::empty(d.settings.clone(), None))
        .collect();
    for mut r in reports {
        for (mine, theirs) in by_part.iter_mut().zip(std::mem::take(&mut r.datasets)) {
            mine.absorb(theirs);
        }
        if parts == 0 {
            out.absorb(r);
        }
    }
    out.datasets = by_part;
    let mut paths = BTreeSet::new();
    for f in &out.files {
        if !paths.insert((f.path.clone(), first_code(f).to_string())) {
            return bad(format!(
                "{} is in more than one report: the shards overlap",
                f.path
            ));
        }
    }
    out.finalize();
    Ok(out)
}
