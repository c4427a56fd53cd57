use super::*;

fn remap(s: &str, start: i64) -> String {
    String::from_utf8(rewrite(s.as_bytes(), start, false).unwrap()).unwrap()
}

#[test]
fn only_the_ids_change_byte_for_byte() {
    let input = r#"{"info": {"id": 7, "x": 1.50e3},
  "annotations": [ {"id": 1, "category_id": 90, "bbox": [1.0, 2.25, 3, 4e-1]},
               {"category_id":3,"id":2,"area":0.5} ],
  "categories": [{"supercategory": "x", "id": 90, "name": "toothbrush"},
             {"name": "car", "id": 3}]}"#;
    let out = remap(input, 1);
    let want = input
        .replace("\"category_id\": 90", "\"category_id\": 2")
        .replace("\"category_id\":3", "\"category_id\":1")
        .replace("\"id\": 90", "\"id\": 2")
        .replace("\"id\": 3}", "\"id\": 1}");
    assert_eq!(out, want);
    // From 0: the same positions, other numbers.
    let zero = remap(input, 0);
    assert!(zero.contains("\"category_id\": 1,") && zero.contains("\"category_id\":0,"));
    // info.id and annotations' own ids are not category ids.
    assert!(out.contains("{\"id\": 7, \"x\": 1.50e3}") && out.contains("\"id\":2,"));
}

#[test]
fn minified_and_key_orders_and_categories_first() {
    let input = r#"{"categories":[{"id":5,"name":"b"},{"id":2,"name":"a"}],"images":[],"annotations":[{"category_id":5},{"category_id":2}]}"#;
    let out = remap(input, 1);
    assert_eq!(
        out,
        r#"{"categories":[{"id":2,"name":"b"},{"id":1,"name":"a"}],"images":[],"annotations":[{"category_id":2},{"category_id":1}]}"#
    );
    // Already contiguous: nothing changes.
    assert_eq!(remap(&out, 1), out);
}

#[test]
fn keys_inside_strings_and_nested_arrays_are_not_ids() {
    let input = r#"{"annotations":[{"note":"\"category_id\": 4, \\\"id\": 4","segmentation":[[1,2,[3]],[4]],"attrs":{"category_id":4,"id":4},"category_id":4}],
"info":{"categories":[{"id":4}]},"categories":[{"id":4,"name":"say \"hi\" \u00e9"}]}"#;
    let out = remap(input, 1);
    assert_eq!(
        out,
        input
            .replace("\"category_id\":4}]", "\"category_id\":1}]")
            .replace("{\"id\":4,\"name\"", "{\"id\":1,\"name\"")
    );
    let f = scan(input.as_bytes()).unwrap();
    assert_eq!(f.categories[0].name.as_deref(), Some("say \"hi\" é"));
    // An escaped key is still the key it spells.
    let esc = r#"{"categories":[{"\u0069d":9}],"annotations":[{"category\u005fid":9}]}"#;
    assert_eq!(
        remap(esc, 0),
        r#"{"categories":[{"\u0069d":0}],"annotations":[{"category\u005fid":0}]}"#
    );
}

#[test]
fn what_cannot_be_remapped_is_refused_with_its_name() {
    let err = |s: &str| rewrite(s.as_bytes(), 1, false).unwrap_err().to_string();
    assert!(err(r#"[1]"#).contains("not a JSON object"));
    assert!(err(r#"{"images":[]}"#).contains("no top-level \"categories\""));
    assert!(err(r#"{"categories":[{"id":1},{"id":1}]}"#).contains("id 1 more than once"));
    assert!(err(r#"{"categories":[{"id":"1"}]}"#).contains("categories[0].id is \"1\""));
    assert!(err(r#"{"categories":[{"id":2.0}]}"#).contains("not an integer"));
    assert!(err(r#"{"categories":[{"name":"a"}]}"#).contains("categories[0] has no \"id\""));
    let e = err(
        r#"{"categories":[{"id":1}],"annotations":[{"category_id":7},{"category_id":7},{"x":0}]}"#,
    );
    assert!(
        e.contains("no category_id (1 annotation), 7 (2 annotations)")
            && e.contains("--drop-undeclared"),
        "{e}"
    );
}

#[test]
fn dropping_undeclared_annotations_keeps_valid_json() {
    let ann = |c: i64| format!("{{\"category_id\": {c}}}");
    // Every pattern of kept (1) and dropped (7) among four annotations.
    for mask in 0..16u32 {
        let ids: Vec<i64> = (0..4)
            .map(|k| if mask >> k & 1 == 1 { 7 } else { 1 })
            .collect();
        let body: Vec<String> = ids.iter().map(|&c| ann(c)).collect();
        let input = format!(
            "{{\"categories\": [{{\"id\": 1}}],\n \"annotations\": [\n  {}\n ]}}",
            body.join(",\n  ")
        );
        let out = rewrite(input.as_bytes(), 0, true).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let kept = ids.iter().filter(|&&c| c == 1).count();
        assert_eq!(v["annotations"].as_array().unwrap().len(), kept, "{mask}");
        assert!(v["annotations"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["category_id"] == 0));
    }
}

#[test]
fn the_mapping_and_the_verification() {
    let input = r#"{"categories":[{"id":10,"name":"b"},{"id":4,"name":"a"}],"annotations":[{"category_id":10}]}"#;
    let found = scan(input.as_bytes()).unwrap();
    let r = plan(&found, 1, false).unwrap();
    let m: serde_json::Value = serde_json::from_str(&r.mapping_json()).unwrap();
    assert_eq!(m["old_to_new"], serde_json::json!({"4": 1, "10": 2}));
    assert_eq!(m["new_to_old"], serde_json::json!({"1": 4, "2": 10}));
    assert_eq!(m["names"], serde_json::json!({"1": "a", "2": "b"}));
    let out = rewrite(input.as_bytes(), 1, false).unwrap();
    assert_eq!(verify(&out, &r, 1).problems, Vec::<String>::new());
    // The input itself is not what the remap promises.
    let v = verify(input.as_bytes(), &r, 1);
    assert!(v.problems.iter().any(|p| p.contains("contiguous")), "{v:?}");
    assert!(!verify(&out[..out.len() - 1], &r, 1).problems.is_empty());
}
