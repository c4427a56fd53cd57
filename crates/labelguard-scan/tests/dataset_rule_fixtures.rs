//! Fixture tests of the dataset rules whose checks live in this crate (`src/checks/`): for each
//! rule, a small dataset generated here that triggers it, scanned through the library API,
//! with the finding's code asserted and its text (message, hint, fix, locations, counts)
//! pinned by a snapshot (tests/snapshots/). The scanned root is shown as `<root>`.
//! LG609-LG611 and LG615 (whole-dataset statistics) are checked when the report is finalised
//! (`src/report/dataset_checks/`), from the histograms of every file.

mod common;

use common::{classes, opts, scan};
use labelguard_formats::fixtures::*;
use labelguard_scan::config::Overrides;
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

#[cfg(unix)] // a name or file type Windows has not
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

#[cfg(unix)] // a name or file type Windows has not
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

/// A WebDataset sample with a mask and a class label but no image.
#[test]
fn lg616_incomplete_sample() {
    let dir = tree(&[
        ("000001.jpg", jpeg_stub(8, 8)),
        ("000001.seg.png", png_gray8(8, 8, &[1; 64])),
        ("000001.cls", b"2".to_vec()),
        ("000002.seg.png", png_gray8(8, 8, &[1; 64])),
        ("000002.cls", b"1".to_vec()),
    ]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG616"));
}

/// A WebDataset shard cut short inside its second member: the first member is scanned, the
/// cut is the finding.
#[test]
fn lg617_corrupt_tar_shard() {
    let (one, two) = (png_gray8(8, 8, &[1; 64]), png_gray8(8, 8, &[2; 64]));
    let shard = tar(&[("000001.seg.png", &one), ("000002.seg.png", &two)]);
    let dir = tree(&[("shards/train-000000.tar", shard[..512 * 3 + 40].to_vec())]);
    insta::assert_snapshot!(finding(dir.path(), classes(3, 255), "LG617"));
}

/// A panic cannot be planted in a dataset: the finding that the isolation reports is pinned
/// from its constructor.
#[test]
fn lg620_internal_error() {
    let f = labelguard_scan::checks::lg620_internal_error::internal_error("a decoder panicked");
    assert_eq!(f.code, "LG620");
    insta::assert_snapshot!(serde_json::to_string_pretty(&f).expect("json"));
}

// ---- Pascal VOC XML (VOCdevkit/VOC2007-like trees, no class list: the VOC classes inferred) ----

/// CamVid's Kaggle copy: `class_dict.csv` and one photo with its colour mask.
fn camvid(csv: &str, mask: &[u8]) -> tempfile::TempDir {
    let photo: Vec<u8> = (0..64u32)
        .flat_map(|i| [i as u8 * 4, 255 - i as u8, 7])
        .collect();
    tree(&[
        ("class_dict.csv", csv.as_bytes().to_vec()),
        ("train/a.png", png_rgb(8, 8, &photo)),
        ("train_labels/a_L.png", png_rgb(8, 8, mask)),
    ])
}

#[test]
fn lg621_colour_not_in_class_colours() {
    let rgb: Vec<u8> = (0..64)
        .flat_map(|i| match i {
            0..=2 => [10, 20, 30],
            3..=31 => [128, 64, 128],
            _ => [0, 0, 192],
        })
        .collect();
    let dir = camvid("name,r,g,b\nRoad,128,64,128\nSidewalk,0,0,192\n", &rgb);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG621"));
}

#[test]
fn lg622_malformed_class_colours() {
    let rgb: Vec<u8> = (0..64).flat_map(|_| [128, 64, 128]).collect();
    let dir = camvid("name,r,g,b\nRoad,128,64,128\nLane,128,64,128\n", &rgb);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG622"));
}

fn voc(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    voc_detection_tree(dir.path(), files, 200, 100);
    dir
}

fn flagged(mut o: VocObj, difficult: bool, truncated: bool) -> VocObj {
    o.difficult = difficult;
    o.truncated = truncated;
    o
}

#[test]
fn lg702_unknown_category() {
    let a = voc_annotation(
        "000001.jpg",
        Some((200, 100)),
        &[
            voc_obj("person", [10, 10, 50, 80]),
            voc_obj("persn", [12, 30, 50, 80]),
            voc_obj("Person", [60, 10, 90, 90]),
            voc_obj("aeroplan", [1, 1, 200, 100]),
            voc_obj("persn", [100, 30, 150, 80]),
        ],
    );
    let b = voc_annotation(
        "000002.jpg",
        Some((200, 100)),
        &[voc_obj("dog", [1, 1, 20, 20])],
    );
    let dir = voc(&[("000001", a), ("000002", b)]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG702"));
}

#[test]
fn lg705_invalid_box_voc() {
    let mut bad = voc_obj("dog", [10, 10, 50, 80]);
    bad.bndbox = Some(["12.5".into(), "abc".into(), "40".into(), "60".into()]);
    let a = voc_annotation(
        "000001.jpg",
        Some((200, 100)),
        &[
            voc_obj("dog", [50, 10, 20, 80]),
            bad,
            voc_obj("cat", [5, 5, 30, 30]),
        ],
    );
    let dir = voc(&[("000001", a)]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG705"));
}

#[test]
fn lg706_box_outside_image_voc() {
    let a = voc_annotation(
        "000001.jpg",
        Some((200, 100)),
        &[
            voc_obj("dog", [0, 10, 50, 80]),
            voc_obj("cat", [150, 10, 260, 100]),
        ],
    );
    let dir = voc(&[("000001", a)]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG706"));
}

#[test]
fn lg707_annotation_without_image() {
    let dir = voc(&[(
        "000001",
        voc_annotation(
            "000001.jpg",
            Some((200, 100)),
            &[voc_obj("dog", [1, 1, 20, 20])],
        ),
    )]);
    put(
        dir.path(),
        "VOCdevkit/VOC2007/Annotations/000002.xml",
        &voc_annotation(
            "000002.jpg",
            Some((200, 100)),
            &[voc_obj("cat", [1, 1, 20, 20])],
        ),
    );
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG707"));
}

#[test]
fn lg708_annotation_size_mismatch() {
    // The JPEG is 200x100; the annotation says 100x200 (width and height swapped).
    let a = voc_annotation(
        "000001.jpg",
        Some((100, 200)),
        &[voc_obj("dog", [1, 1, 20, 20])],
    );
    let dir = voc(&[("000001", a)]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG708"));
}

#[test]
fn lg709_malformed_annotation_voc() {
    let mut no_box = voc_obj("dog", [1, 1, 2, 2]);
    no_box.bndbox = None;
    let mut no_name = voc_obj("cat", [3, 3, 30, 30]);
    no_name.name = None;
    let a = voc_annotation(
        "000001.jpg",
        Some((200, 100)),
        &[no_box, no_name, voc_obj("cat", [5, 5, 30, 30])],
    );
    let dir = voc(&[("000001", a)]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG709"));
}

#[test]
fn lg602_corrupt_file_voc() {
    let whole = voc_annotation(
        "000001.jpg",
        Some((200, 100)),
        &[voc_obj("dog", [1, 1, 20, 20])],
    );
    let cut = whole[..whole.len() - 60].to_vec();
    let dir = voc(&[("000001", cut)]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG602"));
}

#[test]
fn lg712_difficult_objects() {
    let a = voc_annotation(
        "000001.jpg",
        Some((200, 100)),
        &[
            flagged(voc_obj("dog", [1, 1, 20, 20]), true, false),
            flagged(voc_obj("cat", [1, 1, 20, 20]), true, true),
            voc_obj("cat", [30, 30, 60, 60]),
        ],
    );
    let b = voc_annotation(
        "000002.jpg",
        Some((200, 100)),
        &[flagged(voc_obj("person", [1, 1, 20, 20]), false, true)],
    );
    let dir = voc(&[("000001", a), ("000002", b)]);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG712"));
}

// ---- COCO instances JSON --------------------------------------------------------------------

/// A COCO tree: `annotations/instances_train2017.json` holding `images` (id, file_name; every
/// image 64x48, its JPEG in `train2017/` unless its name starts with `gone`), `annotations`
/// and two categories (1 cat, 2 dog).
fn coco_tree(images: &[(i64, &str)], annotations: serde_json::Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let entries: Vec<serde_json::Value> = images
        .iter()
        .map(|(id, name)| serde_json::json!({"id": id, "file_name": name, "width": 64, "height": 48}))
        .collect();
    let doc = serde_json::json!({
        "info": {"description": "fixture"},
        "images": entries,
        "annotations": annotations,
        "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}],
    });
    put(
        dir.path(),
        "annotations/instances_train2017.json",
        doc.to_string().as_bytes(),
    );
    for (_, name) in images.iter().filter(|(_, n)| !n.starts_with("gone")) {
        put(dir.path(), &format!("train2017/{name}"), &jpeg_stub(64, 48));
    }
    dir
}

fn ann(id: i64, image_id: i64, category_id: i64, bbox: [f64; 4]) -> serde_json::Value {
    serde_json::json!({"id": id, "image_id": image_id, "category_id": category_id, "bbox": bbox, "iscrowd": 0})
}

fn coco_classes() -> Overrides {
    Overrides {
        num_classes: Some(3),
        ..Overrides::default()
    }
}

#[test]
fn lg602_corrupt_file_coco() {
    let dir = tempfile::tempdir().expect("tempdir");
    put(
        dir.path(),
        "annotations/instances_val2017.json",
        b"{\"images\": [{\"id\": 1, \"file_name\": \"a.jpg\"}],\n\"annotations\": [{\"id\": 1, \"image_id\": 1, \"bbox\": [1, 2,",
    );
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG602"));
}

#[test]
fn lg702_unknown_category_coco() {
    let dir = coco_tree(
        &[(1, "a.jpg")],
        serde_json::json!([
            ann(1, 1, 1, [1., 1., 10., 10.]),
            ann(2, 1, 7, [2., 2., 5., 5.]),
            ann(3, 1, 7, [3., 3., 5., 5.])
        ]),
    );
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG702"));
}

#[test]
fn lg703_non_contiguous_category_ids_coco() {
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = serde_json::json!({
        "images": [{"id": 1, "file_name": "a.jpg", "width": 64, "height": 48}],
        "annotations": [ann(1, 1, 5, [1., 1., 10., 10.])],
        "categories": [{"id": 1, "name": "cat"}, {"id": 5, "name": "dog"}],
    });
    put(
        dir.path(),
        "annotations/instances_train2017.json",
        doc.to_string().as_bytes(),
    );
    put(dir.path(), "train2017/a.jpg", &jpeg_stub(64, 48));
    // The head is named (torchvision uses the ids as stored): only then is the gap a finding.
    let torchvision = Overrides {
        framework: Some("torchvision".into()),
        ..Overrides::default()
    };
    insta::assert_snapshot!(finding(dir.path(), torchvision, "LG703"));
}

#[test]
fn lg705_invalid_box_coco() {
    let dir = coco_tree(
        &[(1, "a.jpg")],
        serde_json::json!([
            ann(1, 1, 1, [1., 1., 10., 10.]),
            ann(2, 1, 2, [20., 10., -5., 8.]),
            ann(3, 1, 2, [20., 10., 5., 0.])
        ]),
    );
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG705"));
}

#[test]
fn lg706_box_outside_image_coco() {
    let mut poly = ann(3, 1, 2, [1., 1., 5., 5.]);
    poly["segmentation"] = serde_json::json!([[1, 1, 6, 1, 6, 60]]);
    let dir = coco_tree(
        &[(1, "a.jpg")],
        // 63.5 + 0.5: within the 1 px tolerance; 60 + 20 = 80 > 64: outside.
        serde_json::json!([
            ann(1, 1, 1, [50., 1., 14.5, 10.]),
            ann(2, 1, 2, [60., 10., 20., 10.]),
            poly
        ]),
    );
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG706"));
}

#[test]
fn lg707_annotation_without_image_coco() {
    let dir = coco_tree(
        &[(1, "a.jpg")],
        serde_json::json!([
            ann(1, 1, 1, [1., 1., 10., 10.]),
            ann(2, 9, 2, [1., 1., 10., 10.])
        ]),
    );
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG707"));
}

#[test]
fn lg707_annotation_without_image_coco_missing_file() {
    let dir = coco_tree(
        &[(1, "a.jpg"), (2, "gone_b.jpg"), (3, "gone_c.jpg")],
        serde_json::json!([
            ann(1, 1, 1, [1., 1., 10., 10.]),
            ann(2, 2, 2, [1., 1., 10., 10.])
        ]),
    );
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG707"));
}

#[test]
fn lg708_annotation_size_mismatch_coco() {
    let mut rle = ann(2, 1, 2, [1., 1., 10., 10.]);
    rle["iscrowd"] = serde_json::json!(1);
    rle["segmentation"] = serde_json::json!({"size": [64, 48], "counts": "a1b2"});
    let dir = coco_tree(
        &[(1, "a.jpg")],
        serde_json::json!([ann(1, 1, 1, [1., 1., 10., 10.]), rle]),
    );
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG708"));
}

#[test]
fn lg709_malformed_annotation_coco() {
    let dir = coco_tree(
        &[(1, "a.jpg")],
        serde_json::json!([
            ann(1, 1, 1, [1., 1., 10., 10.]),
            {"id": 2, "image_id": 1, "bbox": [1, 1, 10, 10]},
            {"id": 3, "image_id": 1, "bbox": [1, 1, 10, 10]},
        ]),
    );
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG709"));
}

#[test]
fn lg711_duplicate_annotation() {
    let dir = coco_tree(
        &[(1, "a.jpg")],
        serde_json::json!([
            ann(1, 1, 1, [1., 1., 10., 10.]),
            ann(2, 1, 2, [1., 1., 10., 10.]),
            ann(3, 1, 1, [1., 1., 10., 10.])
        ]),
    );
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG711"));
}

#[test]
fn lg603_empty_file_coco() {
    let dir = tempfile::tempdir().expect("tempdir");
    put(dir.path(), "annotations/instances_val2017.json", b"");
    insta::assert_snapshot!(finding(dir.path(), coco_classes(), "LG603"));
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

/// A BERT-like model directory (50 ids, 8 positions, 2 token types) and one tokenized JSONL
/// file: a clean row and `bad`, scanned with `--model`.
const BERT: &str = r#"{"model_type": "bert", "architectures": ["BertForMaskedLM"], "vocab_size": 50,
    "max_position_embeddings": 8, "type_vocab_size": 2, "hidden_size": 8, "num_hidden_layers": 1,
    "num_attention_heads": 2, "pad_token_id": 0}"#;

fn token_finding(config: &str, bad: &str, code: &str) -> String {
    let clean = r#"{"input_ids": [1, 2, 3], "labels": [-100, 2, 3], "attention_mask": [1, 1, 1], "token_type_ids": [0, 0, 1]}"#;
    let dir = tree(&[
        ("data.jsonl", format!("{clean}\n{bad}\n").into_bytes()),
        ("model/config.json", config.as_bytes().to_vec()),
    ]);
    let o = Overrides {
        model: Some(dir.path().join("model")),
        ..Overrides::default()
    };
    finding(&dir.path().join("data.jsonl"), o, code)
}

#[test]
fn lg801_token_id_out_of_range() {
    let bad = r#"{"input_ids": [1, 60, 3], "labels": [-100, 2, 3], "attention_mask": [1, 1, 1], "token_type_ids": [0, 0, 1]}"#;
    insta::assert_snapshot!(token_finding(BERT, bad, "LG801"));
}

#[test]
fn lg802_token_label_out_of_range() {
    let bad = r#"{"input_ids": [1, 2, 3], "labels": [-100, 2, 70], "attention_mask": [1, 1, 1], "token_type_ids": [0, 0, 1]}"#;
    insta::assert_snapshot!(token_finding(BERT, bad, "LG802"));
}

#[test]
fn lg803_label_padding_not_ignored() {
    let bad = r#"{"input_ids": [1, 2, 3], "labels": [-100, 2, -1], "attention_mask": [1, 1, 1], "token_type_ids": [0, 0, 1]}"#;
    insta::assert_snapshot!(token_finding(BERT, bad, "LG803"));
}

#[test]
fn lg804_all_labels_ignored() {
    let bad = r#"{"input_ids": [1, 2, 3], "labels": [-100, -100, -100], "attention_mask": [1, 1, 1], "token_type_ids": [0, 0, 1]}"#;
    insta::assert_snapshot!(token_finding(BERT, bad, "LG804"));
}

#[test]
fn lg805_sequence_beyond_positions() {
    let ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let bad = format!(
        r#"{{"input_ids": {ten}, "labels": {ten}, "attention_mask": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "token_type_ids": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}}"#
    );
    insta::assert_snapshot!(token_finding(BERT, &bad, "LG805"));
}

#[test]
fn lg806_token_type_out_of_range() {
    let bad = r#"{"input_ids": [1, 2, 3], "labels": [-100, 2, 3], "attention_mask": [1, 1, 1], "token_type_ids": [0, 2, 1]}"#;
    insta::assert_snapshot!(token_finding(BERT, bad, "LG806"));
}

#[test]
fn lg807_attention_mask_invalid() {
    let bad = r#"{"input_ids": [1, 2, 3], "labels": [-100, 2, 3], "attention_mask": [1, 2, 1], "token_type_ids": [0, 0, 1]}"#;
    insta::assert_snapshot!(token_finding(BERT, bad, "LG807"));
}

#[test]
fn lg808_image_placeholder_mismatch() {
    // LLaVA: placeholder 49, two tokens per image once expanded; the row has one image and
    // three placeholders (neither 1 nor 2).
    let llava = r#"{"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"],
        "image_token_index": 49, "image_seq_length": 2,
        "text_config": {"model_type": "llama", "vocab_size": 50, "max_position_embeddings": 64,
                        "hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2},
        "vision_config": {"model_type": "clip_vision_model"}}"#;
    let clean = r#"{"input_ids": [49, 2, 3], "labels": [-100, 2, 3], "attention_mask": [1, 1, 1], "images": ["a.png"]}"#;
    let bad = r#"{"input_ids": [49, 49, 49, 5], "labels": [-100, -100, -100, 5], "attention_mask": [1, 1, 1, 1], "images": ["a.png"]}"#;
    let dir = tree(&[
        ("data.jsonl", format!("{clean}\n{bad}\n").into_bytes()),
        ("model/config.json", llava.as_bytes().to_vec()),
    ]);
    let o = Overrides {
        model: Some(dir.path().join("model")),
        ..Overrides::default()
    };
    insta::assert_snapshot!(finding(&dir.path().join("data.jsonl"), o, "LG808"));
}

/// A nanoGPT `train.bin` (uint16 ids) and the `meta.pkl` of a 65-character vocabulary
/// (`pickle.dumps({'vocab_size': 65})`, protocol 4).
fn nanogpt_tree(ids: &[u16], meta: bool) -> tempfile::TempDir {
    let bin: Vec<u8> = ids.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut files = vec![("train.bin", bin)];
    if meta {
        files.push((
            "meta.pkl",
            b"\x80\x04\x95\x13\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\nvocab_size\x94KAs.".to_vec(),
        ));
    }
    tree(&files)
}

#[test]
fn lg801_token_id_out_of_range_in_a_token_file() {
    let dir = nanogpt_tree(&[1, 2, 64, 65, 3, 70], true);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG801"));
}

#[test]
fn lg817_token_ids_unchecked() {
    let dir = nanogpt_tree(&[1, 2, 300], false);
    insta::assert_snapshot!(finding(dir.path(), Overrides::default(), "LG817"));
}
