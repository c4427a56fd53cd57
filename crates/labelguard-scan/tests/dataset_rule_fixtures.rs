//! Fixture tests of the dataset rules whose checks live in this crate (`src/checks/`): for each
//! rule, a small dataset generated here that triggers it, scanned through the library API,
//! with the finding's code asserted and its text (message, hint, fix, locations, counts)
//! pinned by a snapshot (tests/snapshots/). The scanned root is shown as `<root>`.
//! LG609-LG611 and LG615 (whole-dataset statistics) are checked when the report is finalised
//! (`src/report/dataset_checks/`), from the histograms of every file.

mod common;

use common::{classes, opts, scan};
use labelguard_scan::config::Overrides;
use labelguard_scan::fixtures::*;
use std::path::Path;

/// Scans `root` and returns the one finding of `code`, as the report's JSON shows it, with the
/// root replaced by `<root>`. Fails if the scan finds `code` zero or several times.
fn finding(root: &Path, o: Overrides, code: &str) -> String {
    let report = scan(root, &opts(o));
    let found: Vec<serde_json::Value> = report
        .all_findings()
        .map(|f| serde_json::to_value(f).expect("findings serialise"))
        .filter(|f| f["code"] == code)
        .collect();
    let all: Vec<String> = report
        .all_findings()
        .map(|f| f.finding.code.to_string())
        .collect();
    assert_eq!(found.len(), 1, "{code} once, in {all:?}");
    let text = serde_json::to_string_pretty(&found[0]).expect("json");
    text.replace(&root.to_string_lossy().into_owned(), "<root>")
}

fn tree(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (rel, bytes) in files {
        put(dir.path(), rel, bytes);
    }
    dir
}

#[test]
fn lg601_unreadable_file() {
    let dir = tree(&[("m/a.png", png_gray8(8, 8, &[1; 64]))]);
    std::os::unix::fs::symlink(dir.path().join("gone.png"), dir.path().join("m/b.png")).unwrap();
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG601"));
}

