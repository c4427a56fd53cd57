//! `scan` tells the whole truth (issue 9): every dataset under a parent folder is scanned and
//! reported, `ok` only when the class range was checked, unreadable files first, the fix of
//! the cause, one finding for a binary 0/255 dataset, and the quick start's output kept as a
//! snapshot. Every dataset is built here, in code.

mod scan_common;
use scan_common::*;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A parent folder holding a VOC tree, an ADE20K tree, a folder of binary masks, an
/// ImageFolder tree, a loose array, a label table and a corrupt mask.
fn make_parent(root: &Path) -> usize {
    let mut label_files = 0;
    for i in 0..4 {
        let mut m = scene(48, 32, &[0, (i % 20 + 1) as u8], 15);
        m[0] = 255;
        put(
            root,
            &format!("VOC2012/SegmentationClass/2007_{i:06}.png"),
            &png_gray8(48, 32, &m),
        );
        put(
            root,
            &format!("VOC2012/JPEGImages/2007_{i:06}.jpg"),
            &jpeg_stub(48, 32),
        );
        label_files += 1;
    }
    for split in ["training", "validation"] {
        for i in 0..3 {
            let m = scene(48, 32, &[0, 1 + i as u8, 7], 150);
            put(
                root,
                &format!("ADEChallengeData2016/annotations/{split}/ADE_{split}_{i}.png"),
                &png_gray8(48, 32, &m),
            );
            put(
                root,
                &format!("ADEChallengeData2016/images/{split}/ADE_{split}_{i}.jpg"),
                &jpeg_stub(48, 32),
            );
            label_files += 1;
        }
    }
    for i in 0..6 {
        put(
            root,
            &format!("binary/mask_{i}.png"),
            &png_gray8(32, 32, &scene(32, 32, &[0], 255)),
        );
        label_files += 1;
    }
    for split in ["train", "val"] {
        for class in ["cat", "dog"] {
            for i in 0..2 {
                put(
                    root,
                    &format!("pets/{split}/{class}/{i}.jpg"),
                    &jpeg_stub(16, 16),
                );
                label_files += 1;
            }
        }
    }
    let ids: Vec<u8> = [0i64, 1, 2, 21, 255, 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    put(root, "batch.npy", &npy("<i8", &[2, 3], &ids));
    put(
        root,
        "labels.csv",
        b"path,label\na.jpg,0\nb.jpg,1\nc.jpg,5\n",
    );
    put(root, "zz_broken.png", b"\x89PNG\r\n\x1a\nxx");
    label_files + 3
}

#[test]
fn every_dataset_under_a_parent_is_scanned_and_reported_on_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let total = make_parent(dir.path());
    let o = run_in(dir.path(), &["scan", ".", "--format", "json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o)); // the corrupt PNG is an error
    let r = json(&o);
    let parts = r["datasets"].as_array().expect("one report per dataset");
    let layouts: Vec<(String, String)> = parts
        .iter()
        .map(|p| {
            (
                p["settings"]["roots"][0].as_str().unwrap().to_string(),
                p["settings"]["layouts"][0].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (name, layout) in [
        ("./VOC2012", "voc"),
        ("./ADEChallengeData2016", "paired"),
        ("./binary", "files"),
        ("./pets", "imagefolder"),
        ("./labels.csv", "files"),
        (".", "files"),
    ] {
        assert!(
            layouts.contains(&(name.to_string(), layout.to_string())),
            "{name} ({layout}) missing from {layouts:?}"
        );
    }
    // Nothing skipped: every label file (and ImageFolder sample) was scanned.
    assert_eq!(r["summary"]["files_scanned"], total as u64, "{layouts:?}");
    let summed: u64 = parts
        .iter()
        .map(|p| p["summary"]["files_scanned"].as_u64().unwrap())
        .sum();
    assert_eq!(summed, total as u64);
    // Each dataset has its own histogram: the ImageFolder's classes are its folders.
    let pets = parts
        .iter()
        .find(|p| p["settings"]["layouts"][0] == "imagefolder")
        .unwrap();
    assert_eq!(pets["histogram"]["unit"], "samples");
    assert_eq!(pets["settings"]["class_names"][1], "dog");
    // The text report names every dataset, and the corrupt file comes first.
    let o = run_in(dir.path(), &["scan", "."]);
    let text = stdout(&o);
    assert!(
        text.starts_with("labelguard scan .: 6 datasets, "),
        "{text}"
    );
    for name in [
        "./VOC2012",
        "./ADEChallengeData2016",
        "./binary",
        "./pets",
        "./labels.csv",
    ] {
        assert!(text.contains(&format!("\n  {name} (")), "{name}: {text}");
    }
    // The corrupt PNG and the binary dataset (LG615) are the errors.
    assert!(
        text.lines()
            .last()
            .unwrap()
            .starts_with("errors: 2 errors, "),
        "{text}"
    );
    // One preset for a parent of several datasets: a dataset whose layout is another
    // preset's says so.
    let text = stdout(&run_in(
        dir.path(),
        &["scan", ".", "--preset", "pascal-voc"],
    ));
    assert!(
        text.contains("./ADEChallengeData2016 (paired layout): 6 files, 21 classes, ignore_index 255, preset pascal-voc (but the layout looks like ade20k)"),
        "{text}"
    );
}

#[test]
fn an_unknown_class_count_is_never_ok() {
    let dir = tempfile::tempdir().unwrap();
    // A mask with ids 21 and 255, no class count.
    put(
        dir.path(),
        "masks/a.png",
        &png_gray8(16, 16, &scene(16, 16, &[0, 21], 255)),
    );
    let o = run_in(dir.path(), &["scan", "masks"]);
    assert_eq!(code(&o), 0, "nothing wrong was found: exit 0");
    let text = stdout(&o);
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("unchecked: "), "{last}");
    assert!(last.contains("class range NOT checked"), "{last}");
    assert!(last.contains("ids 0..255 were counted"), "{last}");
    assert!(!text.contains("\nok"), "{text}");
    assert_eq!(
        json(&run_in(dir.path(), &["scan", "masks", "--format", "json"]))["summary"]["status"],
        "unchecked"
    );
    // --strict asks that everything was checked.
    assert_eq!(code(&run_in(dir.path(), &["scan", "masks", "--strict"])), 1);
    // Checked: the range is, and the last line says how it went (classes 1..20 never occur).
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "masks",
            "--num-classes",
            "22",
            "--ignore-index",
            "255",
        ],
    );
    assert!(stdout(&o).lines().last().unwrap().starts_with("warnings: "));
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "masks",
            "--num-classes",
            "2",
            "--ignore-index",
            "255",
        ],
    );
    assert!(stdout(&o).lines().last().unwrap().starts_with("errors: "));

    // A 16-bit ADE-style mask with id 1430 in an ADE20K layout: unchecked, and the layout's
    // preset is suggested.
    let ade = dir.path().join("ade");
    let m: Vec<u16> = (0..256).map(|i| if i < 128 { 3 } else { 1430 }).collect();
    put(
        &ade,
        "annotations/training/ADE_train_1.png",
        &png_gray16(16, 16, &m),
    );
    put(&ade, "images/training/ADE_train_1.jpg", &jpeg_stub(16, 16));
    let o = run_in(dir.path(), &["scan", "ade"]);
    assert_eq!(code(&o), 0);
    let last = stdout(&o).lines().last().unwrap().to_string();
    assert!(last.starts_with("unchecked: "), "{last}");
    assert!(last.contains("--preset ade20k"), "{last}");
    // A VOC tree suggests pascal-voc.
    let voc = dir.path().join("voc");
    put(
        &voc,
        "SegmentationClass/x.png",
        &png_gray8(8, 8, &[21u8; 64]),
    );
    let o = run_in(dir.path(), &["scan", "voc", "--format", "json"]);
    assert_eq!(json(&o)["settings"]["suggested_preset"], "pascal-voc");
}

