//! A fix run: check the paths, walk the input, repair or copy every file on a thread pool,
//! journal each finished file, write the manifest, re-scan the output.

use crate::atomic;
use crate::hash;
use crate::journal::{self, Action, Entry, Journal, LeftAlone, Manifest, MANIFEST_SCHEMA};
use crate::options::FixOptions;
use crate::plan::relative;
use crate::rewrite::{rewrite, Ctx};
use crate::summary::{FixReport, Remaining};
use labelguard_formats::walk::{walk, EntryKind};
use labelguard_io::portable::os_str_from_bytes;
use labelguard_labels::repair::{void_target, Repair, RepairKind};
use labelguard_scan::colours::ColourMap;
use labelguard_scan::config::ScanOptions;
use labelguard_scan::layout::{discover, Task};
use labelguard_scan::progress::Progress;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Debug, thiserror::Error)]
pub enum FixError {
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

pub(crate) fn usage(s: impl Into<String>) -> FixError {
    FixError::Usage(s.into())
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FixError + '_ {
    move |source| FixError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Refuses outputs that are the input, inside it, or contain it, and non-empty directories
/// that are not the output of an earlier fix.
pub(crate) fn check_paths(input: &Path, out: &Path) -> Result<(), FixError> {
    let meta = std::fs::metadata(input).map_err(io(input))?;
    if !meta.is_dir() {
        return Err(usage(format!(
            "{}: fix repairs a dataset directory; pass the directory that holds the masks",
            input.display()
        )));
    }
    let inp = std::fs::canonicalize(input).map_err(io(input))?;
    if out.file_name().is_none() {
        return Err(usage("--out needs a directory name"));
    }
    let o = resolved(out).map_err(io(out))?;
    if o == inp || o.starts_with(&inp) || inp.starts_with(&o) {
        return Err(usage(format!(
            "--out {} overlaps the input {}: fix never writes in place; choose a new directory outside the dataset",
            out.display(),
            input.display()
        )));
    }
    if let Ok(mut entries) = std::fs::read_dir(out) {
        let (journal, manifest) = journal::paths(out);
        if entries.next().is_some() && !journal.exists() && !manifest.exists() {
            return Err(usage(format!(
                "--out {} is a non-empty directory that no earlier `labelguard fix` wrote; choose a new directory",
                out.display()
            )));
        }
    }
    Ok(())
}

/// `path` made absolute through its nearest existing ancestor (followed through symbolic
/// links), so that an output whose parents do not exist yet (they are created) is compared
/// with the input as it will be.
pub(crate) fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    let path = std::path::absolute(path)?;
    let mut rest = Vec::new();
    let mut at = path.as_path();
    loop {
        match std::fs::canonicalize(at) {
            Ok(real) => return Ok(rest.iter().rev().fold(real, |p, c| p.join(c))),
            Err(_) => match (at.parent(), at.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_os_string());
                    at = parent;
                }
                _ => return Ok(path),
            },
        }
    }
}

/// Where a file of the input is written: under the same relative path, except that a
/// Cityscapes `*_gtFine_labelIds.png` (or `gtCoarse`) turned into trainIds is named
/// `*_gtFine_labelTrainIds.png`, as cityscapesScripts' `createTrainIdLabelImgs.py` names it and
/// loaders look for it; not when the input already has that file.
pub fn output_rel(input: &Path, rel: &[u8], repairs: &[Repair]) -> Option<Vec<u8>> {
    if !repairs
        .iter()
        .any(|r| r.kind == RepairKind::CityscapesTrainIds)
    {
        return None;
    }
    let stem = ["_gtFine_labelIds.png", "_gtCoarse_labelIds.png"]
        .iter()
        .find_map(|suffix| rel.strip_suffix(suffix.as_bytes()).map(|s| (s, suffix)))?;
    let (base, suffix) = stem;
    let mut renamed = base.to_vec();
    renamed.extend_from_slice(suffix.replace("labelIds", "labelTrainIds").as_bytes());
    (!input.join(os_str_from_bytes(&renamed)).exists()).then_some(renamed)
}

