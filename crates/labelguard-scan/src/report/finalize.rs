//! Finalizing: everything derived from the raw parts (roles and fractions of the histogram,
//! the dataset findings, repairs, weights, the summary and per-rule counts), recomputed from
//! scratch so that finalizing twice, or after a merge, gives the same report.

use super::dataset_checks::{
    class_id_conventions, lg609_class_never_seen, lg610_class_in_one_split, lg611_class_imbalance,
    lg615_binary_255_masks, lg704_head_class_count_mismatch, lg710_mixed_boxes_and_polygons,
    lg712_difficult_objects,
};
use super::finding::ScanFinding;
use super::model::{
    ClassRow, FileRecord, RuleCount, ScanReport, SplitCount, Weights, MAX_OVERLAYS,
};
use super::repair::propose;
use crate::layout_kind::LayoutKind;
use crate::weights::suggest;
use labelguard_core::rules::{by_code, LG610};
use labelguard_core::Severity;
use labelguard_labels::preset::{CITYSCAPES_LABEL_ID_NAMES, CITYSCAPES_LABEL_TO_TRAIN};
use std::collections::{BTreeMap, BTreeSet};

impl ScanReport {
    /// Recomputes everything derived from the raw parts. Idempotent.
    pub fn finalize(&mut self) {
        let st = self.settings.clone();
        if st.strict {
            for f in self.files.iter_mut().flat_map(|f| f.findings.iter_mut()) {
                if f.finding.severity == Severity::Warning {
                    f.finding.severity = Severity::Error;
                }
            }
        }
        if !self.datasets.is_empty() {
            return self.finalize_parts();
        }
        self.finalize_histogram();
        class_id_conventions::reweigh_files(self);
        let binary = lg615_binary_255_masks::apply(self);
        self.files.sort_by(|a, b| {
            b.unreadable()
                .cmp(&a.unreadable())
                .then_with(|| a.path.cmp(&b.path))
                .then_with(|| first_code(a).cmp(first_code(b)))
        });
        for f in self.files.iter_mut().flat_map(|f| f.findings.iter_mut()) {
            f.repair = propose(&f.finding, &st);
        }
        self.layout_findings
            .sort_by(|a, b| a.finding.message.cmp(&b.finding.message));
        self.layout_findings.dedup();
        let mut dataset = self.layout_findings.clone();
        dataset.extend(binary.clone());
        if binary.is_empty() {
            dataset.extend(class_id_conventions::check(self));
        }
        for f in self.dataset_findings() {
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
        dataset.extend(lg704_head_class_count_mismatch::check(self));
        dataset.extend(lg710_mixed_boxes_and_polygons::check(self));
        dataset.extend(lg712_difficult_objects::check(self));
        self.dataset = dataset;
        for f in &mut self.dataset {
            f.repair = propose(&f.finding, &st);
        }
        if st.strict {
            for f in &mut self.dataset {
                if f.finding.severity == Severity::Warning {
                    f.finding.severity = Severity::Error;
                }
            }
        }
        self.weights = if binary.is_empty() {
            self.weight_suggestions()
        } else {
            lg615_binary_255_masks::weights(self)
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
        let h = &self.histogram;
        let label_ids = st.preset.as_deref() == Some("cityscapes")
            && h.tallied_files > 0
            && h.label_ids_files == h.tallied_files;
        self.histogram.id_space = label_ids.then(|| "label_ids".to_string());
        if let Some(c) = st.num_classes.filter(|_| !label_ids) {
            if self.summary.elements > 0 || !self.histogram.classes.is_empty() {
                // A detection head that counts background as class 0 (torchvision) has no
                // objects of class 0 to see: that row is not a class never seen.
                let first = i64::from(self.histogram.unit == "objects" && self.background_class());
                for id in first..c as i64 {
                    self.histogram
                        .classes
                        .entry(id)
                        .or_insert_with(|| ClassRow::empty(id));
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
            row.name = if self.histogram.unit == "objects" {
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

    /// Whether the detection framework the labels were judged for (`--framework`, else the
    /// layout's own: ultralytics for YOLO, torchvision otherwise) counts background as class 0.
    pub(crate) fn background_class(&self) -> bool {
        let given = self
            .settings
            .framework
            .as_deref()
            .and_then(|f| f.parse::<crate::framework::Framework>().ok());
        let framework = given.unwrap_or(if self.settings.layouts.contains(&LayoutKind::Yolo) {
            crate::framework::Framework::Ultralytics
        } else {
            crate::framework::Framework::Torchvision
        });
        framework.counts_background()
    }

    /// The findings about the whole dataset that its histogram decides (LG609-LG611).
    fn dataset_findings(&self) -> Vec<ScanFinding> {
        // A scan of one mask file is not a scan of a dataset: which classes that mask lacks or
        // how they balance in it says nothing about the dataset.
        let one_mask = self.histogram.unit == "pixels"
            && matches!(self.settings.roots.as_slice(), [root] if std::path::Path::new(root).is_file());
        // Ids in labelId space are not the classes (LG105 says so already, once).
        if one_mask
            || self.histogram.id_space.is_some()
            || !self.histogram.classes.values().any(|r| r.count > 0)
        {
            return Vec::new();
        }
        [
            lg609_class_never_seen::check(self),
            lg610_class_in_one_split::check(self),
            lg611_class_imbalance::check(self),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    fn weight_suggestions(&self) -> Option<Weights> {
        let c = self.settings.num_classes? as i64;
        let rows = if self.histogram.id_space.is_some() {
            self.histogram.classes.values().collect()
        } else {
            self.class_rows()
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
            if self.histogram.id_space.is_some() {
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
        let suggestions = suggest(&counts, &pixels, &self.histogram.unit);
        (!suggestions.is_empty()).then(|| Weights {
            computed_on: split.to_string(),
            selected: self.settings.weights_method,
            suggestions,
        })
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
        for (x, in_file) in all {
            let f = &x.finding;
            match f.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Info => s.infos += 1,
            }
            let e = rules
                .entry(f.code.to_string())
                .or_insert((0, BTreeSet::new(), f.severity));
            e.0 += 1;
            e.2 = e.2.max(f.severity);
            if let (true, Some(p)) = (in_file, &x.path) {
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
}

pub(super) fn first_code(f: &FileRecord) -> &str {
    f.findings.first().map(|x| x.finding.code).unwrap_or("")
}