#[test]
fn unreadable_files_come_first_in_every_renderer_and_show_all_lists_every_file() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..30 {
        put(
            dir.path(),
            &format!("m/a{i:02}.png"),
            &png_gray8(16, 16, &scene(16, 16, &[0, 1], 7 + (i % 3) as u8)),
        );
    }
    // Sorts last by name and has no bad pixels: ranked last by pixels, first as unreadable.
    let mut truncated = png_gray8(16, 16, &[1u8; 256]);
    truncated.truncate(truncated.len() - 20);
    put(dir.path(), "m/zz_truncated.png", &truncated);
    let args = ["scan", "m", "--num-classes", "5"];
    let text = stdout(&run_in(dir.path(), &args));
    let first_file = text
        .lines()
        .skip_while(|l| !l.starts_with("Worst files"))
        .find(|l| l.starts_with("m/"))
        .unwrap();
    assert!(first_file.starts_with("m/zz_truncated.png"), "{text}");
    assert!(
        text.contains("... and 6 more files with findings (--show all"),
        "{text}"
    );
    let all = stdout(&run_in(
        dir.path(),
        &[&args[..], &["--show", "all"]].concat(),
    ));
    assert_eq!(
        all.lines().filter(|l| l.starts_with("m/")).count(),
        31,
        "{all}"
    );
    let r = json(&run_in(
        dir.path(),
        &[&args[..], &["--format", "json"]].concat(),
    ));
    assert_eq!(r["files"][0]["path"], "m/zz_truncated.png");
    let gh = stdout(&run_in(
        dir.path(),
        &[&args[..], &["--format", "github"]].concat(),
    ));
    assert!(
        gh.lines().next().unwrap().contains("m/zz_truncated.png"),
        "{gh}"
    );
    let sarif = stdout(&run_in(
        dir.path(),
        &[&args[..], &["--format", "sarif"]].concat(),
    ));
    let s: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    assert!(s["runs"][0]["results"][0]
        .to_string()
        .contains("zz_truncated"));
    let junit = stdout(&run_in(
        dir.path(),
        &[&args[..], &["--format", "junit"]].concat(),
    ));
    let at = |needle: &str| junit.find(needle).unwrap();
    assert!(at("zz_truncated") < at("a00.png"), "{junit}");
    let html_path = dir.path().join("r.html");
    run_in(
        dir.path(),
        &[&args[..], &["--html", html_path.to_str().unwrap()]].concat(),
    );
    let html = std::fs::read_to_string(&html_path).unwrap();
    let h = |needle: &str| html.find(needle).unwrap();
    assert!(h("m/zz_truncated.png") < h("m/a00.png"));
}

