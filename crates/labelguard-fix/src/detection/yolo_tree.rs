//! The fix of a YOLO tree: every label file remapped by the table, the images linked, the new
//! data.yaml written, read back and re-scanned.

use super::*;
use labelguard_formats::source::Source;

/// One label file planned: its path and what its lines become.
struct Planned {
    rel: String,
    path: PathBuf,
}

pub(super) fn run_yolo(
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
            path: e.path().expect("a walked entry is on disk").to_path_buf(),
            rel: e.rel,
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
            labelguard_io::portable::symlink_dir(to, at).map_err(io(at))?;
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
    let names = match labelguard_formats::read::data_yaml::DataYaml::read(&Source::File(
        yaml.to_path_buf(),
    )) {
        Ok(d) => d.names,
        Err(p) => {
            let f = labelguard_scan::checks::data_yaml::finding(p);
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
