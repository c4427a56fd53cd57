//! The inputs of `tests/cmd/fix/coco_*` and, in `coco_contiguous.out`, the outputs `fix` must
//! write: the input with only its ids renumbered (computed here, not by labelguard), pretty
//! JSON byte for byte, and the input itself unchanged. (fix_detection_cli.rs keeps the runs
//! that are killed and resumed.)

use crate::scan_common::coco::{coco, contiguous, mapped, write_coco};
use crate::scan_common::put;
use serde_json::Value;
use std::path::Path;

/// Writes the `coco_*.in` and `coco_*.out` folders under `fix`.
pub fn write(fix: &Path) {
    let input = small(unescaped(coco(false)));
    let (inp, out) = (
        fix.join("coco_contiguous.in"),
        fix.join("coco_contiguous.out"),
    );
    for dir in [&inp, &out] {
        std::fs::create_dir_all(dir).unwrap();
        write_coco(dir, "instances.json", &input);
    }
    std::fs::create_dir_all(out.join("new")).unwrap();
    write_coco(
        &out,
        "new/instances.json",
        &mapped(&input, &contiguous(&input, 1)),
    );
    let zero = mapped(&input, &contiguous(&input, 0));
    for name in ["detectron2.json", "start0.json"] {
        write_coco(&out, name, &zero);
    }
    refusals(
        &fix.join("coco_refusals.in"),
        &fix.join("coco_refusals.out"),
    );
}

/// A COCO file with an annotation of an undeclared category (12), a truncated copy, a JSON file
/// that is not COCO, an unrelated file that must be kept, and an empty folder `c`. `.out` holds
/// the input and the unrelated file as they must stay, and the output of `--drop-undeclared`.
fn refusals(inp: &Path, out: &Path) {
    let input = small(unescaped(coco(true)));
    let bytes = serde_json::to_vec_pretty(&input).unwrap();
    for dir in [inp, out] {
        put(dir, "in.json", &bytes);
        put(dir, "other.json", b"keep");
    }
    put(inp, "cut.json", &bytes[..bytes.len() / 2]);
    put(inp, "list.json", b"[1, 2]");
    put(inp, "c/.keep", b"");
    let mut dropped = input.clone();
    dropped["annotations"].as_array_mut().unwrap().pop();
    let renumbered = mapped(&dropped, &contiguous(&dropped, 1));
    put(
        out,
        "out/a.json",
        &serde_json::to_vec_pretty(&renumbered).unwrap(),
    );
}

/// `v` with its first 40 annotations (and the last, the undeclared one, if there is one):
/// every category is still declared, and the committed files stay small.
fn small(mut v: Value) -> Value {
    let all = v["annotations"].as_array_mut().unwrap();
    let last = all.last().cloned().unwrap();
    all.truncate(40);
    if last["id"] == 9999 {
        all.push(last);
    }
    v
}

/// `v` with its category names made non-ASCII instead of quoted: trycmd reads a backslash in a
/// written file as a path separator ('/'), so names whose quotes JSON escapes cannot be
/// compared; these are bytes that must pass through unchanged too.
fn unescaped(mut v: Value) -> Value {
    for c in v["categories"].as_array_mut().unwrap() {
        c["name"] = format!("catégorie {}", c["id"]).into();
    }
    v
}