#[test]
fn the_fix_follows_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    // Exactly C (19) and no 0, under the Cityscapes preset: 1-based, not labelIds.
    let m: Vec<u8> = (0..256).map(|i| 1 + (i % 19) as u8).collect();
    put(dir.path(), "one_based.png", &png_gray8(16, 16, &m));
    let r = json(&run_in(
        dir.path(),
        &[
            "scan",
            "one_based.png",
            "--preset",
            "cityscapes",
            "--format",
            "json",
        ],
    ));
    let f = findings_of(&r, "one_based.png");
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["code"], "LG104");
    // A bilinear-resized mask: one-pixel bands with values between their neighbours (2 | 10 |
    // void 255), spread over many ids as interpolation does. LG101's fix is the resize's fix,
    // not a wider head.
    let (w, h) = (64usize, 64usize);
    let mut m = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            m[y * w + x] = match x {
                0..=20 => 2,
                21 => 3 + (y % 7) as u8,
                22..=40 => 10,
                41 => 100 + 15 * (y % 8) as u8,
                _ => 255,
            };
        }
    }
    put(
        dir.path(),
        "resized.png",
        &png_gray8(w as u32, h as u32, &m),
    );
    let r = json(&run_in(
        dir.path(),
        &[
            "scan",
            "resized.png",
            "--num-classes",
            "19",
            "--ignore-index",
            "255",
            "--format",
            "json",
        ],
    ));
    let f = findings_of(&r, "resized.png");
    let codes: Vec<&str> = f.iter().map(|x| x["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"LG605"), "{codes:?}");
    let lg101 = f.iter().find(|x| x["code"] == "LG101").expect("LG101");
    let fix = lg101["fix"].as_str().unwrap();
    assert!(
        fix.contains("resize artefacts") && fix.contains("nearest"),
        "{fix}"
    );
    assert!(!fix.contains("wide"), "{fix}");
}

#[test]
fn a_binary_255_dataset_gets_one_finding_and_mapped_weights() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..12 {
        put(
            dir.path(),
            &format!("masks/train/m{i:02}.png"),
            &png_gray8(32, 32, &scene(32, 32, &[0], 255)),
        );
    }
    let r = json(&run_in(
        dir.path(),
        &["scan", "masks", "--num-classes", "2", "--format", "json"],
    ));
    let all = codes(&r);
    assert_eq!(
        all.iter().filter(|(_, c)| c == "LG615").count(),
        1,
        "{all:?}"
    );
    assert!(
        !all.iter().any(|(_, c)| c == "LG101" || c == "LG103"),
        "{all:?}"
    );
    assert!(r["files"].as_array().unwrap().is_empty());
    let weights = &r["weights"]["suggestions"][0]["weights"];
    assert_eq!(weights.as_array().unwrap().len(), 2, "{weights}");
    let rows = r["histogram"]["classes"].as_array().unwrap();
    let fg = rows.iter().find(|x| x["id"] == 255).unwrap();
    assert_eq!(fg["role"], "foreground");
    // With ignore_index 255 the foreground would be silently ignored: still one finding.
    let r = json(&run_in(
        dir.path(),
        &[
            "scan",
            "masks",
            "--preset",
            "pascal-voc",
            "--format",
            "json",
        ],
    ));
    let d = r["dataset"].as_array().unwrap();
    let lg615 = d.iter().find(|x| x["code"] == "LG615").expect("LG615");
    assert_eq!(lg615["verdict"], "silent");
    assert!(lg615["message"]
        .as_str()
        .unwrap()
        .contains("ignore_index=255"));
    let text = stdout(&run_in(
        dir.path(),
        &["scan", "masks", "--num-classes", "2"],
    ));
    assert!(!text.contains("void label"), "{text}");
    assert!(text.contains("255 foreground"), "{text}");
}

