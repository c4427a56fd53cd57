//! Issue 34: a few stray ids are a data error in their file, not Cityscapes, not ADE20K, not a
//! head to widen; and `labelguard fix`, run as the scan suggests it, cannot destroy. Innocent
//! datasets (a 6x6 patch of an id beyond the classes in one mask, at the class counts of
//! Cityscapes, VOC and ADE20K) get LG101 and no repair; controls (whole trees of labelIds,
//! 1-based masks, zero-means-other masks, 0/255 binary masks) keep their cause, and their
//! repair is exact pixel for pixel. Run through the binary, as users do.

mod scan_common;
use scan_common::*;
use std::path::Path;

use labelguard_formats::fixtures::{png_gray8, put};

const W: usize = 64;
const H: usize = 64;

/// A mask of 8x8 blocks, each one of `ids` (chosen by a fixed sequence), as masks are made of
/// regions rather than noise.
fn blocks(ids: &[u8], seed: usize) -> Vec<u8> {
    let mut m = vec![0u8; W * H];
    for (i, px) in m.iter_mut().enumerate() {
        let block = (i / W / 8) * (W / 8) + (i % W) / 8;
        *px = ids[(block * 7 + seed * 13 + block * block) % ids.len()];
    }
    m
}

/// `n` masks of `ids` under `root/masks` with their images, the second with a 6x6 patch of
/// `stray` (when given).
fn paired(root: &Path, n: usize, ids: &[u8], stray: Option<u8>) {
    for i in 0..n {
        let mut m = blocks(ids, i);
        if let (Some(v), 1) = (stray, i) {
            for y in 20..26 {
                m[y * W + 30..y * W + 36].fill(v);
            }
        }
        put(
            root,
            &format!("masks/m{i}.png"),
            &png_gray8(W as u32, H as u32, &m),
        );
        put(
            root,
            &format!("images/m{i}.png"),
            &png_gray8(W as u32, H as u32, &[0; W * H]),
        );
    }
}

fn pixels(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let (mut out, mut scratch) = (Vec::new(), Vec::new());
    labelguard_formats::read::mask::decode_mask(&bytes, 1 << 30, &mut out, &mut scratch).unwrap();
    out
}

/// Scans `dir` with `c` classes; returns (every finding's code, the dataset findings' codes,
/// the fix command the text report suggests).
fn scan(dir: &Path, c: u32) -> (Vec<String>, Vec<String>, Option<String>) {
    let c = c.to_string();
    let args = ["scan", ".", "--num-classes", &c, "--ignore-index", "255"];
    let report = json(&run_in(dir, &[&args[..], &["--format", "json"]].concat()));
    let code_of = |f: &serde_json::Value| f["code"].as_str().unwrap().to_string();
    let file_codes = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["findings"].as_array().unwrap().iter().map(code_of))
        .collect();
    let dataset = report["dataset"]
        .as_array()
        .unwrap()
        .iter()
        .map(code_of)
        .collect();
    let text = stdout(&run_in(dir, &args));
    let fix = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("labelguard fix "))
        .map(|l| l.split("   (").next().unwrap().to_string());
    (file_codes, dataset, fix)
}

/// Runs the suggested fix command into `out`; returns each mask's (input, output) pixels.
fn fix_as_suggested(dir: &Path, cmd: &str, out: &Path) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut args: Vec<&str> = cmd.split(' ').skip(1).collect();
    let at = args.iter().position(|a| *a == "--out").unwrap() + 1;
    let out_s = out.to_str().unwrap();
    args[at] = out_s;
    args.push("-q");
    let o = run_in(dir, &args);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let mut names: Vec<_> = std::fs::read_dir(dir.join("masks"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| {
            (
                pixels(&dir.join("masks").join(n)),
                pixels(&out.join("masks").join(n)),
            )
        })
        .collect()
}

#[test]
fn a_stray_patch_is_lg101_with_no_repair_at_every_class_count() {
    for (c, stray) in [(19u8, 19u8), (19, 26), (21, 21), (150, 150)] {
        let base = tempfile::tempdir().unwrap();
        let data = base.path().join("data");
        let ids: Vec<u8> = (0..c).collect();
        paired(&data, 6, &ids, Some(stray));
        let (files, dataset, fix) = scan(&data, u32::from(c));
        assert_eq!(files, ["LG101"], "C={c} stray {stray}: {files:?}");
        assert!(
            !dataset
                .iter()
                .any(|d| ["LG104", "LG105", "LG106"].contains(&d.as_str())),
            "C={c}: {dataset:?}"
        );
        let text = stdout(&run_in(
            &data,
            &[
                "scan",
                ".",
                "--num-classes",
                &c.to_string(),
                "--ignore-index",
                "255",
            ],
        ));
        // The finding's own words: the file's block in the report.
        let block = text
            .split_once("error[LG101]")
            .and_then(|(_, rest)| rest.split("\n\n").next())
            .unwrap_or_else(|| panic!("no LG101 in\n{text}"));
        assert!(block.contains("correct or drop"), "{block}");
        for never in ["num_classes=", "labelIds", "ADE20K", "1-based", "wide ("] {
            assert!(!block.contains(never), "C={c}: '{never}' in\n{block}");
        }
        for cause in ["LG104", "LG105", "LG106"] {
            assert!(!text.contains(cause), "C={c}: {cause} in\n{text}");
        }
        // No table to apply: fix is not suggested; run anyway, it changes nothing.
        assert_eq!(fix, None, "C={c}: {text}");
        let cmd = format!("labelguard fix . --out X --num-classes {c} --ignore-index 255");
        let out = base.path().join("fixed");
        for (input, output) in fix_as_suggested(&data, &cmd, &out) {
            assert_eq!(
                input, output,
                "C={c}: fix changed a pixel of an innocent dataset"
            );
        }
    }
}

