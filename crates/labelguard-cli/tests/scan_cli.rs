//! `labelguard scan` and `labelguard merge` as users call them: the issue's three calls,
//! exit codes, every output format, the output files, the config file.

mod scan_common;
use scan_common::*;

#[test]
fn the_three_calls_of_the_issue_work_as_written() {
    let dir = tempfile::tempdir().unwrap();
    make_data(dir.path());

    let o = run_in(
        dir.path(),
        &["scan", "DATA", "--preset", "cityscapes", "--format", "json"],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json(&o);
    assert_eq!(r["schema_version"], 1);
    assert_eq!(r["settings"]["layouts"][0], "cityscapes");
    // DATA holds two datasets: the Cityscapes tree and DATA/arrays, each scanned.
    assert_eq!(r["settings"]["layouts"][1], "files");
    assert_eq!(r["summary"]["files_scanned"], 11);
    assert_eq!(r["datasets"][0]["summary"]["files_scanned"], 8);
    let f = findings_of(&r, "aachen_000009_000019_gtFine_labelIds.png");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0]["code"], "LG105");
    assert_eq!(f[0]["severity"], "error");
    assert!(f[0]["fix"].as_str().unwrap().contains("labelTrainIds"));
    assert_eq!(f[0]["locations"][0]["index"], serde_json::json!([0, 0]));
    assert_eq!(f[0]["locations"][0]["value"], "23");
    let f = findings_of(&r, "lindau_000009_000019_gtFine_labelTrainIds.png");
    assert_eq!(f[0]["code"], "LG101");
    assert_eq!(f[0]["locations"][0]["index"], serde_json::json!([10, 21]));
    // The histogram counts every class, with names from the preset.
    let classes = r["datasets"][0]["histogram"]["classes"].as_array().unwrap();
    assert_eq!(classes[0]["name"], "road");
    assert!(classes
        .iter()
        .any(|c| c["id"] == 255 && c["role"] == "ignore"));
    assert_eq!(
        r["datasets"][0]["weights"]["suggestions"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let o = run_in(
        dir.path(),
        &[
            "scan",
            "DATA/arrays",
            "--num-classes",
            "19",
            "--ignore-index",
            "255",
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json(&o);
    assert!(findings_of(&r, "clean.npy").is_empty());
    assert_eq!(findings_of(&r, "channel.npy")[0]["code"], "LG203");
    let mut st: Vec<String> = findings_of(&r, "labels.safetensors")
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    st.sort();
    assert_eq!(st, vec!["LG101", "LG107"]);

    let o = run_in(
        dir.path(),
        &[
            "scan",
            "labels.csv",
            "--num-classes",
            "10",
            "--label-column",
            "label",
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json(&o);
    let f = findings_of(&r, "labels.csv");
    assert_eq!(f[0]["code"], "LG101");
    assert_eq!(f[0]["locations"][0]["index"], serde_json::json!([20]));
    assert_eq!(r["histogram"]["unit"], "samples");
}

#[test]
fn exit_codes_follow_the_convention() {
    let dir = tempfile::tempdir().unwrap();
    cityscapes(&dir.path().join("ok"), 2);
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "ok",
            "--preset",
            "cityscapes",
            "--no-config",
            "--imbalance-ratio",
            "1000000",
        ],
    );
    // Clean masks; classes never seen are warnings: exit 0, and 1 with --strict.
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("LG609"));
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "ok",
            "--preset",
            "cityscapes",
            "--strict",
            "--no-config",
        ],
    );
    assert_eq!(code(&o), 1);
    for bad in [
        vec!["scan", "missing-dir", "--num-classes", "3"],
        vec!["scan", "ok", "--preset", "coco"],
        vec!["scan", "ok", "--shard", "0/2"],
        vec!["scan", "ok", "--num-classes", "0"],
        vec!["scan", "ok", "--layout", "custom"],
        vec!["merge", "nothing.json"],
    ] {
        let o = run_in(dir.path(), &bad);
        assert_eq!(code(&o), 2, "{bad:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("error"), "{bad:?}");
    }
    // An empty directory: nothing to scan is a usage error.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    assert_eq!(
        code(&run_in(
            dir.path(),
            &["scan", "empty", "--num-classes", "2"]
        )),
        2
    );
}

