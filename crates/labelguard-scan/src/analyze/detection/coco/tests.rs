use super::*;
use crate::config::{Overrides, ScanOptions};

fn run(text: &str) -> FileResult {
    let o = Overrides {
        num_classes: Some(3),
        ..Overrides::default()
    };
    let opts = ScanOptions::resolve(None, &o).expect("settings");
    let ctx = Ctx::new(&opts, &[]);
    coco_bytes(text.as_bytes(), "instances.json", &ctx)
}

fn codes(r: &FileResult) -> Vec<&str> {
    r.findings.iter().map(|f| f.code).collect()
}

fn message<'a>(r: &'a FileResult, code: &str) -> &'a str {
    &r.findings
        .iter()
        .find(|f| f.code == code)
        .unwrap_or_else(|| panic!("{code} in {:?}", codes(r)))
        .message
}

const IMAGES: &str = r#""images": [{"id": 1, "file_name": "a.jpg", "width": 100, "height": 50}]"#;
const CATS: &str = r#""categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]"#;

#[test]
fn a_waiting_annotation_costs_64_bytes() {
    assert_eq!(std::mem::size_of::<Deferred>(), 64);
}

#[test]
fn a_clean_file_counts_its_objects_in_model_ids() {
    let r = run(&format!(
        r#"{{{IMAGES}, "annotations": [{{"id": 1, "image_id": 1, "category_id": 2, "bbox": [0, 0, 100, 50], "iscrowd": 1}}], {CATS}}}"#
    ));
    assert_eq!(codes(&r), Vec::<&str>::new());
    assert_eq!(r.histogram, vec![(2, 1)]);
    assert_eq!(r.declared.len(), 2);
    assert_eq!(r.objects.crowd, 1);
    assert_eq!(r.kind, FileKind::Annotations);
}

#[test]
fn annotations_before_images_are_checked_after_the_file() {
    let r = run(&format!(
        r#"{{"annotations": [{{"id": 1, "image_id": 1, "category_id": 1, "bbox": [90, 0, 20, 10]}}, {{"id": 2, "image_id": 1, "category_id": 1, "bbox": [0, 0, 100.9, 50.9]}}], {CATS}, {IMAGES}}}"#
    ));
    assert_eq!(codes(&r), vec!["LG706"]);
    assert!(message(&r, "LG706").starts_with("1 annotation has"));
}

#[test]
fn python_nan_in_a_bbox_is_an_invalid_box() {
    let r = run(&format!(
        r#"{{{IMAGES}, "annotations": [{{"id": 1, "image_id": 1, "category_id": 1, "bbox": [NaN, 0, 5, 5]}}], {CATS}}}"#
    ));
    assert_eq!(codes(&r), vec!["LG705"]);
    assert!(
        message(&r, "LG705").contains("bbox [NaN, 0, 5, 5] (a value that is not a finite number)"),
        "{}",
        message(&r, "LG705")
    );
}

#[test]
fn malformed_entries_are_grouped_by_problem() {
    let r = run(&format!(
        r#"{{"images": [{{"id": 1, "file_name": "a.jpg", "width": 100, "height": 50}}, {{"id": 1, "file_name": "b.jpg", "width": 100, "height": 50}}],
        "annotations": [{{"id": 1, "image_id": "1", "category_id": 1, "bbox": [0, 0, 1, 1]}}, {{"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 1]}}, {{"id": 3, "image_id": 1, "category_id": 1}}], {CATS}}}"#
    ));
    let lg709: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.code == "LG709")
        .map(|f| f.message.split(" (").next().unwrap())
        .collect();
    assert_eq!(
        lg709,
        [
            "images entries with a duplicate id",
            "annotations whose `image_id` has the wrong type",
            "annotations with a duplicate id",
            "annotations whose bbox is not 4 numbers",
            "annotations without `bbox`",
        ]
    );
    assert!(
        !codes(&r).contains(&"LG707"),
        "a wrong-typed image_id is LG709 only"
    );
}

#[test]
fn a_missing_section_is_named_once() {
    let r = run(&format!(
        r#"{{"annotations": [{{"id": 1, "image_id": 4, "category_id": 1, "bbox": [0, 0, 1, 1]}}, {{"id": 2, "image_id": 4, "category_id": 2, "bbox": [0, 0, 1, 1]}}], {CATS}}}"#
    ));
    assert_eq!(codes(&r), vec!["LG709"]);
    assert_eq!(message(&r, "LG709"), "the file has no `images` list");
}

#[test]
fn broken_and_empty_files() {
    assert_eq!(codes(&run("")), vec!["LG603"]);
    let r = run("{\"images\": [{\"id\": 1}");
    assert_eq!(codes(&r), vec!["LG602"]);
    assert!(message(&r, "LG602").contains("truncated"));
}

#[test]
fn unknown_categories_name_the_first_annotations_in_file_order() {
    let r = run(&format!(
        r#"{{{IMAGES}, "annotations": [{{"id": 5, "image_id": 1, "category_id": 9, "bbox": [0, 0, 1, 1]}}, {{"id": 6, "image_id": 1, "category_id": 7, "bbox": [0, 0, 2, 1]}}, {{"id": 7, "image_id": 1, "category_id": 9, "bbox": [0, 0, 3, 1]}}], {CATS}}}"#
    ));
    let f = r.findings.iter().find(|f| f.code == "LG702").unwrap();
    assert_eq!(f.count, Some(3));
    let idx: Vec<usize> = f.locations.iter().map(|l| l.index[0]).collect();
    assert_eq!(idx, [0, 1]);
    assert!(f
        .message
        .contains("annotations[0] (id 5, image_id 1): category_id 9"));
}
