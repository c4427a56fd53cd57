//! The fix of one COCO file: planned, rewritten, read back and re-scanned.

use super::*;

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

pub(super) fn run_coco(
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