#[test]
fn lg602_corrupt_file() {
    let dir = tree(&[
        ("m/a.png", png_gray8(8, 8, &[1; 64])),
        (
            "m/b.png",
            b"<!doctype html><html>403 Forbidden</html>".to_vec(),
        ),
    ]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG602"));
}

#[test]
fn lg603_empty_file() {
    let dir = tree(&[
        ("m/a.png", png_gray8(8, 8, &[1; 64])),
        ("m/b.png", Vec::new()),
    ]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG603"));
}

#[test]
fn lg604_decompression_bomb() {
    let dir = tree(&[
        ("m/a.png", png_gray8(8, 8, &[1; 64])),
        ("m/b.png", png_bomb(90_000, 90_000)),
    ]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG604"));
}

/// Three classes (0, 10, 20) in vertical stripes, resized with a linear filter: the borders
/// hold the blends 5 and 15.
#[test]
fn lg605_resize_artefacts() {
    let (h, w) = (40usize, 400usize);
    let mask: Vec<u8> = (0..h * w)
        .map(|i| match i % w {
            0..=129 => 0,
            130 => 5,
            131..=269 => 10,
            270 => 15,
            _ => 20,
        })
        .collect();
    let dir = tree(&[("m/a.png", png_gray8(w as u32, h as u32, &mask))]);
    insta::assert_snapshot!(finding(dir.path(), classes(21, 255), "LG605"));
}

#[test]
fn lg606_colour_mask() {
    let rgb: Vec<u8> = (0..64)
        .flat_map(|i| {
            if i < 32 {
                [128, 64, 128]
            } else {
                [244, 35, 232]
            }
        })
        .collect();
    let dir = tree(&[("m/a.png", png_rgb(8, 8, &rgb))]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG606"));
}

#[test]
fn lg607_mask_image_size_mismatch() {
    let dir = tree(&[
        ("images/x.jpg", jpeg_stub(16, 8)),
        ("masks/x.png", png_gray8(8, 8, &[1; 64])),
    ]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG607"));
}

#[test]
fn lg608_missing_pair() {
    let dir = tree(&[
        ("images/x.jpg", jpeg_stub(8, 8)),
        ("masks/x.png", png_gray8(8, 8, &[1; 64])),
        ("masks/y.png", png_gray8(8, 8, &[1; 64])),
    ]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG608"));
}

/// Three classes; the masks hold only 0 and 1.
#[test]
fn lg609_class_never_seen() {
    let ids: Vec<u8> = (0..64).map(|i| (i % 2) as u8).collect();
    let dir = tree(&[("m/a.png", png_gray8(8, 8, &ids))]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG609"));
}

/// Class 2 is in the train masks only.
#[test]
fn lg610_class_in_one_split() {
    let train: Vec<u8> = (0..64).map(|i| (i % 3) as u8).collect();
    let val: Vec<u8> = (0..64).map(|i| (i % 2) as u8).collect();
    let dir = tree(&[
        ("train/a.png", png_gray8(8, 8, &train)),
        ("val/b.png", png_gray8(8, 8, &val)),
    ]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG610"));
}

/// Class 1 covers 1 of 16,384 pixels: class 0 outnumbers it 16,383 to 1, past the default
/// limit of 10,000.
#[test]
fn lg611_class_imbalance() {
    let ids: Vec<u8> = (0..16384).map(|i| (i == 0) as u8).collect();
    let dir = tree(&[("m/a.png", png_gray8(128, 128, &ids))]);
    insta::assert_snapshot!(finding(dir.path(), classes(2, 255), "LG611"));
}

#[test]
fn lg612_unknown_label() {
    let dir = tree(&[(
        "labels.csv",
        b"file,label\na.jpg,1\nb.jpg,cat\nc.jpg,\n".to_vec(),
    )]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, -100), "LG612"));
}

#[test]
fn lg613_label_column_missing() {
    let dir = tree(&[("labels.csv", b"file,label\na.jpg,1\n".to_vec())]);
    let o = Overrides {
        label_column: Some("target".into()),
        ..classes(3, -100)
    };
    insta::assert_snapshot!(finding(dir.path(), o, "LG613"));
}

#[test]
fn lg614_non_utf8_path() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tree(&[("m/a.png", png_gray8(8, 8, &[1; 64]))]);
    let name = std::ffi::OsStr::from_bytes(b"b\xe9.png");
    std::fs::write(dir.path().join("m").join(name), png_gray8(8, 8, &[1; 64])).unwrap();
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG614"));
}

#[test]
fn lg615_binary_255_masks() {
    let half: Vec<u8> = (0..64).map(|i| if i < 40 { 0 } else { 255 }).collect();
    let dir = tree(&[
        ("m/a.png", png_gray8(8, 8, &half)),
        ("m/b.png", png_gray8(8, 8, &half)),
    ]);
    insta::assert_snapshot!(finding(dir.path(), classes(2, 255), "LG615"));
}

/// A panic cannot be planted in a dataset: the finding that the isolation reports is pinned
/// from its constructor.
#[test]
fn lg620_internal_error() {
    let f = labelguard_scan::checks::lg620_internal_error::internal_error("a decoder panicked");
    assert_eq!(f.code, "LG620");
    insta::assert_snapshot!(serde_json::to_string_pretty(&f).expect("json"));
}

// --- YOLO label files -----------------------------------------------------------------------

/// An ultralytics tree: `data.yaml` naming cat, dog and bird, and for each `(stem, label
/// text)` a placeholder image `images/train/<stem>.jpg` (never decoded) and its label file.
fn yolo(labels: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tree(&[(
        "data.yaml",
        b"path: .\ntrain: images/train\nnames: [cat, dog, bird]\n".to_vec(),
    )]);
    for (stem, text) in labels {
        put(
            dir.path(),
            &format!("images/train/{stem}.jpg"),
            b"\xff\xd8\xff",
        );
        put(
            dir.path(),
            &format!("labels/train/{stem}.txt"),
            text.as_bytes(),
        );
    }
    dir
}

const YOLO_OK: &str = "0 0.5 0.5 0.2 0.2\n1 0.3 0.3 0.1 0.1\n2 0.7 0.7 0.1 0.2\n";

#[test]
fn lg701_detection_class_out_of_range() {
    let dir = yolo(&[
        ("a", YOLO_OK),
        (
            "b",
            "0 0.5 0.5 0.2 0.2\n3 0.5 0.5 0.1 0.1\n7 0.2 0.2 0.1 0.1\n",
        ),
    ]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG701"));
}

#[test]
fn lg704_head_class_count_mismatch_yolo() {
    let dir = yolo(&[("a", YOLO_OK)]);
    put(dir.path(), "data.yaml", b"nc: 4\nnames: [cat, dog, bird]\n");
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG704"));
}

#[test]
fn lg705_invalid_box() {
    let dir = yolo(&[
        ("a", YOLO_OK),
        (
            "b",
            "0 0.5 0.5 0 0.2\n1 0.5 0.5 0.1 -0.1\n2 nan 0.5 0.1 0.1\n",
        ),
    ]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG705"));
}

/// Pixel coordinates of a 640x480 image written where fractions belong.
#[test]
fn lg706_box_outside_image() {
    let dir = yolo(&[
        ("a", YOLO_OK),
        (
            "b",
            "0 320 240 64 48\n1 0.5 0.5 0.1 0.1\n2 100.5 80 20 10\n",
        ),
    ]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG706"));
}

#[test]
fn lg707_annotation_without_image_yolo() {
    let dir = yolo(&[("a", YOLO_OK)]);
    put(dir.path(), "labels/train/b.txt", YOLO_OK.as_bytes());
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG707"));
}

/// A confidence column (6 columns), a class name where the id belongs, a shifted line whose
/// class is a fraction, and a polygon with an odd number of coordinates.
#[test]
fn lg709_malformed_annotation() {
    let dir = yolo(&[
        ("a", YOLO_OK),
        (
            "b",
            "0 0.5 0.5 0.2 0.2 0.93\ncat 0.5 0.5 0.2 0.2\n0.5 0.5 0.2 0.2 0.1\n1 0.1 0.1 0.2 0.1 0.2 0.2 0.3\n2 0.5 0.5 0.1 0.1\n",
        ),
    ]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG709"));
}

/// A binary file under a label's name.
#[test]
fn lg602_corrupt_file_yolo() {
    let dir = yolo(&[("a", YOLO_OK)]);
    put(dir.path(), "images/train/b.jpg", b"\xff\xd8\xff");
    put(
        dir.path(),
        "labels/train/b.txt",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    );
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG602"));
}

/// Box label files and polygon label files in one dataset (the dataset's finding).
#[test]
fn lg710_mixed_boxes_and_polygons() {
    let dir = yolo(&[
        ("a", YOLO_OK),
        ("b", YOLO_OK),
        (
            "c",
            "0 0.1 0.1 0.4 0.1 0.4 0.5 0.1 0.5\n1 0.6 0.6 0.9 0.6 0.8 0.9\n",
        ),
    ]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG710"));
}

/// One file that mixes box lines and polygon lines (the file's finding).
#[test]
fn lg710_mixed_boxes_and_polygons_in_a_file_yolo() {
    let dir = yolo(&[(
        "a",
        "0 0.1 0.1 0.4 0.1 0.4 0.5 0.1 0.5\n1 0.5 0.5 0.2 0.2\n2 0.6 0.6 0.9 0.6 0.8 0.9\n",
    )]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG710"));
}

#[test]
fn lg711_duplicate_annotation_yolo() {
    let dir = yolo(&[("a", "0 0.5 0.5 0.2 0.2\n1 0.3 0.3 0.1 0.1\n0 0.50 0.5 0.2 0.20\n2 0.7 0.7 0.1 0.2\n0 0.5 0.5 0.2 0.2\n")]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG711"));
}