/// The palette lookup for colour masks: class colours, then the void colours.
fn palette_map(opts: &ScanOptions) -> Option<ColourMap> {
    let p = opts.palette.as_ref()?;
    Some(ColourMap::new(
        p,
        &opts.void_colours,
        void_target(opts.ignore_index),
    ))
}

/// A fingerprint of the repairs of one file (empty for a copy).
fn fingerprint(repairs: &[Repair], fill: bool) -> String {
    if repairs.is_empty() {
        return String::new();
    }
    let text = serde_json::to_string(repairs).expect("repairs serialise");
    hash::hex(format!("{text}{fill}").as_bytes())
}

/// Files the scan's discovery treats as masks or id arrays (targets of `--map`).
fn mask_files(input: &Path, opts: &ScanOptions) -> BTreeSet<String> {
    let root = input.to_string_lossy().into_owned();
    match discover(&[input.to_path_buf()], opts) {
        Ok(d) => d
            .items
            .iter()
            .filter(|it| matches!(it.task, Task::Mask { .. } | Task::Array))
            .map(|it| relative(&root, &it.display))
            .collect(),
        Err(_) => BTreeSet::new(),
    }
}

/// One input file's outcome.
enum Done {
    Entry(Entry, bool),
    Left(LeftAlone, Option<Entry>),
}

impl Done {
    /// Records the name the output has when it is not the input's.
    fn written_as(mut self, name: Option<String>) -> Done {
        if let Done::Entry(e, _) | Done::Left(_, Some(e)) = &mut self {
            if e.action == Action::Repaired {
                e.written_as = name;
            }
        }
        self
    }
}

