//! COCO instances JSON end to end, through the scan API: a COCO 2017 tree
//! (`annotations/instances_{train,val}2017.json`, `train2017/`, `val2017/`), a clean control,
//! the category-id contract of COCO's 80 categories stored with ids 1..90 (torchvision needs
//! 91 outputs, detectron2 maps them to 0..79), the dataset findings over the declared
//! categories, and crowd objects counted.

// Not every helper of `common` is used here.
#[allow(dead_code)]
mod common;

use common::{opts, scan};
use labelguard_formats::fixtures::{jpeg_stub, put};
use labelguard_scan::config::Overrides;
use labelguard_scan::report::ScanReport;
use serde_json::{json, Value};
use std::path::Path;

/// The 80 category ids of COCO 2017: 1..90 without the 10 ids the paper's list dropped.
fn coco_ids() -> Vec<i64> {
    let dropped = [12, 26, 29, 30, 45, 66, 68, 69, 71, 83];
    (1..=90).filter(|i| !dropped.contains(i)).collect()
}

/// Writes split `part` (`train2017`): `n_images` 640x480 JPEGs and their annotations (one per
/// entry of `cats`, spread over the images), declaring `declared`.
fn split(root: &Path, part: &str, n_images: i64, cats: &[i64], declared: &[i64], extra: &[Value]) {
    let images: Vec<Value> = (1..=n_images)
        .map(|i| json!({"id": i, "file_name": format!("{i:012}.jpg"), "width": 640, "height": 480}))
        .collect();
    let mut annotations: Vec<Value> = cats
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let k = k as i64;
            json!({"id": 1000 + k, "image_id": 1 + k % n_images, "category_id": c,
                   "bbox": [10.0 + k as f64, 20.0, 50.5, 60.25], "area": 3030.0, "iscrowd": 0,
                   "segmentation": [[10, 20, 60, 20, 60, 80, 10, 80]]})
        })
        .collect();
    annotations.extend(extra.iter().cloned());
    let categories: Vec<Value> = declared
        .iter()
        .map(|c| json!({"id": c, "name": format!("class{c}"), "supercategory": "thing"}))
        .collect();
    let doc = json!({
        "info": {"description": "COCO-like", "year": 2017},
        "licenses": [{"id": 1, "name": "x", "url": "http://example.invalid"}],
        "images": images,
        "annotations": annotations,
        "categories": categories,
    });
    put(
        root,
        &format!("annotations/instances_{part}.json"),
        serde_json::to_string_pretty(&doc).unwrap().as_bytes(),
    );
    for i in 1..=n_images {
        put(root, &format!("{part}/{i:012}.jpg"), &jpeg_stub(640, 480));
    }
}

fn codes(report: &ScanReport) -> Vec<String> {
    report
        .all_findings()
        .map(|f| f.finding.code.to_string())
        .collect()
}

fn with(num_classes: u32, framework: Option<&str>) -> Overrides {
    Overrides {
        num_classes: Some(num_classes),
        framework: framework.map(str::to_string),
        ..Overrides::default()
    }
}

#[test]
fn a_clean_coco_tree_has_no_findings() {
    let dir = tempfile::tempdir().unwrap();
    split(dir.path(), "train2017", 4, &[1, 2, 3, 1], &[1, 2, 3], &[]);
    split(dir.path(), "val2017", 2, &[3, 2, 1], &[1, 2, 3], &[]);
    let report = scan(dir.path(), &opts(with(4, None)));
    assert_eq!(codes(&report), Vec::<String>::new());
    assert_eq!(report.summary.files_scanned, 2, "one item per JSON");
    assert_eq!(report.histogram.unit, "objects");
}