#[test]
fn conventions_keep_their_cause_and_their_repair_is_exact() {
    // Cityscapes' labelId -> trainId table (cityscapesScripts' labels.py).
    let train = labelguard_scan::preset::CITYSCAPES_LABEL_TO_TRAIN;
    type Case = (
        &'static str,
        u32,
        Vec<u8>,
        &'static str,
        Box<dyn Fn(u8) -> u8>,
    );
    let cases: Vec<Case> = vec![
        (
            "labelids",
            19,
            (0..34).collect(),
            "LG105",
            Box::new(move |v| train[v as usize]),
        ),
        (
            "one-based",
            10,
            (1..=10).collect(),
            "LG104",
            Box::new(|v| v - 1),
        ),
        (
            "zero-means-other",
            150,
            (0..=150).collect(),
            "LG106",
            Box::new(|v| if v == 0 { 255 } else { v - 1 }),
        ),
    ];
    for (name, c, ids, cause, expect) in cases {
        let base = tempfile::tempdir().unwrap();
        let data = base.path().join("data");
        paired(&data, 6, &ids, None);
        // A mask of the same convention that holds no id beyond the classes still needs the
        // repair: the dataset's finding reaches it.
        let quiet: Vec<u8> = ids
            .iter()
            .copied()
            .filter(|&v| i64::from(v) < i64::from(c) && v != 0)
            .collect();
        put(
            &data,
            "masks/quiet.png",
            &png_gray8(W as u32, H as u32, &blocks(&quiet, 3)),
        );
        put(
            &data,
            "images/quiet.png",
            &png_gray8(W as u32, H as u32, &[0; W * H]),
        );
        let (files, dataset, fix) = scan(&data, c);
        assert!(files.iter().all(|f| f == cause), "{name}: {files:?}");
        assert!(dataset.iter().any(|d| d == cause), "{name}: {dataset:?}");
        let fix = fix.unwrap_or_else(|| panic!("{name}: no fix suggested"));
        let out = base.path().join("fixed");
        for (input, output) in fix_as_suggested(&data, &fix, &out) {
            let want: Vec<u8> = input.iter().map(|&v| expect(v)).collect();
            assert_eq!(output, want, "{name}: the repair is not exact");
        }
    }
}

#[test]
fn a_stale_plan_of_a_whole_table_is_refused_on_a_file_that_does_not_show_it() {
    // A scan report that named labelIds for a trainIds mask with a stray patch (as labelguard
    // did before issue 34): fix must not map the mask's valid trainIds to void.
    let base = tempfile::tempdir().unwrap();
    let data = base.path().join("data");
    let ids: Vec<u8> = (0..19).collect();
    paired(&data, 3, &ids, Some(19));
    let table = labelguard_scan::repair::table(
        labelguard_scan::repair::RepairKind::CityscapesTrainIds,
        19,
        255,
        &[],
    );
    let plan = |rule: serde_json::Value| {
        serde_json::json!({
            "files": [{"path": "masks/m1.png", "plan": "p"}],
            "plans": {"p": [{"kind": "cityscapes_train_ids", "rule": rule, "automatic": true,
                             "description": "", "map": table}]}
        })
        .to_string()
    };
    // From a report (the repair names its rule): refused, the mask copied as it is.
    put(
        base.path(),
        "stale.json",
        plan(serde_json::json!("LG105")).as_bytes(),
    );
    let o = run_in(
        &data,
        &[
            "fix",
            ".",
            "--out",
            "../fixed",
            "--num-classes",
            "19",
            "--plan",
            "../stale.json",
        ],
    );
    let text = stdout(&o);
    assert!(text.contains("not the labelId space"), "{text}");
    let input = pixels(&data.join("masks/m1.png"));
    assert_eq!(
        input,
        pixels(&base.path().join("fixed/masks/m1.png")),
        "{text}"
    );
    // Named by the user (no rule): applied as asked.
    put(
        base.path(),
        "mine.json",
        plan(serde_json::Value::Null).as_bytes(),
    );
    let o = run_in(
        &data,
        &[
            "fix",
            ".",
            "--out",
            "../mine",
            "--num-classes",
            "19",
            "--plan",
            "../mine.json",
        ],
    );
    assert!(stdout(&o).contains("repaired 1 file"), "{}", stdout(&o));
    let mapped: Vec<u8> = input
        .iter()
        .map(|&v| labelguard_scan::preset::CITYSCAPES_LABEL_TO_TRAIN[v as usize])
        .collect();
    assert_eq!(mapped, pixels(&base.path().join("mine/masks/m1.png")));
}
