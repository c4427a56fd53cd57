//! `scan` tells the whole truth (issue 9), the parts that are files rather than a terminal's
//! output: the HTML report (unreadable files first, readable and bounded) and the quick start's
//! output kept as a snapshot that names every planted defect. The rest of the issue's truths are
//! cases: tests/cmd/scan/truth_*.

mod scan_common;
use scan_common::*;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The HTML renderer puts the unreadable file first too (the other renderers:
/// tests/cmd/scan/truth_unreadable_first.trycmd, whose input this scans).
#[test]
fn unreadable_files_come_first_in_the_html_report() {
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd/scan/truth_unreadable_first.in");
    let out = tempfile::tempdir().unwrap();
    let html_path = out.path().join("r.html");
    let o = run_in(
        &case,
        &[
            "scan",
            "m",
            "--num-classes",
            "5",
            "--html",
            html_path.to_str().unwrap(),
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let html = std::fs::read_to_string(&html_path).unwrap();
    let h = |needle: &str| html.find(needle).unwrap();
    assert!(h("m/zz_truncated.png") < h("m/a00.png"));
}

#[test]
fn html_report_is_readable_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        put(
            dir.path(),
            &format!("m/a{i}.png"),
            &png_gray8(16, 8, &scene(16, 8, &[0, 1, 255], 9)),
        );
    }
    let html_path = dir.path().join("r.html");
    run_in(
        dir.path(),
        &[
            "scan",
            "m",
            "--num-classes",
            "3",
            "--ignore-index",
            "255",
            "--html",
            html_path.to_str().unwrap(),
        ],
    );
    let html = std::fs::read_to_string(&html_path).unwrap();
    // A 16x8 mask's picture is shown 384 pixels wide, nearest-neighbour.
    assert!(
        html.contains("class=\"overlay\" width=\"384\" height=\"192\""),
        "{html}"
    );
    assert!(html.contains("image-rendering:pixelated"));
    // Findings before the histogram; the ignore row is in the chart; no raw backticks.
    assert!(html.find("Files with findings").unwrap() < html.find("Class histogram").unwrap());
    assert!(html.contains("255 (ignore)"), "{html}");
    assert!(!html.contains('`'), "raw backticks");
}

/// The quick start's scan: its text output is kept in the repo, and it names every defect
/// that examples/cityscapes-mini/DEFECTS.md lists. UPDATE_SNAPSHOTS=1 rewrites the snapshot.
#[test]
fn quick_start_scan_matches_its_snapshot_and_names_every_planted_defect() {
    let root = repo_root();
    let o = run_in(
        &root,
        &["scan", "examples/cityscapes-mini", "--preset", "cityscapes"],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = stdout(&o);
    let snap = root.join("tests/snapshots/quickstart-scan.txt");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(snap.parent().unwrap()).unwrap();
        std::fs::write(&snap, &text).unwrap();
    }
    let want = std::fs::read_to_string(&snap).expect("tests/snapshots/quickstart-scan.txt");
    // The README's quick start runs this very scan, through cargo without -q, so that a first
    // build shows its progress.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let quick = readme
        .split_once("## Quick start")
        .and_then(|(_, r)| r.split_once("```sh\n"))
        .and_then(|(_, r)| r.split_once("```"))
        .expect("the README has a quick start")
        .0;
    assert_eq!(
        quick,
        "cargo run --release -p labelguard-cli -- scan examples/cityscapes-mini --preset cityscapes\nmake test\n"
    );
    assert!(
        text == want,
        "the quick start's output changed; rerun with UPDATE_SNAPSHOTS=1 if intended:\n{text}"
    );
    let defects =
        std::fs::read_to_string(root.join("examples/cityscapes-mini/DEFECTS.md")).unwrap();
    let mut checked = 0;
    for line in defects.lines().filter(|l| l.starts_with("- `")) {
        let (path, rest) = line[3..].split_once("`: ").unwrap();
        let codes: Vec<&str> = rest
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() == 5 && w.starts_with("LG"))
            .collect();
        assert!(!codes.is_empty(), "{line}");
        // The block of that file (or of the dataset findings) in the text report.
        let full = format!("examples/cityscapes-mini/{path}");
        let start = text
            .lines()
            .position(|l| {
                if path == "(dataset)" {
                    l == "Dataset"
                } else {
                    l == full || l.starts_with(&format!("{full}  "))
                }
            })
            .unwrap_or_else(|| panic!("{path} is not in the quick start's output"));
        let block: String = text
            .lines()
            .skip(start + 1)
            .take_while(|l| l.starts_with("  "))
            .collect::<Vec<_>>()
            .join("\n");
        for c in codes {
            assert!(
                block.contains(&format!("[{c}]")),
                "{path}: {c} missing in\n{block}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 25, "{checked}");
}
