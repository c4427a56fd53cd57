//! The inputs of `tests/cmd/fix/coco_*` and, in `coco_contiguous.out`, the outputs `fix` must
//! write: the input with only its ids renumbered (computed here, not by labelguard), pretty
//! JSON byte for byte, and the input itself unchanged. (fix_detection_cli.rs keeps the runs
//! that are killed and resumed.)

use crate::scan_common::coco::{coco, contiguous, mapped, write_coco};
use std::path::Path;

/// Writes the `coco_*.in` and `coco_*.out` folders under `fix`.
pub fn write(fix: &Path) {
    // trycmd reads a backslash in a written file as a path separator ('/'), so the names'
    // quotes (escaped in JSON) become non-ASCII here: bytes that must pass through unchanged.
    let mut input = coco(false);
    for c in input["categories"].as_array_mut().unwrap() {
        c["name"] = format!("catégorie {}", c["id"]).into();
    }
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
}
