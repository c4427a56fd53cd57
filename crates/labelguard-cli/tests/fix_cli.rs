//! `labelguard fix` through the binary: a run killed midway and restarted gives the same
//! output as an uninterrupted run; reruns verify what is there; plans from a scan report and
//! from --map; the input is never modified. (A labelIds tree fixed under new parents and the
//! errors fix cannot repair are cases: tests/cmd/fix/label_ids_*.)

mod scan_common;
use scan_common::*;
use std::path::Path;

use labelguard_formats::fixtures::tree;

/// 40 masks, every fourth with labelIds, plus images.
fn dataset(root: &Path) {
    cityscapes(root, 20);
    for i in 0..10 {
        let m = scene(64, 32, &[7, 26, 11, 0], 24);
        put(
            root,
            &format!(
                "gtFine/train/aachen/aachen_{:06}_000019_gtFine_labelIds.png",
                100 + i
            ),
            &png_gray8(64, 32, &m),
        );
    }
}

fn fix_in(dir: &Path, out: &str, kill_after: Option<usize>) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_labelguard"));
    cmd.args(fix_args(out, &["-j", "2", "--format", "json"]))
        .current_dir(dir)
        .env("NO_COLOR", "1");
    match kill_after {
        Some(n) => cmd.env("LABELGUARD_FIX_KILL_AFTER", n.to_string()),
        None => cmd.env_remove("LABELGUARD_FIX_KILL_AFTER"),
    };
    cmd.output().expect("runs")
}

#[test]
fn a_killed_run_resumes_to_the_same_output_as_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    dataset(&dir.path().join("data"));
    let input = tree(&dir.path().join("data"));
    let whole = fix_in(dir.path(), "whole", None);
    assert_eq!(code(&whole), 0, "{}", stderr(&whole));
    // Killed after 12 files: only whole files are there, and no manifest yet.
    let killed = fix_in(dir.path(), "resumed", Some(12));
    assert!(!killed.status.success(), "the run was killed");
    assert!(!dir.path().join("resumed.fix-manifest.json").exists());
    assert!(dir.path().join("resumed.fix-journal.jsonl").exists());
    let partial = tree(&dir.path().join("resumed"));
    assert!(
        partial.len() >= 12 && partial.len() < input.len(),
        "{}",
        partial.len()
    );
    let again = fix_in(dir.path(), "resumed", None);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    let report = json(&again);
    assert!(report["resumed"].as_u64().unwrap() >= 12, "{report}");
    assert_eq!(
        tree(&dir.path().join("resumed")),
        tree(&dir.path().join("whole"))
    );
    assert_eq!(
        tree(&dir.path().join("data")),
        input,
        "the input is unchanged"
    );
    assert!(!dir.path().join("resumed.fix-journal.jsonl").exists());
    // The manifest maps every input hash to its output hash.
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("whole.fix-manifest.json")).unwrap())
            .unwrap();
    let files = m["files"].as_array().unwrap();
    assert_eq!(files.len(), input.len());
    let repaired: Vec<_> = files.iter().filter(|f| f["action"] == "repaired").collect();
    assert_eq!(repaired.len(), 10);
    assert!(repaired
        .iter()
        .all(|f| f["input"] != f["output"] && f["repairs"][0] == "cityscapes_train_ids"));
}

#[test]
fn a_rerun_verifies_outputs_and_redoes_damaged_ones() {
    let dir = tempfile::tempdir().unwrap();
    dataset(&dir.path().join("data"));
    assert_eq!(code(&fix_in(dir.path(), "out", None)), 0);
    let good = tree(&dir.path().join("out"));
    let victim = dir
        .path()
        .join("out/gtFine/train/aachen/aachen_000100_000019_gtFine_labelTrainIds.png");
    std::fs::write(&victim, b"damaged").unwrap();
    let o = fix_in(dir.path(), "out", None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        json(&o)["resumed"].as_u64().unwrap() as usize,
        good.len() - 1
    );
    assert_eq!(tree(&dir.path().join("out")), good);
}

#[test]
fn plans_come_from_a_scan_report_or_a_map_and_dry_runs_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    dataset(&dir.path().join("data"));
    let scan = run_in(
        dir.path(),
        &[
            "scan",
            "data",
            "--preset",
            "cityscapes",
            "--format",
            "json",
            "--no-config",
            "-o",
            "scan.json",
        ],
    );
    assert_eq!(code(&scan), 1);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("scan.json")).unwrap()).unwrap();
    let f = &findings_of(&report, "aachen_000100_000019_gtFine_labelIds.png")[0];
    assert_eq!(f["repair"]["kind"], "cityscapes_train_ids");
    assert!(f["repair"]["map"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p[0] == 26 && p[1] == 13));
    let dry = run_in(
        dir.path(),
        &[
            "fix",
            "data",
            "--out",
            "planned",
            "--plan",
            "scan.json",
            "--preset",
            "cityscapes",
            "--no-config",
            "--dry-run",
        ],
    );
    assert_eq!(code(&dry), 0, "{}", stderr(&dry));
    assert!(stdout(&dry).contains("26 -> 13"), "{}", stdout(&dry));
    assert!(!dir.path().join("planned").exists());
    let o = run_in(
        dir.path(),
        &[
            "fix",
            "data",
            "--out",
            "planned",
            "--plan",
            "scan.json",
            "--preset",
            "cityscapes",
            "--no-config",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let rescan = run_in(
        dir.path(),
        &[
            "scan",
            "planned",
            "--preset",
            "cityscapes",
            "--format",
            "json",
            "--no-config",
        ],
    );
    assert_eq!(code(&rescan), 0, "{}", stdout(&rescan));
    // The dry run's JSON is a plan too: it gives the same output.
    let dry = run_in(
        dir.path(),
        &[
            "fix",
            "data",
            "--out",
            "x",
            "--preset",
            "cityscapes",
            "--no-config",
            "--dry-run",
            "--format",
            "json",
            "-q",
        ],
    );
    std::fs::write(dir.path().join("plan.json"), stdout(&dry)).unwrap();
    let o = run_in(
        dir.path(),
        &[
            "fix",
            "data",
            "--out",
            "replanned",
            "--plan",
            "plan.json",
            "--preset",
            "cityscapes",
            "--no-config",
        ],
    );
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        tree(&dir.path().join("replanned")),
        tree(&dir.path().join("planned"))
    );
    // --map: 0 -> 1 in every mask, counted.
    let o = run_in(
        dir.path(),
        &[
            "fix",
            "data",
            "--out",
            "mapped",
            "--map",
            "0:1",
            "--no-config",
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(
        r["files"].as_array().unwrap().len(),
        50,
        "every mask has 0s"
    );
    assert_eq!(r["totals"][0]["from"], 0);
    // An output inside the input is refused: tests/cmd/fix/refused_output_inside_input.toml.
}

/// `fix data --out OUT --preset cityscapes --no-config EXTRA...`
fn fix_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "fix",
        "data",
        "--out",
        out,
        "--preset",
        "cityscapes",
        "--no-config",
    ];
    args.extend_from_slice(extra);
    args
}
