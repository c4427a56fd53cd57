//! `labelguard fix` for detection labels: a COCO file's category ids made contiguous
//! ([`crate::coco`]), a YOLO tree's class ids remapped by a table ([`crate::yolo`]).
//!
//! The same safety as the mask repairs: the input is only read; the output is a new file
//! (COCO) or a new directory (YOLO) that may not overlap the input; every file is written
//! atomically (temporary + rename); a journal beside the output (`NEW.fix-journal.jsonl`)
//! lets a killed run resume, skipping what it finished and verified; a manifest
//! (`NEW.fix-manifest.json`) maps input hashes to output hashes; and the output is read back
//! and checked before the run says it is done.
//!
//! Verification: the read-back of the bytes written ([`verify_coco`]: the JSON parses, the ids
//! are the planned ones; [`verify_yolo`]: every id is a target of the table and below `nc`),
//! then for COCO the scan's own reader over the output (`coco_file::rescan_coco`) and, for YOLO, over the new tree with its images linked (`yolo_tree::rescan_yolo`): no corrupt file, no
//! undeclared, non-contiguous or out-of-range id left. One file per format: [`coco_file`], [`yolo_tree`];
//! this one holds what they share (options, report, journal and manifest).

mod coco_file;
mod yolo_tree;

use coco_file::run_coco;
pub use coco_file::verify_coco;
use yolo_tree::run_yolo;
pub use yolo_tree::verify_yolo;

use crate::atomic;
use crate::coco::{self, Remap};
use crate::hash;
use crate::journal::{self, Action, Entry, Journal};
use crate::run::{io, usage, FixError};
use crate::yolo::{self, ClassTable, Refusal, Target};
use labelguard_core::rules::{LG602, LG603, LG701, LG702, LG703, LG704, LG709};
use labelguard_formats::walk::{walk, EntryKind};
use labelguard_scan::framework::Framework;
use labelguard_scan::progress::Progress;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A detection fix.
#[derive(Clone, Debug)]
pub enum DetectionFix {
    /// A COCO instances file: categories renumbered `start..start+K` by old id.
    Coco {
        start: i64,
        /// Leave out annotations of undeclared categories instead of refusing.
        drop_undeclared: bool,
    },
    /// A YOLO tree: class ids through the table.
    Yolo { table: ClassTable },
}

/// Everything a detection fix run needs.
#[derive(Clone, Debug)]
pub struct DetectionOptions {
    pub input: PathBuf,
    pub out: PathBuf,
    pub fix: DetectionFix,
    pub dry_run: bool,
    pub jobs: Option<usize>,
}

/// The first id of a COCO remap: `--start`, else the framework's convention (torchvision and
/// COCO itself number from 1, background 0; the others from 0), else 1.
pub fn start_for(start: Option<i64>, framework: Option<Framework>) -> i64 {
    start.unwrap_or(match framework {
        Some(Framework::Torchvision) | None => 1,
        Some(_) => 0,
    })
}

/// What a detection fix did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DetectionReport {
    pub schema: &'static str,
    /// `coco` or `yolo`.
    pub format: &'static str,
    pub dry_run: bool,
    pub input: String,
    pub output: String,
    /// COCO: the file with the mapping written beside the output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mapping_file: Option<String>,
    /// Old id -> new id (`null`: dropped), written in numeric order of the old ids.
    #[serde(serialize_with = "numeric_order")]
    pub old_to_new: BTreeMap<String, Option<i64>>,
    /// Names by new id (COCO's categories; YOLO's data.yaml when there is one).
    #[serde(serialize_with = "numeric_order")]
    pub names: BTreeMap<String, String>,
    /// COCO: categories; YOLO: classes the table maps.
    pub classes: u64,
    /// Annotations (COCO) or label lines (YOLO) written.
    pub objects: u64,
    /// Of those, the ones whose id changed.
    pub changed: u64,
    /// Annotations or lines left out (undeclared categories, `drop` targets).
    pub dropped: u64,
    /// Files written (COCO: 1).
    pub files: u64,
    /// Files an earlier interrupted run finished, verified and kept.
    pub resumed: u64,
    pub notes: Vec<String>,
    /// What the read-back of the output found wrong (`null` with `--dry-run`).
    pub problems: Option<Vec<String>>,
    pub manifest: Option<String>,
}

/// The entries of a map keyed by ids written as strings, in the ids' numeric order (1, 2, 10,
/// not 1, 10, 2); keys that are no number come last, in their own order.
fn by_number<V>(m: &BTreeMap<String, V>) -> Vec<(&String, &V)> {
    let mut v: Vec<(&String, &V)> = m.iter().collect();
    v.sort_by_key(|(k, _)| (k.parse::<i64>().map_or((1, 0), |n| (0, n)), k.as_str()));
    v
}

/// Serialises a map keyed by ids in the ids' numeric order ([`by_number`]).
fn numeric_order<S: serde::Serializer, V: Serialize>(
    m: &BTreeMap<String, V>,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut out = s.serialize_map(Some(m.len()))?;
    for (k, v) in by_number(m) {
        out.serialize_entry(k, v)?;
    }
    out.end()
}

impl DetectionReport {
    fn new(opts: &DetectionOptions, format: &'static str) -> DetectionReport {
        DetectionReport {
            schema: "labelguard-fix-detection-report",
            format,
            dry_run: opts.dry_run,
            input: opts.input.to_string_lossy().into_owned(),
            output: opts.out.to_string_lossy().into_owned(),
            ..DetectionReport::default()
        }
    }

