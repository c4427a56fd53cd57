//! The JSON report against its published schema (crates/labelguard-scan/schema/), checked by a
//! small validator for the JSON Schema keywords the schema uses.

mod scan_common;
use scan_common::*;
use serde_json::Value;

struct Validator {
    root: Value,
}

impl Validator {
    fn resolve<'a>(&'a self, s: &'a Value) -> &'a Value {
        match s.get("$ref").and_then(Value::as_str) {
            Some("#") => &self.root,
            Some(r) => {
                let name = r.strip_prefix("#/$defs/").expect("local refs only");
                &self.root["$defs"][name]
            }
            None => s,
        }
    }

    fn type_ok(t: &str, v: &Value) -> bool {
        match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            other => panic!("unknown type {other}"),
        }
    }

    fn check(&self, schema: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
        let s = self.resolve(schema);
        let known = [
            "$schema",
            "$id",
            "title",
            "description",
            "type",
            "required",
            "additionalProperties",
            "properties",
            "items",
            "const",
            "enum",
            "minimum",
            "maximum",
            "minItems",
            "pattern",
            "$ref",
            "$defs",
        ];
        for k in s.as_object().expect("schema object").keys() {
            assert!(
                known.contains(&k.as_str()),
                "the validator does not know keyword {k}"
            );
        }
        if let Some(t) = s.get("type") {
            let ok = match t {
                Value::String(t) => Self::type_ok(t, v),
                Value::Array(ts) => ts.iter().any(|t| Self::type_ok(t.as_str().unwrap(), v)),
                _ => panic!("bad type"),
            };
            if !ok {
                errors.push(format!("{at}: {v} is not of type {t}"));
                return;
            }
        }
        if let Some(c) = s.get("const") {
            if c != v {
                errors.push(format!("{at}: {v} != {c}"));
            }
        }
        if let Some(e) = s.get("enum") {
            if !e.as_array().unwrap().contains(v) {
                errors.push(format!("{at}: {v} not in {e}"));
            }
        }
        if let (Some(m), Some(x)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64()) {
            if x < m {
                errors.push(format!("{at}: {x} < {m}"));
            }
        }
        if let (Some(m), Some(x)) = (s.get("maximum").and_then(Value::as_f64), v.as_f64()) {
            if x > m {
                errors.push(format!("{at}: {x} > {m}"));
            }
        }
        if let Some(p) = s.get("pattern").and_then(Value::as_str) {
            assert_eq!(p, "^LG[0-9]{3}$", "the validator knows this one pattern");
            let t = v.as_str().unwrap_or("");
            if !(t.len() == 5 && t.starts_with("LG") && t[2..].chars().all(|c| c.is_ascii_digit()))
            {
                errors.push(format!("{at}: {t} does not match {p}"));
            }
        }
        if let Value::Object(obj) = v {
            if let Some(req) = s.get("required").and_then(Value::as_array) {
                for k in req {
                    if !obj.contains_key(k.as_str().unwrap()) {
                        errors.push(format!("{at}: missing {k}"));
                    }
                }
            }
            let props = s.get("properties").and_then(Value::as_object);
            for (k, x) in obj {
                match props.and_then(|p| p.get(k)) {
                    Some(ps) => self.check(ps, x, &format!("{at}.{k}"), errors),
                    None => match s.get("additionalProperties") {
                        Some(Value::Bool(false)) => {
                            errors.push(format!("{at}: unexpected key {k}"))
                        }
                        Some(extra @ Value::Object(_)) => {
                            self.check(extra, x, &format!("{at}.{k}"), errors)
                        }
                        _ => {}
                    },
                }
            }
        }
        if let Value::Array(items) = v {
            if let Some(n) = s.get("minItems").and_then(Value::as_u64) {
                if (items.len() as u64) < n {
                    errors.push(format!("{at}: fewer than {n} items"));
                }
            }
            if let Some(is) = s.get("items") {
                for (i, x) in items.iter().enumerate() {
                    self.check(is, x, &format!("{at}[{i}]"), errors);
                }
            }
        }
    }

    fn errors(&self, v: &Value) -> Vec<String> {
        let mut e = Vec::new();
        self.check(&self.root, v, "$", &mut e);
        e
    }
}