#[test]
fn every_output_format_renders_the_same_findings() {
    let dir = tempfile::tempdir().unwrap();
    make_data(dir.path());
    let args = |f: &str| {
        vec![
            "scan",
            "DATA",
            "--preset",
            "cityscapes",
            "--no-config",
            "--format",
            f.to_string().leak(),
        ]
    };
    let text = stdout(&run_in(dir.path(), &args("text")));
    assert!(
        text.contains("Findings by rule")
            && text.contains("LG105")
            && text.contains("Class histogram"),
        "{text}"
    );
    assert!(text.contains("road") && text.contains('█'));
    assert!(
        text.lines().last().unwrap().starts_with("errors: 5 errors"),
        "{text}"
    );

    let sarif: serde_json::Value =
        serde_json::from_str(&stdout(&run_in(dir.path(), &args("sarif")))).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results
        .iter()
        .any(|r| r["ruleId"] == "LG105" && r["level"] == "error"));
    let uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap();
    assert!(uri.starts_with("DATA/"), "{uri}");
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert!(rules.iter().any(|r| r["id"] == "LG105"
        && r["fullDescription"]["text"]
            .as_str()
            .unwrap()
            .contains("trainIds")));

    let junit = stdout(&run_in(dir.path(), &args("junit")));
    assert!(junit.starts_with("<?xml"));
    assert!(junit.contains("<failure type=\"LG105\""));
    assert!(junit.contains("failures=\"4\""), "{junit}");

    let gh = stdout(&run_in(dir.path(), &args("github")));
    assert!(gh.lines().any(|l| l.starts_with("::error file=DATA/gtFine/train/aachen/aachen_000009_000019_gtFine_labelIds.png,title=LG105 cityscapes-label-ids::")), "{gh}");
    assert!(
        gh.lines().any(|l| l.starts_with("::warning title=LG609")),
        "{gh}"
    );
}

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

#[test]
fn the_config_file_is_found_and_overridden_by_flags() {
    let dir = tempfile::tempdir().unwrap();
    make_data(dir.path());
    // pyproject.toml beside the data: 19 classes and ignore 255 for the arrays.
    put(dir.path(), "pyproject.toml", b"[project]\nname = \"x\"\n[tool.labelguard]\nnum_classes = 19\nignore_index = 255\n[tool.labelguard.scan]\nexclude = [\"channel.npy\"]\n");
    let o = run_in(dir.path(), &["scan", "DATA/arrays", "--format", "json"]);
    let r = json(&o);
    assert_eq!(r["settings"]["num_classes"], 19);
    assert!(
        findings_of(&r, "channel.npy").is_empty(),
        "excluded by the config"
    );
    assert_eq!(findings_of(&r, "labels.safetensors").len(), 2);
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "DATA/arrays",
            "--format",
            "json",
            "--ignore-index",
            "-1",
        ],
    );
    let r = json(&o);
    assert_eq!(r["settings"]["ignore_index"], -1);
    assert_eq!(
        findings_of(&r, "labels.safetensors").len(),
        1,
        "-1 is now ignored"
    );
    put(
        dir.path(),
        "DATA/labelguard.toml",
        b"[scan]\nnum_clases = 3\n",
    );
    let o = run_in(dir.path(), &["scan", "DATA/arrays"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("num_clases"));
}

#[test]
fn progress_goes_to_stderr_only_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    cityscapes(&dir.path().join("d"), 2);
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "d",
            "--preset",
            "cityscapes",
            "--no-config",
            "--jobs",
            "2",
        ],
    );
    assert!(
        stderr(&o).is_empty(),
        "no bar when stderr is a pipe: {}",
        stderr(&o)
    );
}

#[test]
fn a_scan_of_one_mask_file_adds_no_dataset_findings() {
    // Classes 0 and 1 of 19 in one mask: a dataset of these masks would lack 17 classes, but
    // one file is not the dataset.
    let dir = tempfile::tempdir().unwrap();
    let ids: Vec<u8> = (0..64 * 64).map(|i| u8::from(i == 0)).collect();
    put(dir.path(), "m/a.png", &png_gray8(64, 64, &ids));
    let args = |root: &str| {
        [
            "scan",
            root,
            "--num-classes",
            "19",
            "--no-config",
            "--format",
            "json",
        ]
        .map(String::from)
    };
    let one = run_in(dir.path(), &args("m/a.png").each_ref().map(String::as_str));
    assert_eq!(code(&one), 0, "{}", stdout(&one));
    assert_eq!(json(&one)["dataset"], serde_json::json!([]));
    // The folder that holds it is a dataset: LG609 is found.
    let folder = run_in(dir.path(), &args("m").each_ref().map(String::as_str));
    let codes: Vec<String> = json(&folder)["dataset"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes, ["LG609"], "{}", stdout(&folder));
}