    /// 0 when the output was verified (or a dry run), 1 when its read-back found a problem.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.problems.as_ref().is_some_and(|p| !p.is_empty()))
    }

    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("the report serialises");
        s.push('\n');
        s
    }

    pub fn text(&self, max: usize) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "labelguard fix ({}): {} -> {}{}",
            self.format,
            self.input,
            self.output,
            if self.dry_run {
                " (dry run: nothing is written)"
            } else {
                ""
            }
        );
        let what = if self.format == "coco" {
            "categories"
        } else {
            "classes"
        };
        let _ = writeln!(s, "\n{what} (old -> new):");
        // The whole mapping is the point of the run: listed up to LVIS's 1203 categories and more.
        let rows = max.max(2000);
        for (old, new) in by_number(&self.old_to_new).into_iter().take(rows) {
            let new_s = new.map_or("drop".to_string(), |n| n.to_string());
            let name = new
                .and_then(|n| self.names.get(&n.to_string()))
                .filter(|n| !n.is_empty())
                .map(|n| format!("  {n}"))
                .unwrap_or_default();
            let _ = writeln!(s, "  {old:>6} -> {new_s:<6}{name}");
        }
        if self.old_to_new.len() > rows {
            let _ = writeln!(
                s,
                "  ... and {} more (--format json lists all)",
                self.old_to_new.len() - rows
            );
        }
        let unit = if self.format == "coco" {
            "annotations"
        } else {
            "label lines"
        };
        let _ = writeln!(
            s,
            "\n{} {unit} {}, {} with a new id, {} left out; {} file{}{}",
            self.objects,
            if self.dry_run { "to write" } else { "written" },
            self.changed,
            self.dropped,
            self.files,
            if self.files == 1 { "" } else { "s" },
            if self.resumed > 0 {
                format!(" ({} finished by an earlier run, verified)", self.resumed)
            } else {
                String::new()
            }
        );
        if let Some(m) = &self.mapping_file {
            let _ = writeln!(s, "mapping: {m}");
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        match &self.problems {
            None => {}
            Some(p) if p.is_empty() => {
                let _ = writeln!(
                    s,
                    "read-back of the output: every id is in the new range and declared"
                );
            }
            Some(p) => {
                let _ = writeln!(s, "read-back of the output found {} problem(s):", p.len());
                for x in p.iter().take(max) {
                    let _ = writeln!(s, "  {x}");
                }
            }
        }
        if let Some(m) = &self.manifest {
            let _ = writeln!(s, "manifest: {m}");
        }
        s
    }
}

/// The manifest of a detection fix: input and output hashes of every file, and the mapping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DetectionManifest {
    pub schema: String,
    pub schema_version: u32,
    pub format: String,
    pub hash: String,
    pub input: String,
    pub output: String,
    pub old_to_new: BTreeMap<String, Option<i64>>,
    pub files: Vec<Entry>,
}

pub const DETECTION_MANIFEST_SCHEMA: &str = "labelguard-fix-detection-manifest";

/// Runs a detection fix.
pub fn run_detection(
    opts: &DetectionOptions,
    progress: &dyn Progress,
) -> Result<DetectionReport, FixError> {
    match &opts.fix {
        DetectionFix::Coco {
            start,
            drop_undeclared,
        } => run_coco(opts, *start, *drop_undeclared),
        DetectionFix::Yolo { table } => run_yolo(opts, table, progress),
    }
}

/// The mapping file written beside a COCO output: `NAME.category-map.json` for `NAME.json`.
pub fn mapping_path(out: &Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    out.with_file_name(format!("{stem}.category-map.json"))
}

fn map_input(path: &Path) -> Result<memmap2::Mmap, FixError> {
    let f = std::fs::File::open(path).map_err(io(path))?;
    // SAFETY: the input is only read; a file changed under the map while it is read gives
    // wrong bytes, which the hashes in the journal and the read-back catch, not undefined
    // behaviour in safe code that holds no reference across such a change beyond this run.
    unsafe { memmap2::Mmap::map(&f) }.map_err(io(path))
}

/// Entries a previous run finished: the journal's, else the manifest's.
fn load_done(journal_path: &Path, manifest_path: &Path) -> BTreeMap<String, Entry> {
    let mut done = BTreeMap::new();
    if let Ok(text) = std::fs::read_to_string(manifest_path) {
        if let Ok(m) = serde_json::from_str::<DetectionManifest>(&text) {
            done.extend(m.files.into_iter().map(|e| (e.path.clone(), e)));
        }
    }
    // The journal's own lines (the mask journal's format).
    done.extend(journal::load(journal_path, Path::new("")));
    done
}

/// Writes the manifest and removes the journal.
fn finish(
    opts: &DetectionOptions,
    report: &mut DetectionReport,
    files: Vec<Entry>,
    journal_path: &Path,
    manifest_path: &Path,
) -> Result<(), FixError> {
    let manifest = DetectionManifest {
        schema: DETECTION_MANIFEST_SCHEMA.into(),
        schema_version: 1,
        format: report.format.into(),
        hash: hash::ALGORITHM.into(),
        input: opts.input.to_string_lossy().into_owned(),
        output: opts.out.to_string_lossy().into_owned(),
        old_to_new: report.old_to_new.clone(),
        files,
    };
    let text = serde_json::to_string_pretty(&manifest).expect("the manifest serialises");
    atomic::write(manifest_path, text.as_bytes()).map_err(io(manifest_path))?;
    let _ = std::fs::remove_file(journal_path);
    report.manifest = Some(manifest_path.to_string_lossy().into_owned());
    Ok(())
}
