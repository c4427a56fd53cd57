//! The `check`, `rules` and `rule` commands as a user runs them: real files, real exit codes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn labelguard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_labelguard"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A .safetensors file written by hand (8-byte header length, JSON header, data).
fn safetensors(dir: &Path, name: &str, tensors: &[(&str, &str, &[usize], Vec<u8>)]) -> PathBuf {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (tname, dtype, shape, bytes) in tensors {
        let begin = data.len();
        data.extend_from_slice(bytes);
        header.insert(
            tname.to_string(),
            serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [begin, data.len()]}),
        );
    }
    let mut h = serde_json::to_vec(&header).unwrap();
    while !h.len().is_multiple_of(8) {
        h.push(b' ');
    }
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(&(h.len() as u64).to_le_bytes()).unwrap();
    f.write_all(&h).unwrap();
    f.write_all(&data).unwrap();
    path
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
fn i64s(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An .npy array written by hand.
fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(data);
    out
}

fn npz(dir: &Path, name: &str, members: &[(&str, Vec<u8>)]) -> PathBuf {
    let path = dir.join(name);
    let mut z = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (m, bytes) in members {
        z.start_file(format!("{m}.npy"), zip::write::SimpleFileOptions::default())
            .unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap();
    path
}

fn void_batch(dir: &Path) -> PathBuf {
    safetensors(
        dir,
        "void.safetensors",
        &[
            ("input", "F32", &[1, 3, 2, 2], f32s(&[0.5; 12])),
            ("target", "I64", &[1, 2, 2], i64s(&[0, 255, 2, 255])),
        ],
    )
}

#[test]
fn a_valid_call_is_ok_and_exits_0() {
    let d = tempfile::tempdir().unwrap();
    let p = void_batch(d.path());
    let o = labelguard(&[
        "check",
        "cross_entropy",
        p.to_str().unwrap(),
        "--arg",
        "ignore_index=255",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["verdict"], "ok");
    assert_eq!(v["op"], "cross_entropy");
    assert_eq!(v["findings"].as_array().unwrap().len(), 0);
}

#[test]
fn a_device_assert_is_explained_and_exits_1() {
    let d = tempfile::tempdir().unwrap();
    let p = void_batch(d.path());
    let o = labelguard(&[
        "check",
        "cross_entropy",
        p.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["verdict"], "device_assert");
    assert_eq!(v["schema_version"], 1);
    let f = &v["findings"][0];
    assert_eq!(f["code"], "LG103");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["count"], 2);
    assert!(f["fix"].as_str().unwrap().contains("ignore_index=255"));
    assert!(
        f["hint"].as_str().unwrap().contains("void")
            || f["hint"].as_str().unwrap().contains("unlabelled")
    );
    assert_eq!(f["locations"][0]["tensor"], "target");
    assert_eq!(f["locations"][0]["index"], serde_json::json!([0, 0, 1]));
    assert_eq!(f["locations"][0]["value"], "255");

    let text = labelguard(&["check", "F.cross_entropy", p.to_str().unwrap()]);
    let out = stdout(&text);
    assert_eq!(text.status.code(), Some(1));
    assert!(
        out.contains("error[LG103]") && out.contains("fix: pass ignore_index=255"),
        "{out}"
    );
    assert!(out.contains("at: target[0, 0, 1] = 255"), "{out}");
    assert!(!out.contains('\x1b'), "NO_COLOR must switch colours off");
}

#[test]
fn npz_files_and_module_names_work() {
    let d = tempfile::tempdir().unwrap();
    let p = npz(
        d.path(),
        "batch.npz",
        &[
            ("input", npy("<f4", "(2, 3)", &f32s(&[0.0; 6]))),
            // 7, not 3: a largest id of exactly C is LG418 (background not counted).
            ("target", npy("<i8", "(2,)", &i64s(&[0, 7]))),
        ],
    );
    let o = labelguard(&[
        "check",
        "nn.CrossEntropyLoss",
        p.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["findings"][0]["code"], "LG101");
}

/// Bad input of every kind: exit 2 and a message that names the problem, never a panic.
#[test]
fn bad_input_exits_2_with_a_clear_message() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let good = void_batch(dir);
    let good = good.to_str().unwrap();
    let truncated = {
        let p = npz(
            dir,
            "t.npz",
            &[("input", npy("<f4", "(2, 3)", &f32s(&[0.0; 6])))],
        );
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
        p
    };
    let short_npy = {
        let p = dir.join("short.npy");
        std::fs::write(&p, npy("<i8", "(10,)", &i64s(&[1, 2]))).unwrap();
        p
    };
    let complex = npz(dir, "c.npz", &[("input", npy("<c8", "(1,)", &[0; 8]))]);
    let empty = dir.join("empty.npz");
    std::fs::write(&empty, b"").unwrap();
    let garbage = dir.join("garbage.bin");
    std::fs::write(&garbage, b"this is not a tensor file").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["check", "cross_entropy", "/no/such/file.npz"],
            "No such file",
        ),
        (
            vec!["check", "cross_entropy", truncated.to_str().unwrap()],
            "t.npz",
        ),
        (
            vec!["check", "cross_entropy", short_npy.to_str().unwrap()],
            "truncated",
        ),
        (
            vec!["check", "cross_entropy", complex.to_str().unwrap()],
            "'<c8' is not supported",
        ),
        (
            vec!["check", "cross_entropy", empty.to_str().unwrap()],
            "empty",
        ),
        (
            vec!["check", "cross_entropy", garbage.to_str().unwrap()],
            "not a tensor file",
        ),
        (
            vec!["check", "cross_entropy", dir.to_str().unwrap()],
            "directory",
        ),
        (
            vec!["check", "crossentropy", good],
            "unknown op 'crossentropy'",
        ),
        (
            vec!["check", "nll_loss", good, "--arg", "ignore_index=abc"],
            "cannot read ignore_index=abc",
        ),
        (
            vec!["check", "nll_loss", good, "--arg", "ignore=255"],
            "'ignore' is not an argument of nll_loss",
        ),
        (
            vec!["check", "nll_loss", good, "--arg", "ignore_index"],
            "is not NAME=VALUE",
        ),
        (
            vec!["check", "gather", good],
            "is not a parameter of gather",
        ),
        (
            vec!["check", "multinomial", good],
            "is not a parameter of multinomial",
        ),
        (vec!["rule", "LG999"], "no rule 'LG999'"),
    ];
    for (args, expect) in cases {
        let o = labelguard(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(expect),
            "{args:?}: expected {expect:?} in {err:?}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // A tensor under a PyTorch name the op does not have, and a missing one.
    let wrong = safetensors(
        dir,
        "wrong.safetensors",
        &[
            ("logits", "F32", &[2, 3], f32s(&[0.0; 6])),
            ("labels", "I64", &[2], i64s(&[0, 1])),
        ],
    );
    let o = labelguard(&["check", "cross_entropy", wrong.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("tensor 'logits' is not a parameter of cross_entropy; its tensors are named 'input', 'target', 'weight' (rename 'logits' to 'input'?)"), "{}", stderr(&o));
    let missing = safetensors(
        dir,
        "missing.safetensors",
        &[("input", "F32", &[2, 3], f32s(&[0.0; 6]))],
    );
    let o = labelguard(&["check", "cross_entropy", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("needs a tensor named 'target'"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn rules_are_listed_and_documented() {
    let o = labelguard(&["rules"]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    for code in ["LG101", "LG103", "LG301", "LG401", "LG508"] {
        assert!(out.contains(code), "{code} missing from `labelguard rules`");
    }
    let o = labelguard(&["rule", "lg103"]);
    let out = stdout(&o);
    assert!(
        out.starts_with("LG103 void-label-not-ignored (error)"),
        "{out}"
    );
    assert!(
        out.contains("## Why it crashes") && out.contains("ignore_index=255"),
        "{out}"
    );
    let by_name = labelguard(&["rule", "void-label-not-ignored"]);
    assert_eq!(stdout(&by_name), out);
}

/// docs/rules.md is generated from the rules' doc comments; this fails when it is stale.
#[test]
fn docs_rules_md_is_up_to_date() {
    let generated = stdout(&labelguard(&["rules", "--format", "markdown"]));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/rules.md");
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/rules.md is stale: regenerate it with `cargo run -q -p labelguard-cli -- rules --format markdown > docs/rules.md`"
    );
}

#[test]
fn help_teaches_the_ops_and_exit_codes() {
    let o = labelguard(&["check", "--help"]);
    let out = stdout(&o);
    assert!(
        out.contains("F.cross_entropy(input, target, weight=None, ignore_index=-100"),
        "{out}"
    );
    assert!(
        out.contains("Exit codes: 0 for ok/silent, 1 for error/device_assert, 2"),
        "{out}"
    );
}