/// Runs the fix; `progress` is told about every file.
pub fn run(opts: &FixOptions, progress: &dyn Progress) -> Result<FixReport, FixError> {
    check_paths(&opts.input, &opts.out)?;
    let ctx = Ctx {
        max_pixels: opts.scan.max_pixels,
        palette: palette_map(&opts.scan),
        fill_artefacts: opts.fill_artefacts,
    };
    let masks = if opts.plan.every_mask.is_empty() {
        BTreeSet::new()
    } else {
        mask_files(&opts.input, &opts.scan)
    };
    let entries = walk(&opts.input, &[], &[]);
    let (journal_path, manifest_path) = journal::paths(&opts.out);
    let done = if opts.dry_run {
        BTreeMap::new()
    } else {
        journal::load(&journal_path, &manifest_path)
    };
    let journal = if opts.dry_run {
        None
    } else {
        std::fs::create_dir_all(&opts.out).map_err(io(&opts.out))?;
        atomic::remove_stale(&opts.out);
        Some(Journal::open(&journal_path).map_err(io(&journal_path))?)
    };
    let kill_after = labelguard_io::fault::kill_after();
    let written = AtomicUsize::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.scan.jobs.unwrap_or(0))
        .thread_name(|i| format!("labelguard-fix-{i}"))
        .build()
        .map_err(|e| usage(format!("cannot start worker threads: {e}")))?;
    progress.start(entries.len() as u64);
    let results: Vec<Result<Done, FixError>> = pool.install(|| {
        entries
            .par_iter()
            .map(|e| {
                let r = match &e.kind {
                    EntryKind::Problem(p) => Ok(Done::Left(
                        LeftAlone {
                            path: e.rel.clone(),
                            reason: p.message.clone(),
                            copied: false,
                        },
                        None,
                    )),
                    EntryKind::File => {
                        let repairs = opts.plan.repairs_for(&e.rel, masks.contains(&e.rel));
                        let renamed = output_rel(&opts.input, &e.rel_bytes, &repairs);
                        let rel_out = renamed.as_deref().unwrap_or(&e.rel_bytes);
                        let out = opts.out.join(os_str_from_bytes(rel_out));
                        let written_as = renamed
                            .as_deref()
                            .map(|r| String::from_utf8_lossy(r).into_owned());
                        let path = e.path().expect("a walked entry is on disk");
                        let r = one_file(path, &out, &e.rel, &repairs, &ctx, opts, &done);
                        r.map(|d| d.written_as(written_as))
                    }
                };
                if let (Ok(Done::Entry(entry, fresh)), Some(j)) = (&r, &journal) {
                    if *fresh {
                        j.record(entry).map_err(io(&journal_path))?;
                        let n = written.fetch_add(1, Ordering::SeqCst) + 1;
                        if kill_after == Some(n) {
                            // Testing aid: die like a killed job, with no cleanup at all.
                            std::process::abort();
                        }
                    }
                }
                if let (Ok(Done::Left(_, Some(entry))), Some(j)) = (&r, &journal) {
                    j.record(entry).map_err(io(&journal_path))?;
                }
                progress.inc();
                r
            })
            .collect()
    });
    progress.finish();
    let mut report = FixReport::new(opts);
    let mut files = Vec::new();
    for r in results {
        match r? {
            Done::Entry(e, fresh) => {
                report.resumed += u64::from(!fresh);
                files.push(e);
            }
            Done::Left(l, e) => {
                report.left_alone.push(l);
                files.extend(e);
            }
        }
    }
    for (path, codes) in &opts.plan.unrepairable {
        report.left_alone.push(LeftAlone {
            path: path.clone(),
            reason: format!("{}: no mechanical repair; fix the source", codes.join(", ")),
            copied: true,
        });
    }
    report.left_alone.sort_by(|a, b| a.path.cmp(&b.path));
    report
        .left_alone
        .dedup_by(|a, b| a.path == b.path && a.reason == b.reason);
    report.absorb(&files);
    // The repairs behind each fingerprint, for the manifest and for `--plan` to read back.
    for e in files.iter().filter(|e| !e.plan.is_empty()) {
        let repairs = opts.plan.repairs_for(&e.path, masks.contains(&e.path));
        let (_, acting) = split_report_only(&repairs, opts.fill_artefacts);
        report.plans.entry(e.plan.clone()).or_insert(acting);
    }
    if !opts.dry_run {
        let manifest = Manifest {
            schema: MANIFEST_SCHEMA.into(),
            schema_version: 1,
            hash: hash::ALGORITHM.into(),
            input: opts.input.to_string_lossy().into_owned(),
            output: opts.out.to_string_lossy().into_owned(),
            files,
            plans: report.plans.clone(),
            left_alone: report.left_alone.clone(),
        };
        let text = serde_json::to_string_pretty(&manifest).expect("the manifest serialises");
        atomic::write(&manifest_path, text.as_bytes()).map_err(io(&manifest_path))?;
        let _ = std::fs::remove_file(&journal_path);
        report.manifest = Some(manifest_path.to_string_lossy().into_owned());
        let (remaining, others) = rescan(opts, &report)?;
        report.remaining = Some(remaining);
        report.others = Some(others);
    }
    Ok(report)
}

