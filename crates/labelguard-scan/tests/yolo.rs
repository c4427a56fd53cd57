//! YOLO datasets end to end through the scan API: an ultralytics tree with planted defects, its
//! clean control, and a Roboflow export, with the per-split class histogram in objects.

mod common;

use common::{classes, opts, scan};
use labelguard_formats::fixtures::put;
use labelguard_scan::config::Overrides;
use labelguard_scan::report::ScanReport;
use std::collections::BTreeSet;
use std::path::Path;

const JPEG: &[u8] = b"\xff\xd8\xff\xe0";

fn sample(root: &Path, images: &str, labels: &str, stem: &str, text: &str) {
    put(root, &format!("{images}/{stem}.jpg"), JPEG);
    put(root, &format!("{labels}/{stem}.txt"), text.as_bytes());
}

/// An ultralytics tree: `names: [cat, dog, bird]`, `images/{train,val}` and `labels/...`.
fn ultralytics(root: &Path) {
    put(
        root,
        "data.yaml",
        b"path: .\ntrain: images/train\nval: images/val\nnames:\n  0: cat\n  1: dog\n  2: bird\n",
    );
    for i in 0..6 {
        sample(
            root,
            "images/train",
            "labels/train",
            &format!("t{i}"),
            "0 0.5 0.5 0.2 0.2\n1 0.25 0.25 0.1 0.1\n2 0.75 0.75 0.1 0.1\n",
        );
    }
    sample(
        root,
        "images/val",
        "labels/val",
        "v0",
        "2 0.5 0.5 0.2 0.2\n0 0.1 0.1 0.05 0.05\n",
    );
    sample(
        root,
        "images/val",
        "labels/val",
        "v1",
        "1 0.5 0.5 0.2 0.2\n1 0.5 0.5 0.3 0.3\n",
    );
    // A background image: an empty label file, and an image without one.
    sample(root, "images/train", "labels/train", "empty", "");
    put(root, "images/train/unlabelled.jpg", JPEG);
}

fn codes(r: &ScanReport) -> BTreeSet<(String, String)> {
    r.all_findings()
        .map(|f| {
            let path = f.path.clone().unwrap_or_default();
            let file = path.rsplit('/').next().unwrap_or("").to_string();
            (f.finding.code.to_string(), file)
        })
        .collect()
}

fn split_count(r: &ScanReport, id: i64, split: &str) -> u64 {
    r.histogram.classes[&id]
        .splits
        .get(split)
        .map_or(0, |s| s.count)
}

#[test]
fn clean_ultralytics_tree_has_no_findings_and_counts_objects_per_split() {
    let dir = tempfile::tempdir().unwrap();
    ultralytics(dir.path());
    let r = scan(dir.path(), &opts(Overrides::default()));
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    assert!(!r.has_errors());
    assert_eq!(r.summary.status, "ok");
    assert_eq!(r.settings.num_classes, Some(3));
    assert_eq!(r.histogram.unit, "objects");
    assert_eq!(r.summary.files_scanned, 9);
    assert_eq!(r.summary.elements, 6 * 3 + 4);
    assert_eq!(split_count(&r, 0, "train"), 6);
    assert_eq!(split_count(&r, 1, "train"), 6);
    assert_eq!(split_count(&r, 0, "val"), 1);
    assert_eq!(split_count(&r, 2, "val"), 1);
    assert_eq!(split_count(&r, 2, "train"), 6);
    assert_eq!(split_count(&r, 1, "val"), 2);
    let names: Vec<Option<String>> = r
        .histogram
        .classes
        .values()
        .map(|c| c.name.clone())
        .collect();
    assert_eq!(
        names,
        [Some("cat".into()), Some("dog".into()), Some("bird".into())]
    );
    assert_eq!(r.objects.files_with_boxes, 8);
}

