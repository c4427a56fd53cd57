//! A COCO file with COCO's own gaps in its category ids, for the `fix` cases
//! (tests/cmd/fix/coco_*) and fix_detection_cli.rs, and what its contiguous form must be.

use serde_json::{json, Value};
use std::path::Path;
/// A COCO file with COCO's gaps in the ids (1..90 less ten), pretty-printed, categories last.
pub fn coco(undeclared: bool) -> Value {
    let ids: Vec<i64> = (1..=90)
        .filter(|i| ![12, 26, 29, 30, 45, 66, 68, 69, 71, 83].contains(i))
        .collect();
    let categories: Vec<Value> = ids
        .iter()
        .map(|i| json!({"supercategory": "thing", "id": i, "name": format!("class \"{i}\"")}))
        .collect();
    let mut annotations: Vec<Value> = (0..400)
        .map(|k| {
            json!({"segmentation": [[1.5, 2.25, 3.0, 4e-3]], "area": 12.5, "iscrowd": 0,
                   "image_id": k % 37, "bbox": [0.1, 0.2, 30.75, 40.0],
                   "category_id": ids[(k * 7) % ids.len()], "id": 1000 + k})
        })
        .collect();
    if undeclared {
        annotations
            .push(json!({"id": 9999, "image_id": 1, "category_id": 12, "bbox": [0, 0, 1, 1]}));
    }
    let images: Vec<Value> = (0..37)
        .map(|i| json!({"id": i, "file_name": format!("{i:012}.jpg"), "width": 640, "height": 480}))
        .collect();
    json!({"info": {"description": "generated", "id": 12}, "images": images,
           "annotations": annotations, "categories": categories})
}

pub fn write_coco(dir: &Path, name: &str, v: &Value) -> Vec<u8> {
    let text = serde_json::to_vec_pretty(v).unwrap();
    std::fs::write(dir.join(name), &text).unwrap();
    text
}

/// The input with its ids mapped as the mapping says: what the output must parse to.
pub fn mapped(input: &Value, old_to_new: &Value) -> Value {
    let new = |id: &Value| old_to_new[id.as_i64().unwrap().to_string()].clone();
    let mut v = input.clone();
    for c in v["categories"].as_array_mut().unwrap() {
        c["id"] = new(&c["id"]);
    }
    for a in v["annotations"].as_array_mut().unwrap() {
        a["category_id"] = new(&a["category_id"]);
    }
    v
}

/// The contiguous numbering of `input`'s declared categories from `start`, in id order, as
/// `{"old": new}`: what `fix` must choose (COCO's ids 1..90 less ten become 1..80).
pub fn contiguous(input: &Value, start: i64) -> Value {
    let mut ids: Vec<i64> = input["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    ids.sort_unstable();
    let map: serde_json::Map<String, Value> = ids
        .iter()
        .zip(start..)
        .map(|(old, new)| (old.to_string(), json!(new)))
        .collect();
    Value::Object(map)
}