#[allow(clippy::too_many_arguments)]
fn one_file(
    input: &Path,
    out: &Path,
    rel: &str,
    repairs: &[Repair],
    ctx: &Ctx,
    opts: &FixOptions,
    done: &BTreeMap<String, Entry>,
) -> Result<Done, FixError> {
    // Resize artefacts without the flag are only reported: the file is copied as it is.
    let (report_only, acting) = split_report_only(repairs, opts.fill_artefacts);
    if opts.dry_run && acting.is_empty() {
        // A copy: nothing to read to plan it.
        let copy = copy_entry(rel, String::new());
        return Ok(match report_only.first() {
            Some(r) => Done::Left(artefact_note(rel, r), Some(copy)),
            None => Done::Entry(copy, true),
        });
    }
    let bytes = std::fs::read(input).map_err(io(input))?;
    let input_hash = hash::hex(&bytes);
    let plan = fingerprint(&acting, opts.fill_artefacts);
    if let Some(prev) = done.get(rel) {
        if prev.input == input_hash
            && prev.plan == plan
            && std::fs::read(out).is_ok_and(|b| hash::hex(&b) == prev.output)
        {
            return Ok(match report_only.first() {
                Some(r) => Done::Left(artefact_note(rel, r), Some(prev.clone())),
                None => Done::Entry(prev.clone(), false),
            });
        }
    }
    let mut left = report_only.first().map(|r| artefact_note(rel, r));
    if !acting.is_empty() {
        match rewrite(&bytes, &acting, ctx) {
            Ok(rw) if !rw.changed => {} // nothing to move: copied byte for byte below
            Ok(rw) => {
                if !opts.dry_run {
                    atomic::write(out, &rw.bytes).map_err(io(out))?;
                }
                let entry = Entry {
                    path: rel.to_string(),
                    action: Action::Repaired,
                    input: input_hash,
                    output: hash::hex(&rw.bytes),
                    plan,
                    repairs: acting.iter().map(|r| r.kind.name().to_string()).collect(),
                    moved: rw.moved,
                    notes: rw.notes,
                    written_as: None,
                };
                return Ok(Done::Entry(entry, true));
            }
            Err(reason) => {
                left = Some(LeftAlone {
                    path: rel.to_string(),
                    reason: format!("not repaired ({}): {reason}", kinds(&acting)),
                    copied: true,
                });
            }
        }
    }
    if !opts.dry_run {
        atomic::write(out, &bytes).map_err(io(out))?;
    }
    let mut entry = copy_entry(rel, input_hash.clone());
    entry.output = input_hash;
    entry.plan = plan;
    Ok(match left {
        Some(l) => Done::Left(l, Some(entry)),
        None => Done::Entry(entry, true),
    })
}

/// Splits off the repairs that are only reported (resize artefacts without the fill flag)
/// from those that act: `(report_only, acting)`.
fn split_report_only(repairs: &[Repair], fill: bool) -> (Vec<Repair>, Vec<Repair>) {
    repairs
        .iter()
        .cloned()
        .partition(|r| r.kind == RepairKind::ResizeArtefacts && !fill)
}

fn kinds(repairs: &[Repair]) -> String {
    repairs
        .iter()
        .map(|r| r.kind.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn copy_entry(rel: &str, input: String) -> Entry {
    Entry {
        path: rel.to_string(),
        action: Action::Copied,
        input: input.clone(),
        output: input,
        plan: String::new(),
        repairs: Vec::new(),
        moved: Vec::new(),
        notes: Vec::new(),
        written_as: None,
    }
}

fn artefact_note(rel: &str, r: &Repair) -> LeftAlone {
    LeftAlone {
        path: rel.to_string(),
        reason: format!(
            "resize artefacts (ids {}): not guessed; re-export this mask with nearest-neighbour resizing, or rerun with --fill-resize-artefacts (an approximation)",
            r.values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        copied: true,
    }
}

/// Scans the output with the same settings: the error findings of the rules whose repairs
/// were applied (what remains to do), and every other error finding (what fix does not repair).
fn rescan(
    opts: &FixOptions,
    report: &FixReport,
) -> Result<(Vec<Remaining>, Vec<Remaining>), FixError> {
    let codes: BTreeSet<&str> = report.repaired_rules.iter().map(String::as_str).collect();
    let mut scan_opts = opts.scan.clone();
    scan_opts.shard = None;
    scan_opts.overlays = false;
    let out = labelguard_scan::scan(
        std::slice::from_ref(&opts.out),
        &scan_opts,
        &labelguard_scan::progress::Silent,
    )
    .map_err(|e| usage(format!("re-scan of the output: {e}")))?;
    let root = opts.out.to_string_lossy().into_owned();
    let errors = out
        .files
        .iter()
        .flat_map(|f| f.findings.iter())
        .chain(&out.dataset)
        .chain(out.datasets.iter().flat_map(|d| &d.dataset))
        .filter(|f| f.finding.severity == labelguard_core::Severity::Error)
        .map(|f| Remaining {
            path: f
                .path
                .as_deref()
                .map(|p| relative(&root, p))
                .unwrap_or_default(),
            code: f.finding.code.to_string(),
            message: f.finding.message.clone(),
        });
    Ok(errors.partition(|r| codes.contains(r.code.as_str())))
}