#[test]
fn coco_ids_need_91_outputs_in_torchvision_and_80_in_detectron2() {
    let dir = tempfile::tempdir().unwrap();
    let ids = coco_ids();
    assert_eq!(ids.len(), 80);
    split(dir.path(), "train2017", 20, &ids, &ids, &[]);

    let report = scan(dir.path(), &opts(with(80, None)));
    let lg701: Vec<_> = report
        .all_findings()
        .filter(|f| f.finding.code == "LG701")
        .collect();
    assert_eq!(lg701.len(), 1, "{:?}", codes(&report));
    let f = &lg701[0].finding;
    assert!(
        f.message.contains("head of 80 classes (torchvision)"),
        "{}",
        f.message
    );
    assert_eq!(
        f.count,
        Some(ids.iter().filter(|i| **i >= 80).count() as u64)
    );
    let hint = f.hint.as_deref().unwrap();
    assert!(
        hint.contains("not contiguous") && hint.contains("91 outputs"),
        "{hint}"
    );
    assert!(f.fix.contains("91"), "{}", f.fix);

    let report = scan(dir.path(), &opts(with(80, Some("detectron2"))));
    assert_eq!(codes(&report), Vec::<String>::new());
}

#[test]
fn an_unused_category_and_a_category_in_one_split_are_dataset_findings() {
    let dir = tempfile::tempdir().unwrap();
    // Category 4 is declared but never used; category 3 is in train only.
    split(dir.path(), "train2017", 3, &[1, 2, 3], &[1, 2, 3, 4], &[]);
    split(dir.path(), "val2017", 2, &[1, 2], &[1, 2, 3, 4], &[]);
    let report = scan(dir.path(), &opts(with(5, None)));
    let found = codes(&report);
    assert!(found.contains(&"LG609".to_string()), "{found:?}");
    assert!(found.contains(&"LG610".to_string()), "{found:?}");
    let lg609 = report
        .all_findings()
        .find(|f| f.finding.code == "LG609")
        .unwrap();
    assert!(lg609.finding.message.contains("class4") || lg609.finding.message.contains('4'));
}

#[test]
fn crowd_objects_are_counted_and_images_may_come_last() {
    let dir = tempfile::tempdir().unwrap();
    let crowd = json!({"id": 7, "image_id": 1, "category_id": 1, "bbox": [0, 0, 5, 5], "iscrowd": 1,
                       "segmentation": {"size": [480, 640], "counts": "abc"}});
    split(dir.path(), "train2017", 2, &[1, 2], &[1, 2], &[crowd]);
    let report = scan(dir.path(), &opts(with(3, None)));
    // The crowd object is counted (LG712, information only): the scan stays ok.
    assert_eq!(codes(&report), ["LG712"]);
    assert_eq!(report.summary.status, "ok");
    assert_eq!(report.objects.crowd, 1);

    // The same facts with the arrays in another order: annotations before images.
    let dir = tempfile::tempdir().unwrap();
    let doc = json!({
        "annotations": [{"id": 1, "image_id": 5, "category_id": 1, "bbox": [600, 0, 100, 5]}],
        "categories": [{"id": 1, "name": "a"}],
        "images": [{"id": 1, "file_name": "a.jpg", "width": 640, "height": 480}],
    });
    put(
        dir.path(),
        "annotations/instances_train2017.json",
        doc.to_string().as_bytes(),
    );
    put(dir.path(), "train2017/a.jpg", &jpeg_stub(640, 480));
    let report = scan(dir.path(), &opts(with(2, None)));
    assert_eq!(codes(&report), vec!["LG707"], "image_id 5 has no entry");
}

/// One COCO file scanned on its own is read as COCO, with its image folder found beside
/// `annotations/` (a missing image is found), not as a mask.
#[test]
fn one_coco_file_scanned_on_its_own_finds_its_images() {
    let dir = tempfile::tempdir().unwrap();
    split(dir.path(), "val2017", 3, &[1, 2, 3], &[1, 2, 3], &[]);
    std::fs::remove_file(dir.path().join("val2017/000000000002.jpg")).unwrap();
    let file = dir.path().join("annotations/instances_val2017.json");
    let report = scan(&file, &opts(with(4, None)));
    assert_eq!(report.settings.layouts[0].as_str(), "coco");
    assert_eq!(codes(&report), ["LG707"]);
    let lg707 = report.all_findings().next().unwrap();
    assert!(
        lg707.finding.message.contains("000000000002.jpg"),
        "{}",
        lg707.finding.message
    );
    assert_eq!(report.summary.elements, 3);
    assert_eq!(report.histogram.unit, "objects");
}
