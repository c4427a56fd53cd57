//! `labelguard fix` on detection labels through the binary: Python reads a COCO output,
//! refusals leave no temporary, a YOLO tree is remapped by a table; both resume after a kill to the
//! same bytes as an uninterrupted run and never write over their input. (The COCO ids made
//! contiguous, byte for byte, and the refusals are cases: tests/cmd/fix/coco_*.)

mod scan_common;
use scan_common::coco::{coco, write_coco};
use scan_common::{code, stderr, tree};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Output;

fn fix(dir: &Path, args: &[&str], kill_after: Option<usize>) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_labelguard"));
    cmd.arg("fix")
        .args(args)
        .args(["--quiet", "--no-config"])
        .current_dir(dir)
        .env("NO_COLOR", "1");
    match kill_after {
        Some(n) => cmd.env("LABELGUARD_FIX_KILL_AFTER", n.to_string()),
        None => cmd.env_remove("LABELGUARD_FIX_KILL_AFTER"),
    };
    cmd.output().expect("runs")
}

fn report(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn python_reads_the_output() {
    let python = Path::new("/work/main/.venv/bin/python");
    if !python.exists() {
        eprintln!("skipped: no {}", python.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_coco(dir.path(), "in.json", &coco(false));
    let o = fix(dir.path(), &["in.json", "--out", "out.json"], None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let check = std::process::Command::new(python)
        .args([
            "-c",
            "import json,sys; d=json.load(open('out.json')); ids=sorted(c['id'] for c in d['categories']); \
             assert ids==list(range(1,81)), ids; assert all(a['category_id'] in ids for a in d['annotations']); print('ok')",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

/// What a case cannot hold or see (the refusals themselves: tests/cmd/fix/coco_refusals): a
/// link to the input is the input, and a truncated file leaves no temporary behind.
#[test]
fn a_link_to_the_input_and_a_truncated_file_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bytes = write_coco(d, "in.json", &coco(false));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(d.join("in.json"), d.join("link.json")).unwrap();
        let o = fix(d, &["in.json", "--out", "link.json"], None);
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        assert_eq!(std::fs::read(d.join("in.json")).unwrap(), bytes);
    }
    std::fs::write(d.join("cut.json"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::create_dir(d.join("c")).unwrap();
    let o = fix(d, &["cut.json", "--out", "c/cut.json"], None);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("truncated"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(d.join("c")).unwrap().count(), 0);
}

#[test]
fn a_killed_coco_run_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_coco(d, "in.json", &coco(false));
    let whole = fix(d, &["in.json", "--out", "whole.json"], None);
    assert_eq!(code(&whole), 0, "{}", stderr(&whole));
    let killed = fix(d, &["in.json", "--out", "resumed.json"], Some(1));
    assert!(!killed.status.success());
    assert!(d.join("resumed.json.fix-journal.jsonl").exists());
    assert!(!d.join("resumed.json.fix-manifest.json").exists());
    let again = fix(
        d,
        &["in.json", "--out", "resumed.json", "--format", "json"],
        None,
    );
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert_eq!(report(&again)["resumed"], 1);
    assert_eq!(
        std::fs::read(d.join("resumed.json")).unwrap(),
        std::fs::read(d.join("whole.json")).unwrap()
    );
    assert!(!d.join("resumed.json.fix-journal.jsonl").exists());
    // A damaged output is redone, not kept; a temporary a kill left mid-write is removed.
    std::fs::write(d.join(".resumed.json.labelguard-1-0.tmp"), b"{\"half").unwrap();
    std::fs::write(d.join("resumed.json"), b"{}").unwrap();
    let again = fix(
        d,
        &["in.json", "--out", "resumed.json", "--format", "json"],
        None,
    );
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert_eq!(report(&again)["resumed"], 0);
    assert_eq!(
        std::fs::read(d.join("resumed.json")).unwrap(),
        std::fs::read(d.join("whole.json")).unwrap()
    );
    assert!(!d.join(".resumed.json.labelguard-1-0.tmp").exists());
}

/// A YOLO tree: 30 label files of classes 2, 5, 9 and 11, data.yaml with 12 names.
fn yolo(root: &Path) {
    for k in 0..30 {
        let split = if k % 3 == 0 { "val" } else { "train" };
        let mut text = String::new();
        for j in 0..(k % 4) {
            let c = [2, 5, 9, 11][(k + j) % 4];
            text.push_str(&format!("{c} 0.{k}5 0.5{j} 0.125 0.0625\n"));
        }
        let p = root.join(format!("labels/{split}/{k:04}.txt"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        let img = root.join(format!("images/{split}/{k:04}.jpg"));
        std::fs::create_dir_all(img.parent().unwrap()).unwrap();
        std::fs::write(img, b"\xff\xd8").unwrap();
    }
    std::fs::write(root.join("labels/train.cache"), b"stale").unwrap();
    let names: Vec<String> = (0..12).map(|i| format!("  {i}: n{i}")).collect();
    std::fs::write(
        root.join("data.yaml"),
        format!(
            "path: .\ntrain: images/train\nval: images/val\nnames:\n{}\n",
            names.join("\n")
        ),
    )
    .unwrap();
}

#[test]
fn yolo_ids_remap_by_the_table_and_resume_after_a_kill() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    yolo(&d.join("data"));
    let input = tree(&d.join("data"));
    std::fs::write(d.join("t.map"), "2 0\n5 1\n9 drop\n11 2\n").unwrap();
    let args = |out: &'static str| {
        [
            "data",
            "--out",
            out,
            "--map-classes",
            "t.map",
            "-j",
            "2",
            "--format",
            "json",
        ]
    };
    // A dry run counts and writes nothing.
    let dry = fix(
        d,
        &[
            "data",
            "--out",
            "dry",
            "--map-classes",
            "t.map",
            "--dry-run",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    assert_eq!(report(&dry)["problems"], Value::Null);
    assert!(report(&dry)["dropped"].as_u64().unwrap() > 0);
    assert!(!d.join("dry").exists());
    let whole = fix(d, &args("whole"), None);
    assert_eq!(code(&whole), 0, "{}", stderr(&whole));
    let r = report(&whole);
    assert_eq!(r["problems"], json!([]));
    assert_eq!(r["files"], 30);
    assert_eq!(r["old_to_new"]["9"], Value::Null);
    let out = tree(&d.join("whole"));
    // Labels and data.yaml, and the images linked (not copied) so that the new tree trains
    // and re-scans as it is; no stale cache.
    let link = std::fs::symlink_metadata(d.join("whole/images")).unwrap();
    assert!(link.file_type().is_symlink());
    assert_eq!(out.keys().filter(|p| !p.starts_with("images")).count(), 31);
    for (p, bytes) in &input {
        let Some(new) = out.get(p) else { continue };
        if p.starts_with("labels") {
            let want: String = String::from_utf8_lossy(bytes)
                .lines()
                .filter(|l| !l.starts_with("9 "))
                .map(|l| {
                    let (c, rest) = l.split_once(' ').unwrap();
                    let c = match c {
                        "2" => "0",
                        "5" => "1",
                        "11" => "2",
                        x => panic!("{x}"),
                    };
                    format!("{c} {rest}\n")
                })
                .collect();
            assert_eq!(String::from_utf8_lossy(new), want, "{}", p.display());
        }
    }
    let yaml = String::from_utf8_lossy(&out[Path::new("data.yaml")]).into_owned();
    assert!(
        yaml.contains("train: images/train\n") && yaml.contains("nc: 3\n"),
        "{yaml}"
    );
    assert!(
        yaml.contains("0: \"n2\"\n  1: \"n5\"\n  2: \"n11\"\n"),
        "{yaml}"
    );
    // Killed after 10 files: only whole files, then a rerun finishes to the same tree.
    let killed = fix(d, &args("resumed"), Some(10));
    assert!(!killed.status.success());
    assert!(d.join("resumed.fix-journal.jsonl").exists());
    let again = fix(d, &args("resumed"), None);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    assert!(report(&again)["resumed"].as_u64().unwrap() >= 10);
    assert_eq!(tree(&d.join("resumed")), out);
    assert_eq!(tree(&d.join("data")), input, "the input is unchanged");
    // A table that leaves a class out refuses before writing; so does an output inside the input.
    std::fs::write(d.join("short.map"), "2 0\n5 1\n").unwrap();
    let o = fix(
        d,
        &["data", "--out", "short", "--map-classes", "short.map"],
        None,
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("9 (") && stderr(&o).contains("11 ("),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("short").exists());
    let o = fix(
        d,
        &["data", "--out", "data/fixed", "--map-classes", "t.map"],
        None,
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(tree(&d.join("data")), input);
}
