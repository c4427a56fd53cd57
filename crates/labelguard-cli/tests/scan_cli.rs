//! `labelguard scan` and `labelguard merge` writing files: the output files are written whole and
//! the inputs left untouched (the calls, exit codes, formats and config file: tests/cmd/scan).

mod scan_common;
use scan_common::*;

#[test]
fn output_files_are_written_whole_and_inputs_untouched() {
    let dir = tempfile::tempdir().unwrap();
    make_data(dir.path());
    let before: Vec<(std::path::PathBuf, Vec<u8>)> = walk(&dir.path().join("DATA"));
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "DATA",
            "--preset",
            "cityscapes",
            "--no-config",
            "--format",
            "json",
            "-o",
            "out/report.json",
            "--html",
            "report.html",
            "--write-weights",
            "w.json",
            "--quiet",
        ],
    );
    // The output directory does not exist: an I/O error, exit 2, and no partial file.
    assert_eq!(code(&o), 2);
    assert!(!dir.path().join("out").exists());
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "DATA",
            "--preset",
            "cityscapes",
            "--no-config",
            "--format",
            "json",
            "-o",
            "out/report.json",
            "--html",
            "report.html",
            "--write-weights",
            "w.json",
            "--quiet",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stdout(&o).is_empty() && stderr(&o).is_empty(),
        "quiet and -o: nothing on the terminal"
    );
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/report.json")).unwrap())
            .unwrap();
    assert_eq!(r["summary"]["status"], "errors");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(
        html.contains("<svg") && html.contains("data:image/png;base64,") && html.contains("LG105")
    );
    assert!(
        !html.contains("<script") && !html.contains("src=\"http") && !html.contains("<link"),
        "self-contained"
    );
    let w: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("w.json")).unwrap()).unwrap();
    assert_eq!(w["weights"].as_array().unwrap().len(), 19);
    assert_eq!(w["method"], "median_frequency");
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "DATA",
            "--preset",
            "cityscapes",
            "--no-config",
            "--write-weights",
            "w.py",
            "--weights-method",
            "enet",
            "-q",
        ],
    );
    assert_eq!(code(&o), 1);
    assert_eq!(
        stdout(&o).lines().count(),
        1,
        "quiet text: the verdict line only"
    );
    let py = std::fs::read_to_string(dir.path().join("w.py")).unwrap();
    assert!(
        py.contains("class_weights = [") && py.contains("1 / ln(1.02"),
        "{py}"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
    assert_eq!(
        before,
        walk(&dir.path().join("DATA")),
        "inputs are never modified"
    );
}

fn walk(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push((p.clone(), std::fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}
