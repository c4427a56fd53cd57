//! The CLI's cases as data: every `tests/cmd/<face>/*.toml` is one command (its arguments, exit
//! code and `.stdin`), with its whole expected stdout and stderr in `.stdout` and `.stderr` beside
//! it; every `*.trycmd` is a list of commands, each with its exit code (`? 2`) and its output
//! (stdout and stderr together). A case runs in its `<case>.in/` folder, or in the one its
//! `fs.cwd` names, or else in this crate's folder. After a deliberate change of output,
//! `TRYCMD=overwrite cargo test -p labelguard-cli --test cli_cases` rewrites the expectations
//! (review the diff); see CONTRIBUTING.md.
//!
//! The binary inputs of the cases (tensor files, a small Cityscapes tree) are written by
//! [`write_fixtures`] below and committed; a test keeps the two the same.

#[path = "cases_gen/adversarial.rs"]
mod adversarial;
#[path = "cases_gen/coco.rs"]
mod coco;
#[path = "cases_gen/fix.rs"]
mod fix;
mod scan_common;
#[path = "cases_gen/truth.rs"]
mod truth;

use scan_common::{cityscapes, jpeg_stub, make_data, npy, png_gray8, put, tree};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .register_bin("labelguard", Path::new(env!("CARGO_BIN_EXE_labelguard")))
        .env("NO_COLOR", "1")
        // A hang is a bug (FIFOs, symlink loops): no case may take a minute.
        .timeout(Duration::from_secs(60))
        .case("tests/cmd/*/*.toml")
        .case("tests/cmd/*/*.trycmd");
}

#[test]
fn the_committed_fixtures_are_what_their_generator_writes() {
    let fresh = tempfile::tempdir().unwrap();
    write_fixtures(fresh.path());
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd");
    for dir in generated(fresh.path()) {
        let written = tree(&fresh.path().join(&dir));
        let mut committed = tree(&cases.join(&dir));
        // An `.out` folder may also hold outputs recorded by `TRYCMD=overwrite` (an HTML
        // report): what the generator writes there must be committed as it writes it.
        if dir.ends_with(".out") {
            committed.retain(|path, _| written.contains_key(path));
        }
        assert!(
            written == committed,
            "tests/cmd/{dir} differs from what write_fixtures writes: run \
             `cargo test -p labelguard-cli --test cli_cases -- --ignored write_the_fixtures`"
        );
    }
}

#[test]
#[ignore = "writes tests/cmd's generated inputs; run it by hand after changing write_fixtures"]
fn write_the_fixtures() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd");
    let fresh = tempfile::tempdir().unwrap();
    write_fixtures(fresh.path());
    for dir in generated(fresh.path()) {
        // The outputs recorded in an `.out` folder stay; the generator writes over its own.
        if !dir.ends_with(".out") {
            let _ = std::fs::remove_dir_all(cases.join(dir));
        }
    }
    write_fixtures(&cases);
}

/// The `<face>/<case>.in` folders that [`write_fixtures`] wrote under `root`.
fn generated(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for face in std::fs::read_dir(root).unwrap().flatten() {
        for case in std::fs::read_dir(face.path()).unwrap().flatten() {
            let name = case.file_name().to_string_lossy().into_owned();
            out.push(format!("{}/{name}", face.file_name().to_string_lossy()));
        }
    }
    out.sort();
    out
}

/// Writes the generated inputs under `root` (a copy of `tests/cmd`'s layout).
fn write_fixtures(root: &Path) {
    check_batches(&root.join("check/batches.in"));
    let data = root.join("scan/data.in");
    // DATA (a Cityscapes tree with defects, DATA/arrays) and labels.csv: the calls.
    make_data(&data);
    cityscapes(&data.join("ok"), 2);
    // trycmd creates a folder from its `.keep` and ignores the file.
    put(&data, "empty/.keep", b"");
    // The panic net's scan.
    put(&data, "masks/a.png", &png_gray8(4, 4, &[1; 16]));
    // Classes 0 and 1 of 19 in one mask.
    let ids: Vec<u8> = (0..64 * 64).map(|i| u8::from(i == 0)).collect();
    put(&data, "m/a.png", &png_gray8(64, 64, &ids));

    // The config file's cases: DATA/arrays again, under a pyproject.toml that sets 19 classes,
    // ignores 255 and excludes channel.npy; and a labelguard.toml with a misspelt key.
    let config = root.join("scan/config.in");
    for (from, to) in [
        ("DATA/arrays", "DATA/arrays"),
        ("DATA/arrays", "typo/arrays"),
    ] {
        for (rel, bytes) in tree(&data.join(from)) {
            put(&config.join(to), rel.to_str().unwrap(), &bytes);
        }
    }
    put(&config, "pyproject.toml", b"[project]\nname = \"x\"\n[tool.labelguard]\nnum_classes = 19\nignore_index = 255\n[tool.labelguard.scan]\nexclude = [\"channel.npy\"]\n");
    put(&config, "typo/labelguard.toml", b"[scan]\nnum_clases = 3\n");

    // The merge cases scan DATA in shards, then merge parts that do not belong together.
    let merge = root.join("merge/refused.in");
    make_data(&merge);
    put(&merge, "junk.json", b"{\"hello\": 1}");
    // A report (the output files' case's, as recorded) naming a layout this build lacks.
    let report = include_str!("cmd/scan/outputs_written.out/out/report.json");
    let renamed = report.replacen(
        "\"layouts\": [\n      \"cityscapes\"",
        "\"layouts\": [\n      \"darknet\"",
        1,
    );
    assert_ne!(renamed, report, "the recorded report names its layouts");
    put(&merge, "unknown_layout.json", renamed.as_bytes());

    // The output files' case writes its report, HTML and weights beside DATA, which must be
    // left as it was: `.out` holds DATA again (and the outputs, as recorded).
    for dir in ["outputs_written.in", "outputs_written.out"] {
        make_data(&root.join("scan").join(dir));
    }
    put(&root.join("scan/outputs_written.in"), "out/.keep", b"");

    settings_first(&root.join("scan"));
    truth::write(&root.join("scan"));
    adversarial::write(&root.join("scan"));
    coco::write(&root.join("fix"));
    fix::write(&root.join("fix"));
}