#[test]
fn smaller_truths() {
    let dir = tempfile::tempdir().unwrap();
    // ImageFolder: no pseudo-file '.', LG610 once.
    for (split, classes) in [
        ("train", &["cat", "dog", "eel"][..]),
        ("val", &["cat", "eel"][..]),
    ] {
        for c in classes {
            put(
                dir.path(),
                &format!("if/{split}/{c}/1.jpg"),
                &jpeg_stub(8, 8),
            );
        }
    }
    let r = json(&run_in(dir.path(), &["scan", "if", "--format", "json"]));
    assert_eq!(r["summary"]["files_scanned"], 5);
    assert!(r["files"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| !f["path"].as_str().unwrap().ends_with('.')));
    assert_eq!(
        codes(&r).iter().filter(|(_, c)| c == "LG610").count(),
        1,
        "{:?}",
        codes(&r)
    );
    // A config in the working directory does not leak into a scan of a file elsewhere.
    let work = dir.path().join("work");
    put(
        &work,
        "labelguard.toml",
        b"class_weights = \"w.json\"\nnum_classes = 3\n",
    );
    put(&work, "w.json", b"[1, 2]\n");
    let other = tempfile::tempdir().unwrap();
    put(other.path(), "x.png", &png_gray8(4, 4, &[1u8; 16]));
    let x = other.path().join("x.png");
    let r = json(&run_in(
        &work,
        &["scan", x.to_str().unwrap(), "--format", "json"],
    ));
    assert_eq!(r["summary"]["files_scanned"], 1, "{r}");
    assert!(r["settings"]["config"].is_null(), "{r}");
    // ... and the report says which config applied when one did.
    let r = json(&run_in(&work, &["scan", ".", "--format", "json"]));
    assert!(
        r["settings"]["config"]
            .as_str()
            .unwrap()
            .ends_with("labelguard.toml"),
        "{r}"
    );
    // embedding without its table is a usage error.
    put(
        dir.path(),
        "ids.npy",
        &npy(
            "<i8",
            &[2],
            &[1u8, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
        ),
    );
    let o = run_in(dir.path(), &["check", "embedding", "ids.npy"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(stderr(&o).contains("num_embeddings"));
    // An error is printed once.
    let o = run_in(dir.path(), &["check", "cross_entropy", "missing.npz"]);
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o).matches("os error 2").count(),
        1,
        "{}",
        stderr(&o)
    );
    // Grammar and the histogram's columns.
    put(
        dir.path(),
        "g/a.png",
        &png_gray8(8, 8, &[[0u8; 32], [9u8; 32]].concat()),
    );
    let text = stdout(&run_in(
        dir.path(),
        &["scan", "g", "--num-classes", "3", "--ignore-index", "255"],
    ));
    assert!(text.contains("3 classes"), "{text}");
    assert!(
        text.contains("1 of 3 files") || text.contains("in 1 of 1 file"),
        "{text}"
    );
    assert!(
        !text.contains("1 classes") && !text.contains("1 warnings"),
        "{text}"
    );
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Class histogram"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    // Every row's count column ends at the same character: the token before the percentage
    // (or the last token of the ignore row).
    let ends: Vec<usize> = rows
        .iter()
        .map(|l| {
            let mut tokens: Vec<(usize, &str)> = Vec::new();
            let mut start = None;
            for (i, ch) in l.char_indices().chain([(l.len(), ' ')]) {
                match (ch == ' ', start) {
                    (false, None) => start = Some(i),
                    (true, Some(s0)) => {
                        tokens.push((i, &l[s0..i]));
                        start = None;
                    }
                    _ => {}
                }
            }
            let pct = tokens.iter().position(|(_, t)| t.ends_with('%'));
            let count = match pct {
                Some(k) => tokens[k - 1],
                None => *tokens.last().unwrap(),
            };
            l[..count.0].chars().count()
        })
        .collect();
    assert!(rows.len() >= 4, "{text}");
    assert!(ends.windows(2).all(|w| w[0] == w[1]), "{rows:?} {ends:?}");
    // --help: the top level shows scan, diagnose and run examples.
    let help = stdout(&run_in(dir.path(), &["--help"]));
    for cmd in [
        "labelguard scan ",
        "labelguard diagnose ",
        "labelguard run ",
    ] {
        assert!(help.contains(cmd), "{help}");
    }
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