#[test]
fn planted_defects_are_each_found_in_their_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    ultralytics(root);
    sample(
        root,
        "images/train",
        "labels/train",
        "beyond",
        "0 0.5 0.5 0.2 0.2\n3 0.5 0.5 0.1 0.1\n",
    );
    sample(
        root,
        "images/train",
        "labels/train",
        "pixels",
        "0 320 240 64 48\n",
    );
    sample(
        root,
        "images/train",
        "labels/train",
        "flat",
        "1 0.5 0.5 0.0 0.1\n",
    );
    sample(
        root,
        "images/train",
        "labels/train",
        "conf",
        "1 0.5 0.5 0.2 0.1 0.88\n",
    );
    sample(
        root,
        "images/train",
        "labels/train",
        "twice",
        "1 0.5 0.5 0.2 0.1\n1 0.5 0.5 0.2 0.1\n",
    );
    sample(
        root,
        "images/val",
        "labels/val",
        "poly",
        "2 0.1 0.1 0.5 0.1 0.5 0.5\n",
    );
    put(root, "labels/val/orphan.txt", b"0 0.5 0.5 0.2 0.2\n");
    let r = scan(root, &opts(Overrides::default()));
    let want: BTreeSet<(String, String)> = [
        ("LG701", "beyond.txt"),
        ("LG706", "pixels.txt"),
        ("LG705", "flat.txt"),
        ("LG709", "conf.txt"),
        ("LG711", "twice.txt"),
        ("LG707", "orphan.txt"),
        ("LG710", ""),
    ]
    .iter()
    .map(|(c, f)| (c.to_string(), f.to_string()))
    .collect();
    assert_eq!(codes(&r), want);
    assert!(r.has_errors());
    assert_eq!(r.summary.bad_elements, 1);
    assert_eq!(r.histogram.classes[&3].role, "out_of_range");
    assert_eq!(r.objects.files_with_polygons, 1);
    // With overlays asked for (--html), each label file with findings gets its picture; the
    // clean files and the orphan (no image, no boxes to place) get none.
    let mut o = opts(Overrides::default());
    o.overlays = true;
    let r = scan(root, &o);
    let overlaid: BTreeSet<&str> = r
        .overlays
        .iter()
        .map(|(p, _)| p.rsplit('/').next().unwrap())
        .collect();
    for f in ["beyond.txt", "pixels.txt", "flat.txt", "twice.txt"] {
        assert!(overlaid.contains(f), "{f} in {overlaid:?}");
    }
    assert!(
        !overlaid.contains("v0.txt") && !overlaid.contains("empty.txt"),
        "{overlaid:?}"
    );
}

/// `--num-classes` overrides data.yaml's class count: the head the model was built with.
#[test]
fn num_classes_given_overrides_data_yaml() {
    let dir = tempfile::tempdir().unwrap();
    ultralytics(dir.path());
    let r = scan(dir.path(), &opts(classes(2, 255)));
    let c: Vec<String> = r
        .all_findings()
        .map(|f| f.finding.code.to_string())
        .collect();
    // Bird (2) in the six train files and in val/v0.
    assert_eq!(c, ["LG701"; 7], "{c:?}");
    assert_eq!(r.summary.bad_elements, 7);
}

#[test]
fn roboflow_export_splits_and_classes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(
        root,
        "data.yaml",
        b"train: ../train/images\nval: ../valid/images\ntest: ../test/images\n\nnc: 2\nnames: ['helmet', 'head']\n\nroboflow:\n  workspace: w\n  version: 1\n",
    );
    for i in 0..3 {
        sample(
            root,
            "train/images",
            "train/labels",
            &format!("a{i}_jpg.rf.{i}"),
            "0 0.5 0.5 0.2 0.2\n1 0.3 0.3 0.1 0.1\n1 0.7 0.7 0.1 0.1\n",
        );
    }
    sample(
        root,
        "valid/images",
        "valid/labels",
        "b_jpg.rf.9",
        "1 0.5 0.5 0.2 0.2\n0 0.2 0.2 0.1 0.1\n",
    );
    sample(
        root,
        "test/images",
        "test/labels",
        "c_jpg.rf.8",
        "0 0.5 0.5 0.2 0.2\n1 0.2 0.2 0.1 0.1\n",
    );
    put(root, "README.roboflow.txt", b"exported from roboflow\n");
    let r = scan(root, &opts(Overrides::default()));
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    assert_eq!(r.summary.files_scanned, 5);
    assert_eq!(r.settings.num_classes, Some(2));
    assert_eq!(split_count(&r, 0, "train"), 3);
    assert_eq!(split_count(&r, 1, "train"), 6);
    assert_eq!(split_count(&r, 1, "val"), 1);
    assert_eq!(split_count(&r, 0, "test"), 1);
    assert_eq!(r.histogram.classes[&1].name.as_deref(), Some("head"));
}

/// A head larger than data.yaml's names is said once, for the dataset, not in every file.
#[test]
fn head_larger_than_the_names_is_one_dataset_finding() {
    let dir = tempfile::tempdir().unwrap();
    ultralytics(dir.path());
    let r = scan(dir.path(), &opts(classes(5, 255)));
    let found: Vec<(String, Option<String>)> = r
        .all_findings()
        .map(|f| (f.finding.code.to_string(), f.path.clone()))
        .filter(|(c, _)| c != "LG609")
        .collect();
    assert_eq!(found, [("LG704".to_string(), None)], "{found:?}");
    let f = r
        .all_findings()
        .find(|f| f.finding.code == "LG704")
        .unwrap();
    assert!(
        f.finding
            .message
            .contains("the head has 5 classes but ultralytics needs 3"),
        "{}",
        f.finding.message
    );
}
