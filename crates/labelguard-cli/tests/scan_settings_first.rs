//! A dataset's own settings apply before its layout decides anything (issue 24): a plain
//! ImageFolder root is a dataset, a `[[datasets]]` entry's class count judges its class
//! folders, and an entry that names no dataset is a usage error, not silence.

mod scan_common;

use scan_common::*;
use std::path::Path;

/// `root/<class>/<n>.jpg` for each class.
fn image_folder(dir: &Path, root: &str, classes: &[&str]) {
    for c in classes {
        for n in 0..2 {
            put(dir, &format!("{root}/{c}/{n}.jpg"), &jpeg_stub(8, 8));
        }
    }
}

#[test]
fn a_plain_image_folder_root_is_one_dataset() {
    let dir = tempfile::tempdir().unwrap();
    image_folder(dir.path(), "photos", &["bird", "cat", "dog"]);
    for args in [
        &["scan", "photos", "--format", "json"][..],
        &["scan", "photos", "--format", "json", "--num-classes", "3"][..],
    ] {
        let o = run_in(dir.path(), args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        let r = json(&o);
        assert_eq!(r["settings"]["layouts"][0], "imagefolder");
        assert_eq!(r["summary"]["files_scanned"], 6);
        let names: Vec<&str> = r["histogram"]["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["bird", "cat", "dog"]);
    }
    // Too few classes for the folders: LG101.
    let o = run_in(
        dir.path(),
        &["scan", "photos", "--format", "json", "--num-classes", "2"],
    );
    assert_eq!(code(&o), 1);
    assert!(codes(&json(&o)).iter().any(|(_, c)| c == "LG101"));
}

#[test]
fn a_dataset_entry_judges_its_own_class_folders() {
    let dir = tempfile::tempdir().unwrap();
    image_folder(dir.path(), "photos", &["a", "b", "c", "d", "e"]);
    put(
        dir.path(),
        "labelguard.toml",
        b"[[datasets]]\npath = \"photos\"\nnum_classes = 3\n",
    );
    // Scanned as the folder itself, or from its parent beside another dataset.
    put(dir.path(), "arrays/x.npy", &npy("<i8", &[2], &[0u8; 16]));
    for root in ["photos", "."] {
        let o = run_in(dir.path(), &["scan", root, "--format", "json"]);
        assert_eq!(code(&o), 1, "{root}: {}", stdout(&o));
        let r = json(&o);
        let lg101: Vec<_> = codes(&r)
            .into_iter()
            .filter(|(_, c)| c == "LG101")
            .collect();
        assert_eq!(lg101.len(), 1, "{root}: {:?}", codes(&r));
        assert_eq!(r["summary"]["status"], "errors");
    }
}

#[test]
fn an_entry_that_names_no_dataset_is_an_error_naming_what_was_found() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "VOCdevkit/VOC2012/SegmentationClass/a.png",
        &png_gray8(4, 4, &[1; 16]),
    );
    put(
        dir.path(),
        "VOCdevkit/VOC2012/JPEGImages/a.jpg",
        &jpeg_stub(4, 4),
    );
    put(
        dir.path(),
        "labelguard.toml",
        b"[[datasets]]\npath = \"VOCdevkit\"\nnum_classes = 21\nignore_index = 255\n",
    );
    let o = run_in(dir.path(), &["scan", "."]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    let e = stderr(&o);
    assert!(
        e.contains("path = 'VOCdevkit'")
            && e.contains("matches no dataset")
            && e.contains("VOCdevkit/VOC2012 (voc)"),
        "{e}"
    );
    // Pointed at the dataset itself, the entry applies.
    put(
        dir.path(),
        "labelguard.toml",
        b"[[datasets]]\npath = \"VOCdevkit/VOC2012\"\nnum_classes = 21\nignore_index = 255\n",
    );
    let o = run_in(dir.path(), &["scan", ".", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&o)["settings"]["num_classes"], 21);
    // An entry outside the scanned folder is for another scan.
    put(
        dir.path(),
        "labelguard.toml",
        b"[[datasets]]\npath = \"elsewhere\"\nnum_classes = 3\n",
    );
    let o = run_in(
        dir.path(),
        &["scan", "VOCdevkit/VOC2012", "--num-classes", "21"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}