/// A dataset's own settings apply before its layout decides anything (issue 24): a plain
/// ImageFolder root, a `[[datasets]]` entry over class folders, and entries that name the VOC
/// tree's parent, the tree itself, or a folder outside the scan.
fn settings_first(scan: &Path) {
    image_folder(&scan.join("imagefolder.in"), &["bird", "cat", "dog"]);
    let entry = scan.join("entry.in");
    image_folder(&entry, &["a", "b", "c", "d", "e"]);
    put(
        &entry,
        "labelguard.toml",
        b"[[datasets]]\npath = \"photos\"\nnum_classes = 3\n",
    );
    // Scanned as the folder itself, or from its parent beside another dataset.
    put(&entry, "arrays/x.npy", &npy("<i8", &[2], &[0u8; 16]));
    for (case, path) in [
        ("voc_entry_parent.in", "VOCdevkit"),
        ("voc_entry_exact.in", "VOCdevkit/VOC2012"),
    ] {
        let dir = scan.join(case);
        voc_one_mask(&dir);
        let config =
            format!("[[datasets]]\npath = \"{path}\"\nnum_classes = 21\nignore_index = 255\n");
        put(&dir, "labelguard.toml", config.as_bytes());
    }
    let elsewhere = scan.join("voc_entry_elsewhere.in");
    voc_one_mask(&elsewhere);
    put(
        &elsewhere,
        "labelguard.toml",
        b"[[datasets]]\npath = \"elsewhere\"\nnum_classes = 3\n",
    );
}

/// `photos/<class>/<n>.jpg`, two images of each class.
fn image_folder(dir: &Path, classes: &[&str]) {
    for c in classes {
        for n in 0..2 {
            put(dir, &format!("photos/{c}/{n}.jpg"), &jpeg_stub(8, 8));
        }
    }
}

/// A VOC tree of one 4x4 mask of class 1 and its image.
fn voc_one_mask(dir: &Path) {
    put(
        dir,
        "VOCdevkit/VOC2012/SegmentationClass/a.png",
        &png_gray8(4, 4, &[1; 16]),
    );
    put(dir, "VOCdevkit/VOC2012/JPEGImages/a.jpg", &jpeg_stub(4, 4));
}

/// The tensor files the `check` cases read.
fn check_batches(dir: &Path) {
    put(
        dir,
        "void.safetensors",
        &safetensors(&[
            ("input", "F32", &[1, 3, 2, 2], f32s(&[0.5; 12])),
            ("target", "I64", &[1, 2, 2], i64s(&[0, 255, 2, 255])),
        ]),
    );
    put(
        dir,
        "batch.npz",
        &npz(&[
            ("input", npy("<f4", &[2, 3], &f32s(&[0.0; 6]))),
            // 7, not 3: a largest id of exactly C is LG418 (background not counted).
            ("target", npy("<i8", &[2], &i64s(&[0, 7]))),
        ]),
    );
    let whole = npz(&[("input", npy("<f4", &[2, 3], &f32s(&[0.0; 6])))]);
    put(dir, "truncated.npz", &whole[..whole.len() / 2]);
    // The header says 10 values, the data holds 2.
    put(dir, "short.npy", &npy("<i8", &[10], &i64s(&[1, 2])));
    put(
        dir,
        "complex.npz",
        &npz(&[("input", npy("<c8", &[1], &[0; 8]))]),
    );
    put(dir, "empty.npz", b"");
    // The panic net's cases: a valid embedding call.
    put(dir, "input.npy", &npy("<i8", &[3], &i64s(&[1, 2, 3])));
    put(dir, "garbage.bin", b"this is not a tensor file");
    put(
        dir,
        "wrong.safetensors",
        &safetensors(&[
            ("logits", "F32", &[2, 3], f32s(&[0.0; 6])),
            ("labels", "I64", &[2], i64s(&[0, 1])),
        ]),
    );
    put(
        dir,
        "missing.safetensors",
        &safetensors(&[("input", "F32", &[2, 3], f32s(&[0.0; 6]))]),
    );
}

/// A .safetensors file of several tensors (8-byte header length, JSON header, data).
fn safetensors(tensors: &[(&str, &str, &[usize], Vec<u8>)]) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (name, dtype, shape, bytes) in tensors {
        let begin = data.len();
        data.extend_from_slice(bytes);
        header.insert(
            name.to_string(),
            serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [begin, data.len()]}),
        );
    }
    let mut h = serde_json::to_vec(&header).unwrap();
    while !h.len().is_multiple_of(8) {
        h.push(b' ');
    }
    let mut out = (h.len() as u64).to_le_bytes().to_vec();
    out.extend(h);
    out.extend(data);
    out
}

/// An .npz archive of `.npy` members (stored with zip's default options).
fn npz(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in members {
        // A fixed time, so that the bytes do not depend on the day they were written.
        let options =
            zip::write::SimpleFileOptions::default().last_modified_time(zip::DateTime::default());
        z.start_file(format!("{name}.npy"), options).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap().into_inner()
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i64s(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}