fn validator() -> Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../labelguard-scan/schema/scan-report.schema.json"
    );
    Validator {
        root: serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap(),
    }
}

#[test]
fn reports_of_every_kind_match_the_schema() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    make_data(dir.path());
    let c = dir.path().join("broken");
    put(&c, "zero.png", b"");
    put(&c, "bomb.png", &png_bomb(90_000, 90_000));
    put(&c, "t.jsonl", b"{\"label\": \"x\"}\n");
    put(&c, "w.txt", b"1 2 nan");
    // WebDataset samples: a class label past the head, a sample without its image.
    let w = dir.path().join("wds");
    put(&w, "000001.jpg", &jpeg_stub(8, 8));
    put(&w, "000001.seg.png", &png_gray8(8, 8, &[1; 64]));
    put(&w, "000001.cls", b"7");
    put(&w, "000002.seg.png", &png_gray8(8, 8, &[1; 64]));
    put(&w, "000002.cls", b"1");
    let runs: Vec<Vec<&str>> = vec![
        vec![
            "scan",
            "DATA",
            "--preset",
            "cityscapes",
            "--format",
            "json",
            "--no-config",
        ],
        vec![
            "scan",
            "DATA",
            "--preset",
            "cityscapes",
            "--format",
            "json",
            "--no-config",
            "--shard",
            "2/3",
            "--strict",
        ],
        vec![
            "scan",
            "DATA/arrays",
            "--num-classes",
            "19",
            "--ignore-index",
            "255",
            "--format",
            "json",
            "--no-config",
        ],
        vec![
            "scan",
            "labels.csv",
            "--num-classes",
            "10",
            "--label-column",
            "label",
            "--format",
            "json",
            "--no-config",
        ],
        vec![
            "scan",
            "broken",
            "--format",
            "json",
            "--no-config",
            "--class-weights",
            "broken/w.txt",
            "--num-classes",
            "4",
        ],
        vec!["scan", "broken", "--format", "json", "--no-config"],
        vec![
            "scan",
            "wds",
            "--num-classes",
            "3",
            "--format",
            "json",
            "--no-config",
        ],
    ];
    let mut repairs = 0;
    for args in runs {
        let o = run_in(dir.path(), &args);
        assert!(code(&o) <= 1, "{args:?}: {}", stderr(&o));
        let doc = json(&o);
        repairs += doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["findings"].as_array().unwrap())
            .filter(|f| f.get("repair").is_some())
            .count();
        let errors = v.errors(&doc);
        assert!(errors.is_empty(), "{args:?}:\n{}", errors.join("\n"));
    }
    assert!(
        repairs > 0,
        "the proposed repairs are checked against the schema too"
    );
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    make_data(dir.path());
    let doc = json(&run_in(
        dir.path(),
        &[
            "scan",
            "DATA",
            "--preset",
            "cityscapes",
            "--format",
            "json",
            "--no-config",
        ],
    ));
    assert!(v.errors(&doc).is_empty());
    let mut bad = doc.clone();
    bad.as_object_mut().unwrap().remove("summary");
    assert!(v
        .errors(&bad)
        .iter()
        .any(|e| e.contains("missing \"summary\"")));
    let mut bad = doc.clone();
    bad["files"][0]["findings"][0]["severity"] = "fatal".into();
    assert_eq!(v.errors(&bad).len(), 1);
    let mut bad = doc;
    bad["files"][0]["findings"][0]["code"] = "X101".into();
    bad["extra"] = 1.into();
    assert_eq!(v.errors(&bad).len(), 2);
}
