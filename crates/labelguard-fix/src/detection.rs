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
//! then for COCO the scan's own reader over the output (`rescan_coco`): no corrupt file, no
//! undeclared or non-contiguous id left.

use crate::atomic;
use crate::coco::{self, Remap};
use crate::hash;
use crate::journal::{self, Action, Entry, Journal};
use crate::run::FixError;
use crate::yolo::{self, ClassTable, Refusal, Target};
use labelguard_core::rules::{LG602, LG603, LG701, LG702, LG703, LG704, LG709};
use labelguard_scan::framework::Framework;
use labelguard_scan::progress::Progress;
use labelguard_scan::walk::{walk, EntryKind};
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
    /// Old id -> new id (`null`: dropped).
    pub old_to_new: BTreeMap<String, Option<i64>>,
    /// Names by new id (COCO's categories; YOLO's data.yaml when there is one).
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
        for (old, new) in self.old_to_new.iter().take(rows) {
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

fn usage(s: impl Into<String>) -> FixError {
    FixError::Usage(s.into())
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FixError + '_ {
    move |source| FixError::Io {
        path: path.display().to_string(),
        source,
    }
}

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

/// Refuses a COCO output that is the input (through links too), a directory, or an existing
/// file no earlier fix wrote.
fn check_coco_paths(input: &Path, out: &Path) -> Result<(), FixError> {
    let meta = std::fs::metadata(input).map_err(io(input))?;
    if !meta.is_file() {
        return Err(usage(format!("{}: not a file", input.display())));
    }
    if out.file_name().is_none() {
        return Err(usage("--out needs a file name (the new JSON)"));
    }
    let inp = std::fs::canonicalize(input).map_err(io(input))?;
    let o = crate::run::resolved(out).map_err(io(out))?;
    if o == inp || o == crate::run::resolved(&mapping_path(out)).map_err(io(out))? {
        return Err(usage(format!(
            "--out {} is the input {}: fix never writes in place; name a new file",
            out.display(),
            input.display()
        )));
    }
    if out.is_dir() {
        return Err(usage(format!(
            "--out {} is a directory: name the new JSON file (e.g. {}/{})",
            out.display(),
            out.display(),
            input
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        )));
    }
    let (journal, manifest) = journal::paths(out);
    if std::fs::symlink_metadata(out).is_ok() && !journal.exists() && !manifest.exists() {
        return Err(usage(format!(
            "--out {} exists and no earlier `labelguard fix` wrote it; choose a new file name",
            out.display()
        )));
    }
    Ok(())
}

fn map_input(path: &Path) -> Result<memmap2::Mmap, FixError> {
    let f = std::fs::File::open(path).map_err(io(path))?;
    // SAFETY: the input is only read; a file changed under the map while it is read gives
    // wrong bytes, which the hashes in the journal and the read-back catch, not undefined
    // behaviour in safe code that holds no reference across such a change beyond this run.
    unsafe { memmap2::Mmap::map(&f) }.map_err(io(path))
}

fn run_coco(
    opts: &DetectionOptions,
    start: i64,
    drop_undeclared: bool,
) -> Result<DetectionReport, FixError> {
    check_coco_paths(&opts.input, &opts.out)?;
    let mut report = DetectionReport::new(opts, "coco");
    let bytes = map_input(&opts.input)?;
    let at = |e: coco::CocoError| usage(format!("{}: {e}", opts.input.display()));
    let found = coco::scan(&bytes).map_err(at)?;
    let remap = coco::plan(&found, start, drop_undeclared).map_err(at)?;
    report.old_to_new = remap
        .old_to_new
        .iter()
        .map(|(o, n)| (o.to_string(), Some(*n)))
        .collect();
    report.names = remap
        .names
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    report.classes = remap.old_to_new.len() as u64;
    let expected = found.annotations.len() - remap.dropped() as usize;
    report.objects = expected as u64;
    report.dropped = remap.dropped();
    report.changed = found
        .annotations
        .iter()
        .filter_map(|a| a.category)
        .filter(|(id, _)| remap.old_to_new.get(id).is_some_and(|n| n != id))
        .count() as u64;
    if remap.dropped() > 0 {
        let ids: Vec<String> = remap
            .undeclared
            .iter()
            .map(|(id, n)| format!("{} x{n}", id.map_or("none".into(), |i| i.to_string())))
            .collect();
        report.notes.push(format!(
            "{} annotations of undeclared categories left out (--drop-undeclared): {}",
            remap.dropped(),
            ids.join(", ")
        ));
    }
    if !remap.changes() && !remap.old_to_new.is_empty() {
        report.notes.push(format!(
            "the category ids are already {start}..{}: the output is a copy",
            start + remap.old_to_new.len() as i64 - 1
        ));
    }
    report.files = 1;
    if opts.dry_run {
        return Ok(report);
    }
    let map_path = mapping_path(&opts.out);
    report.mapping_file = Some(map_path.to_string_lossy().into_owned());
    let (journal_path, manifest_path) = journal::paths(&opts.out);
    let input_hash = hash::hex(&bytes);
    let plan = hash::hex(format!("coco-remap start={start} drop={drop_undeclared}").as_bytes());
    let rel = opts
        .out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let done = load_done(&journal_path, &manifest_path);
    atomic::remove_stale_of(&opts.out);
    let out_bytes_ok = |want: &str| map_input(&opts.out).is_ok_and(|m| hash::hex(&m) == want);
    let resumed = done
        .get(&rel)
        .filter(|e| e.input == input_hash && e.plan == plan && out_bytes_ok(&e.output))
        .cloned();
    let entry = match resumed {
        Some(e) => {
            report.resumed = 1;
            e
        }
        None => {
            if let Some(dir) = opts.out.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(io(dir))?;
            }
            let dest = labelguard_io::output::check(&opts.out, false).map_err(io(&opts.out))?;
            let mut output = String::new();
            labelguard_io::output::write_with(&dest, |w| {
                let mut h = hash::Hashing::new(w);
                coco::write(&bytes, &found, &remap, &mut h)?;
                output = h.hex();
                Ok(())
            })
            .map_err(io(&opts.out))?;
            let e = Entry {
                path: rel.clone(),
                action: if remap.changes() {
                    Action::Repaired
                } else {
                    Action::Copied
                },
                input: input_hash,
                output,
                plan,
                repairs: vec!["coco_contiguous_categories".into()],
                moved: Vec::new(),
                notes: Vec::new(),
                written_as: None,
            };
            let j = Journal::open(&journal_path).map_err(io(&journal_path))?;
            j.record(&e).map_err(io(&journal_path))?;
            if labelguard_io::fault::kill_after() == Some(1) {
                std::process::abort();
            }
            e
        }
    };
    atomic::write(&map_path, remap.mapping_json().as_bytes()).map_err(io(&map_path))?;
    // The input's pages are let go before the output's are read: one file resident at a time.
    drop(bytes);
    let written = map_input(&opts.out)?;
    let mut problems = verify_coco(&written, &remap, expected);
    drop(written);
    problems.extend(rescan_coco(&opts.out, start)?);
    report.problems = Some(problems);
    finish(
        opts,
        &mut report,
        vec![entry],
        &journal_path,
        &manifest_path,
    )?;
    Ok(report)
}

/// The read-back of a COCO output: the ids are the planned ones, every annotation kept.
pub fn verify_coco(written: &[u8], remap: &Remap, expected: usize) -> Vec<String> {
    coco::verify(written, remap, expected).problems
}

/// The scan's own COCO reader over the output: what the remap is for (a corrupt file, ids
/// undeclared or not contiguous from `start`) must be gone. The head is the convention of
/// `start`: ids as stored from 1 with background 0 (torchvision), or from 0 (ultralytics'
/// convention, which mmdet and detectron2 reach by their own remap).
fn rescan_coco(out: &Path, start: i64) -> Result<Vec<String>, FixError> {
    let scan_opts = labelguard_scan::config::ScanOptions {
        framework: Some(if start == 1 {
            Framework::Torchvision
        } else {
            Framework::Ultralytics
        }),
        ..Default::default()
    };
    let report = labelguard_scan::scan(
        &[out.to_path_buf()],
        &scan_opts,
        &labelguard_scan::progress::Silent,
    )
    .map_err(|e| usage(format!("re-scan of the output: {e}")))?;
    let repaired = [&LG602, &LG603, &LG701, &LG702, &LG703, &LG709];
    Ok(report
        .all_findings()
        .filter(|f| repaired.iter().any(|r| r.code == f.finding.code))
        .map(|f| format!("re-scan: {} {}", f.finding.code, f.finding.message))
        .collect())
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

/// One label file planned: its path and what its lines become.
struct Planned {
    rel: String,
    path: PathBuf,
}

fn run_yolo(
    opts: &DetectionOptions,
    table: &ClassTable,
    progress: &dyn Progress,
) -> Result<DetectionReport, FixError> {
    crate::run::check_paths(&opts.input, &opts.out)?;
    let mut report = DetectionReport::new(opts, "yolo");
    report.old_to_new = table
        .0
        .iter()
        .map(|(o, t)| {
            let n = match t {
                Target::Id(n) => Some(*n),
                Target::Drop => None,
            };
            (o.to_string(), n)
        })
        .collect();
    report.classes = table.targets().len() as u64;
    let files: Vec<Planned> = walk(&opts.input, &[], &[])
        .into_iter()
        .filter(|e| matches!(e.kind, EntryKind::File) && yolo::is_label_file(&e.rel))
        .map(|e| Planned {
            rel: e.rel,
            path: e.path,
        })
        .collect();
    if files.is_empty() {
        return Err(usage(format!(
            "{}: no YOLO label files (labels/**/*.txt) to remap",
            opts.input.display()
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.unwrap_or(0))
        .thread_name(|i| format!("labelguard-fix-{i}"))
        .build()
        .map_err(|e| usage(format!("cannot start worker threads: {e}")))?;
    // First every file is checked: an id the table does not map (or a line that is not a
    // label) refuses the whole run before anything is written, since a missing or partial
    // label file would train those images as background.
    let unmapped: Mutex<BTreeMap<i64, (u64, String)>> = Mutex::new(BTreeMap::new());
    let malformed: Mutex<Vec<String>> = Mutex::new(Vec::new());
    progress.start(files.len() as u64 * if opts.dry_run { 1 } else { 2 });
    let counted: Vec<Result<yolo::LineCounts, FixError>> = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let bytes = std::fs::read(&f.path).map_err(io(&f.path))?;
                progress.inc();
                match yolo::remap(&bytes, table) {
                    Ok((_, c)) => Ok(c),
                    Err(Refusal::Unmapped(ids)) => {
                        let mut u = unmapped.lock().unwrap_or_else(|p| p.into_inner());
                        for (id, n) in ids {
                            let e = u.entry(id).or_insert((0, f.rel.clone()));
                            e.0 += n;
                            if f.rel < e.1 {
                                e.1 = f.rel.clone();
                            }
                        }
                        Ok(Default::default())
                    }
                    Err(Refusal::Malformed { line, text }) => {
                        let mut m = malformed.lock().unwrap_or_else(|p| p.into_inner());
                        m.push(format!("{}:{line}: '{text}'", f.rel));
                        Ok(Default::default())
                    }
                }
            })
            .collect()
    });
    let unmapped = unmapped.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut malformed = malformed.into_inner().unwrap_or_else(|p| p.into_inner());
    if !malformed.is_empty() {
        progress.finish();
        malformed.sort();
        return Err(usage(format!(
            "{} label file(s) have a line whose first column is not a class id ({}{}); fix them first",
            malformed.len(),
            malformed[..malformed.len().min(5)].join(", "),
            if malformed.len() > 5 { ", ..." } else { "" }
        )));
    }
    if !unmapped.is_empty() {
        progress.finish();
        let list: Vec<String> = unmapped
            .iter()
            .take(20)
            .map(|(id, (n, first))| {
                format!(
                    "{id} ({n} line{}, first in {first})",
                    if *n == 1 { "" } else { "s" }
                )
            })
            .collect();
        return Err(usage(format!(
            "the class table does not map the class id{} {}{}; fix will not guess: add a line \
             `OLD NEW` (or `OLD drop`) for each to the table",
            if unmapped.len() == 1 { "" } else { "s" },
            list.join(", "),
            if unmapped.len() > 20 { ", ..." } else { "" }
        )));
    }
    for c in counted {
        let c = c?;
        report.objects += c.kept;
        report.changed += c.changed;
        report.dropped += c.dropped;
    }
    report.files = files.len() as u64;
    // data.yaml: the names remapped, for a new data.yaml in the output.
    let yaml = opts.input.join("data.yaml");
    let data_yaml = yaml
        .is_file()
        .then(|| data_yaml_out(&yaml, table, &mut report));
    let targets = table.targets();
    if targets.iter().copied().ne(0..targets.len() as i64) {
        report.notes.push(format!(
            "the new ids are not 0..{}: ultralytics expects every id below nc = len(names)",
            targets.len() as i64 - 1
        ));
    }
    let links = image_links(opts, &files);
    if !links.is_empty() {
        report.notes.push(format!(
            "images are not copied: ultralytics finds a label by replacing /images/ with /labels/ \
             in the image's path, so the new tree links to them ({})",
            links
                .iter()
                .map(|(to, at)| format!("{} -> {}", at.display(), to.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if opts.dry_run {
        progress.finish();
        return Ok(report);
    }
    std::fs::create_dir_all(&opts.out).map_err(io(&opts.out))?;
    atomic::remove_stale(&opts.out);
    let (journal_path, manifest_path) = journal::paths(&opts.out);
    let done = load_done(&journal_path, &manifest_path);
    let journal = Journal::open(&journal_path).map_err(io(&journal_path))?;
    let plan = table.fingerprint();
    let kill_after = labelguard_io::fault::kill_after();
    let written = AtomicUsize::new(0);
    let results: Vec<Result<(Entry, bool), FixError>> = pool.install(|| {
        files
            .par_iter()
            .map(|f| {
                let r = yolo_file(f, &opts.out, table, &plan, &done);
                if let Ok((e, true)) = &r {
                    journal.record(e).map_err(io(&journal_path))?;
                    let n = written.fetch_add(1, Ordering::SeqCst) + 1;
                    if kill_after == Some(n) {
                        // Testing aid: die like a killed job, with no cleanup at all.
                        std::process::abort();
                    }
                }
                progress.inc();
                r
            })
            .collect()
    });
    progress.finish();
    let mut entries = Vec::new();
    for r in results {
        let (e, fresh) = r?;
        report.resumed += u64::from(!fresh);
        entries.push(e);
    }
    if let Some((text, _)) = &data_yaml {
        let p = opts.out.join("data.yaml");
        atomic::write(&p, text.as_bytes()).map_err(io(&p))?;
    }
    for (to, at) in &links {
        if std::fs::symlink_metadata(at).is_err() {
            std::os::unix::fs::symlink(to, at).map_err(io(at))?;
        }
    }
    let mut problems = verify_yolo(
        &opts.out,
        &entries,
        &targets,
        data_yaml.as_ref().map(|d| d.1),
        report.objects,
    );
    if data_yaml.is_some() && !links.is_empty() {
        problems.extend(rescan_yolo(&opts.out)?);
    }
    report.problems = Some(problems);
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    finish(opts, &mut report, entries, &journal_path, &manifest_path)?;
    Ok(report)
}

/// The image folders the new labels need, as (input folder, link in the output): for each
/// `labels` folder written (`labels/` of ultralytics' layout, `train/labels/` of a Roboflow
/// export), its `images` sibling in the input, linked (not copied) beside the new labels.
fn image_links(opts: &DetectionOptions, files: &[Planned]) -> Vec<(PathBuf, PathBuf)> {
    let prefixes: BTreeSet<&str> = files
        .iter()
        .filter_map(|f| {
            let at = f.rel.split('/').position(|c| c == "labels")?;
            let end = f
                .rel
                .split('/')
                .take(at)
                .map(|c| c.len() + 1)
                .sum::<usize>();
            Some(&f.rel[..end])
        })
        .collect();
    prefixes
        .into_iter()
        .filter_map(|p| {
            let images = opts.input.join(p).join("images");
            images.is_dir().then(|| {
                (
                    std::path::absolute(&images).unwrap_or(images),
                    opts.out.join(p).join("images"),
                )
            })
        })
        .collect()
}

/// The scan over the output (its new labels, data.yaml and linked images): what a remap can
/// break (an id at or beyond the new `nc`, a corrupt file) must not be there.
fn rescan_yolo(out: &Path) -> Result<Vec<String>, FixError> {
    let report = labelguard_scan::scan(
        &[out.to_path_buf()],
        &labelguard_scan::config::ScanOptions::default(),
        &labelguard_scan::progress::Silent,
    )
    .map_err(|e| usage(format!("re-scan of the output: {e}")))?;
    let repaired = [&LG602, &LG701, &LG704];
    Ok(report
        .all_findings()
        .filter(|f| repaired.iter().any(|r| r.code == f.finding.code))
        .map(|f| format!("re-scan: {} {}", f.finding.code, f.finding.message))
        .collect())
}

/// One label file: skipped when an earlier run wrote it from the same input with the same
/// table and it is intact; else remapped and written atomically.
fn yolo_file(
    f: &Planned,
    out_root: &Path,
    table: &ClassTable,
    plan: &str,
    done: &BTreeMap<String, Entry>,
) -> Result<(Entry, bool), FixError> {
    let bytes = std::fs::read(&f.path).map_err(io(&f.path))?;
    let input = hash::hex(&bytes);
    let out = out_root.join(&f.rel);
    if let Some(prev) = done.get(&f.rel) {
        if prev.input == input
            && prev.plan == plan
            && std::fs::read(&out).is_ok_and(|b| hash::hex(&b) == prev.output)
        {
            return Ok((prev.clone(), false));
        }
    }
    let (new, counts) = yolo::remap(&bytes, table).map_err(|r| {
        // Checked before writing: only a file changed since then gets here.
        usage(format!(
            "{}: changed during the run ({r:?}); rerun",
            f.path.display()
        ))
    })?;
    atomic::write(&out, &new).map_err(io(&out))?;
    let changed = counts.changed > 0 || counts.dropped > 0;
    Ok((
        Entry {
            path: f.rel.clone(),
            action: if changed {
                Action::Repaired
            } else {
                Action::Copied
            },
            input,
            output: hash::hex(&new),
            plan: plan.to_string(),
            repairs: if changed {
                vec!["yolo_class_map".into()]
            } else {
                Vec::new()
            },
            moved: Vec::new(),
            notes: Vec::new(),
            written_as: None,
        },
        true,
    ))
}

/// The new data.yaml: the input's `train`/`val`/`test` lines (relative to the yaml, so they
/// find the images linked into the output), `nc` and the names by new id. Returns the text
/// and `nc`.
fn data_yaml_out(yaml: &Path, table: &ClassTable, report: &mut DetectionReport) -> (String, u64) {
    let names = match labelguard_scan::read::data_yaml::DataYaml::read(yaml) {
        Ok(d) => d.names,
        Err(f) => {
            report.notes.push(format!(
                "data.yaml not read ({}): the new data.yaml has placeholder names",
                f.message
            ));
            Vec::new()
        }
    };
    let mut by_new: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for (old, t) in &table.0 {
        if let Target::Id(n) = t {
            let name = usize::try_from(*old)
                .ok()
                .and_then(|o| names.get(o))
                .cloned()
                .unwrap_or_else(|| format!("class{old}"));
            by_new.entry(*n).or_default().push(name);
        }
    }
    let nc = by_new.keys().next_back().map_or(0, |m| *m as u64 + 1);
    let mut text = String::from(
        "# Written by `labelguard fix --map-classes`: class ids remapped (see the manifest).\n",
    );
    let raw = std::fs::read_to_string(yaml).unwrap_or_default();
    for line in raw.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if ["train", "val", "test"].contains(&key) {
            let value = value.trim();
            if value.starts_with('/') {
                report.notes.push(format!(
                    "data.yaml's {key} is an absolute path ({value}): ultralytics would read the labels beside those images, not the new ones; point it at the new tree"
                ));
            }
            text.push_str(line);
            text.push('\n');
        }
    }
    let _ = writeln!(text, "nc: {nc}");
    text.push_str("names:\n");
    for id in 0..nc as i64 {
        let name = match by_new.get(&id) {
            Some(v) => v.join("+"),
            None => {
                report
                    .notes
                    .push(format!("no old class maps to {id}: its name is empty"));
                String::new()
            }
        };
        if by_new.get(&id).is_some_and(|v| v.len() > 1) {
            report
                .notes
                .push(format!("classes merged into {id}: named '{name}'"));
        }
        report.names.insert(id.to_string(), name.clone());
        let quoted = serde_json::to_string(&name).expect("a string serialises");
        let _ = writeln!(text, "  {id}: {quoted}");
    }
    (text, nc)
}

/// The read-back of a YOLO output: every written file hashes as recorded, every id is a
/// target of the table (and below `nc` of the new data.yaml), and the line count is the
/// one planned. Hook: when the scan's YOLO reader lands, also run `labelguard_scan::scan`
/// over the output here and add its error findings.
pub fn verify_yolo(
    out: &Path,
    entries: &[Entry],
    targets: &BTreeSet<i64>,
    nc: Option<u64>,
    expected_lines: u64,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut lines = 0;
    let mut bad: BTreeMap<i64, String> = BTreeMap::new();
    for e in entries {
        let p = out.join(&e.path);
        let Ok(bytes) = std::fs::read(&p) else {
            problems.push(format!("{}: missing from the output", e.path));
            continue;
        };
        if hash::hex(&bytes) != e.output {
            problems.push(format!("{}: not the bytes that were written", e.path));
        }
        match yolo::ids_outside(&bytes, targets) {
            Ok((n, ids)) => {
                lines += n;
                for id in ids {
                    bad.entry(id).or_insert_with(|| e.path.clone());
                }
            }
            Err(err) => problems.push(format!("{}: {err}", e.path)),
        }
        if let Some(nc) = nc {
            if let Ok((_, ids)) = yolo::ids_outside(&bytes, &(0..nc as i64).collect()) {
                for id in ids {
                    problems.push(format!("{}: class {id} is not below nc = {nc}", e.path));
                }
            }
        }
    }
    for (id, first) in bad {
        problems.push(format!(
            "class {id} (first in {first}) is not a target of the table"
        ));
    }
    if lines != expected_lines {
        problems.push(format!(
            "{lines} label lines in the output, {expected_lines} expected"
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The re-scan is the scan's COCO reader: it passes a contiguous output and names what a
    /// remap must not leave behind.
    #[test]
    fn the_rescan_judges_the_output_with_the_scans_reader() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("instances_train.json");
        let doc = |ids: &str, cat: i64| {
            format!(
                r#"{{"images": [{{"id": 1, "file_name": "a.jpg", "width": 8, "height": 8}}],
                "annotations": [{{"id": 1, "image_id": 1, "category_id": {cat}, "bbox": [1, 1, 2, 2]}}],
                "categories": [{ids}]}}"#
            )
        };
        std::fs::write(
            &file,
            doc(r#"{"id": 1, "name": "a"}, {"id": 2, "name": "b"}"#, 2),
        )
        .unwrap();
        assert_eq!(rescan_coco(&file, 1).unwrap(), Vec::<String>::new());
        // Ids 1, 5 are not 1..2; from 0 they are not 0..1; an undeclared id is LG702.
        std::fs::write(
            &file,
            doc(r#"{"id": 1, "name": "a"}, {"id": 5, "name": "b"}"#, 5),
        )
        .unwrap();
        let p = rescan_coco(&file, 1).unwrap();
        assert!(p.len() == 1 && p[0].starts_with("re-scan: LG703"), "{p:?}");
        std::fs::write(
            &file,
            doc(r#"{"id": 0, "name": "a"}, {"id": 1, "name": "b"}"#, 3),
        )
        .unwrap();
        let p = rescan_coco(&file, 0).unwrap();
        assert!(p.iter().any(|m| m.starts_with("re-scan: LG702")), "{p:?}");
    }
}
