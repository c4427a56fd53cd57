//! Discovery over small trees of every layout.

use super::*;
use super::{
    cityscapes, files, hf_dataset, image_folder, model, paired, token_bin, torchvision_raw, voc,
    webdataset, yolo,
};
use crate::config::ScanOptions;
use std::path::Path;

fn touch(root: &Path, rels: &[&str]) {
    for r in rels {
        let p = root.join(r);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"x").unwrap();
    }
}

fn summary(d: &Discovery) -> Vec<String> {
    d.items
        .iter()
        .map(|i| {
            let t = match &i.task {
                Task::Mask { image: Some(_), .. } => "mask+image".to_string(),
                Task::Mask { image: None, .. } => "mask".to_string(),
                Task::Array => "array".into(),
                Task::Table(_) => "table".into(),
                Task::Image { class_index, .. } => format!("image:{class_index}"),
                Task::ClassWeights => "weights".into(),
                Task::Model => "model".into(),
                Task::Tokens { files, .. } => format!("tokens:{}", files.len()),
                Task::Coco { images } => format!("coco images:{}", images.is_some()),
                Task::Yolo { image, .. } => format!("yolo image:{}", image.is_some()),
                Task::VocXml { image, .. } => format!("vocxml image:{}", image.is_some()),
                Task::Part {
                    part,
                    image,
                    problems,
                    ..
                } => {
                    let codes: Vec<&str> = problems.iter().map(|p| p.code).collect();
                    format!(
                        "{part:?}{}{}",
                        if image.is_some() { "+image" } else { "" },
                        if codes.is_empty() {
                            String::new()
                        } else {
                            format!(" {}", codes.join(","))
                        }
                    )
                }
                Task::TokenBin(labelguard_formats::read::token_bin::TokenBin::NanoGpt { meta }) => {
                    format!("nanogpt meta:{}", meta.is_some())
                }
                Task::TokenBin(labelguard_formats::read::token_bin::TokenBin::Megatron {
                    ..
                }) => "megatron".into(),
                Task::RawLabels(labelguard_formats::read::torchvision_raw::RawLabels::Mnist {
                    images,
                }) => {
                    format!("mnist images:{}", images.is_some())
                }
                Task::RawLabels(labelguard_formats::read::torchvision_raw::RawLabels::Cifar) => {
                    "cifar".into()
                }
                Task::Problem(p) => p.code.to_string(),
                Task::DatasetProblem(p) => format!("dataset {}", p.code),
            };
            let rel = i
                .display
                .split_once("/r/")
                .map(|x| x.1)
                .unwrap_or(&i.display)
                .to_string();
            format!("{rel} {} {t}", i.split)
        })
        .collect()
}

fn run(rels: &[&str], opts: &ScanOptions) -> (Discovery, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("r");
    touch(&root, rels);
    let d = discover(std::slice::from_ref(&root), opts).unwrap();
    let s = summary(&d);
    (d, s)
}

#[test]
fn cityscapes_pairs_train_ids_and_falls_back_to_label_ids() {
    let (d, s) = run(
        &[
            "gtFine/train/aachen/a_000001_gtFine_labelTrainIds.png",
            "gtFine/train/aachen/a_000001_gtFine_labelIds.png",
            "gtFine/train/aachen/a_000001_gtFine_color.png",
            "gtFine/train/aachen/broken.png",
            "gtFine/val/bonn/b_000002_gtFine_labelIds.png",
            "leftImg8bit/train/aachen/a_000001_leftImg8bit.png",
            "leftImg8bit/val/bonn/b_000003_leftImg8bit.png",
            "README",
        ],
        &ScanOptions::default(),
    );
    assert_eq!(d.layouts, vec![cityscapes::KIND]);
    assert!(!s.iter().any(|x| x.contains("LG614")));
    assert_eq!(
        s,
        vec![
            "gtFine/train/aachen/a_000001_gtFine_labelTrainIds.png train mask+image",
            "gtFine/train/aachen/broken.png train mask",
            "gtFine/val/bonn/b_000002_gtFine_labelIds.png val mask",
            "leftImg8bit/val/bonn/b_000003_leftImg8bit.png val LG608",
        ]
    );
}

#[cfg(unix)] // a name or file type Windows has not
#[test]
fn non_utf8_names_are_reported_outside_the_layout_too() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("r");
    touch(
        &root,
        &[
            "gtFine/train/a/x_gtFine_labelTrainIds.png",
            "leftImg8bit/train/a/x_leftImg8bit.png",
        ],
    );
    std::fs::write(
        root.join(std::ffi::OsStr::from_bytes(b"notes\xff.txt")),
        b"x",
    )
    .unwrap();
    let d = discover(std::slice::from_ref(&root), &ScanOptions::default()).unwrap();
    assert!(
        summary(&d).contains(&"notes\u{fffd}.txt all LG614".to_string()),
        "{:?}",
        summary(&d)
    );
}

#[test]
fn voc_and_paired_layouts_pair_by_stem() {
    let (d, s) = run(
        &[
            "VOC2012/SegmentationClass/2007_1.png",
            "VOC2012/SegmentationClass/2007_2.png",
            "VOC2012/JPEGImages/2007_1.jpg",
            "VOC2012/JPEGImages/2008_9.jpg",
        ],
        &ScanOptions::default(),
    );
    assert_eq!(d.layouts, vec![voc::KIND]);
    assert_eq!(
        s,
        vec![
            "VOC2012/SegmentationClass/2007_1.png all mask+image",
            "VOC2012/SegmentationClass/2007_2.png all mask"
        ]
    );
    let (d, s) = run(
        &[
            "annotations/training/x.png",
            "images/training/x.jpg",
            "images/training/y.jpg",
            "annotations/validation/z_mask.png",
            "images/validation/z.jpg",
        ],
        &ScanOptions::default(),
    );
    assert_eq!(d.layouts, vec![paired::KIND]);
    assert_eq!(
        s,
        vec![
            "annotations/training/x.png train mask+image",
            "annotations/validation/z_mask.png val mask+image",
            "images/training/y.jpg train LG608",
        ]
    );
}

#[test]
fn image_folder_numbers_each_split_and_flags_differences() {
    let opts = ScanOptions {
        num_classes: Some(2),
        ..ScanOptions::default()
    };
    let (d, s) = run(
        &[
            "train/cat/1.jpg",
            "train/dog/2.jpg",
            "train/eel/3.jpg",
            "val/cat/4.jpg",
            "val/eel/5.jpg",
        ],
        &opts,
    );
    assert_eq!(d.layouts, vec![image_folder::KIND]);
    assert_eq!(d.class_names.as_deref().unwrap(), ["cat", "dog", "eel"]);
    assert!(
        s.contains(&"train/eel/3.jpg train image:2".to_string()),
        "{s:?}"
    );
    assert!(
        s.contains(&"val/eel/5.jpg val image:1".to_string()),
        "{s:?}"
    );
    assert!(
        s.iter().any(|x| x.starts_with("train train LG101")),
        "{s:?}"
    );
    assert!(s.iter().any(|x| x.ends_with("LG610")), "{s:?}");
}

#[test]
fn a_model_directory_is_one_item_beside_other_datasets() {
    let (d, s) = run(
        &[
            "config.json",
            "tokenizer.json",
            "model.safetensors",
            "special_tokens_map.json",
        ],
        &ScanOptions::default(),
    );
    assert_eq!(d.layouts, vec![model::KIND]);
    assert_eq!(s, vec!["config.json  model"]);
    // Below a folder of other data, the model owns its own folder's files only.
    let (d, s) = run(
        &[
            "bert/config.json",
            "bert/vocab.txt",
            "bert/ckpt/x.npy",
            "masks/a.png",
        ],
        &ScanOptions::default(),
    );
    assert!(d.layouts.contains(&model::KIND), "{:?}", d.layouts);
    assert!(s.contains(&"bert/config.json  model".to_string()), "{s:?}");
    assert!(s.iter().any(|x| x.starts_with("bert/ckpt/x.npy")), "{s:?}");
    // A dataset's config.json alone is not a model.
    let (d, _) = run(&["config.json", "a.png"], &ScanOptions::default());
    assert!(!d.layouts.contains(&model::KIND));
    // Forced, without config.json: the missing file is named.
    let opts = ScanOptions {
        layout: model::KIND,
        ..ScanOptions::default()
    };
    let (_, s) = run(&["tokenizer.json"], &opts);
    assert_eq!(s, vec!["config.json  LG601"]);
}

#[test]
fn files_and_custom_templates() {
    let (d, s) = run(
        &["a/x.npy", "b.csv", "c.png", "notes.txt"],
        &ScanOptions::default(),
    );
    // Loose files in a folder of their own, a table and loose files at the root: three
    // datasets, each scanned on its own.
    assert_eq!(d.layouts, vec![files::KIND; 3]);
    let names: Vec<&str> = d
        .datasets
        .iter()
        .map(|x| x.name.rsplit_once("/r").unwrap().1)
        .collect();
    assert_eq!(names, ["", "/a", "/b.csv"]);
    assert_eq!(
        s,
        vec!["a/x.npy all array", "b.csv all table", "c.png all mask"]
    );
    assert_eq!(
        expand_template(
            "img/{subdir}/{stem}.jpg",
            "gt/train/a_m.png",
            "gt",
            Some("_m")
        ),
        "img/train/a.jpg"
    );
    let opts = ScanOptions {
        mask_glob: Some(labelguard_formats::glob::Glob::new("gt/**/*_m.png").unwrap()),
        image_template: Some("img/{subdir}/{stem}.jpg".into()),
        mask_suffix: Some("_m".into()),
        ..ScanOptions::default()
    };
    let (_, s) = run(
        &["gt/train/a_m.png", "img/train/a.jpg", "gt/train/b_m.png"],
        &opts,
    );
    assert_eq!(
        s,
        vec![
            "gt/train/a_m.png train mask+image",
            "gt/train/b_m.png train mask"
        ]
    );
}

#[test]
fn yolo_ultralytics_tree_pairs_labels_with_images_of_any_case() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("r");
    touch(
        &root,
        &[
            "images/train2017/a.jpg",
            "images/train2017/b.JPG",
            "images/train2017/c.Png",
            "images/train2017/bg.jpg",
            "images/val2017/d.jpeg",
            "labels/train2017/a.txt",
            "labels/train2017/b.txt",
            "labels/train2017/c.txt",
            "labels/train2017/gone.txt",
            "labels/val2017/d.txt",
            "labels/classes.txt",
            "labels/README.txt",
            "train2017.txt",
        ],
    );
    std::fs::write(root.join("data.yaml"), "path: .\nnames: [cat, dog]\n").unwrap();
    let d = discover(std::slice::from_ref(&root), &ScanOptions::default()).unwrap();
    assert_eq!(d.layouts, vec![yolo::KIND]);
    assert_eq!(d.datasets.len(), 1);
    assert_eq!(
        d.datasets[0].class_names.as_deref(),
        Some(&["cat".to_string(), "dog".to_string()][..])
    );
    assert_eq!(d.datasets[0].num_classes, Some(2));
    let mut s = summary(&d);
    s.sort();
    assert_eq!(
        s,
        vec![
            "labels/train2017/a.txt train yolo image:true",
            "labels/train2017/b.txt train yolo image:true",
            "labels/train2017/c.txt train yolo image:true",
            "labels/train2017/gone.txt train yolo image:false",
            "labels/val2017/d.txt val yolo image:true",
        ]
    );
    let gone = d
        .items
        .iter()
        .find(|i| i.display.ends_with("gone.txt"))
        .unwrap();
    assert!(matches!(
        &gone.task,
        Task::Yolo { missing_image: Some(m), .. } if m.ends_with("images/train2017/gone.jpg")
    ));
}

#[test]
fn yolo_roboflow_export_is_one_dataset_with_three_splits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("r");
    touch(
        &root,
        &[
            "train/images/a_jpg.rf.1.jpg",
            "train/labels/a_jpg.rf.1.txt",
            "valid/images/b_jpg.rf.2.jpg",
            "valid/labels/b_jpg.rf.2.txt",
            "test/images/c_jpg.rf.3.jpg",
            "test/labels/c_jpg.rf.3.txt",
            "README.roboflow.txt",
        ],
    );
    std::fs::write(
        root.join("data.yaml"),
        "train: ../train/images\nval: ../valid/images\ntest: ../test/images\n\nnc: 2\nnames: ['cat', 'dog']\n",
    )
    .unwrap();
    let d = discover(std::slice::from_ref(&root), &ScanOptions::default()).unwrap();
    assert_eq!(d.layouts, vec![yolo::KIND]);
    assert_eq!(d.datasets.len(), 1);
    assert_eq!(d.datasets[0].num_classes, Some(2));
    let mut s = summary(&d);
    s.sort();
    assert_eq!(
        s,
        vec![
            "test/labels/c_jpg.rf.3.txt test yolo image:true",
            "train/labels/a_jpg.rf.1.txt train yolo image:true",
            "valid/labels/b_jpg.rf.2.txt val yolo image:true",
        ]
    );
}

#[test]
fn a_datasets_dict_is_one_token_item_per_split_beside_other_datasets() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("r");
    touch(
        &root,
        &[
            "tok/dataset_dict.json",
            "tok/train/data-00000-of-00002.arrow",
            "tok/train/data-00001-of-00002.arrow",
            "tok/train/dataset_info.json",
            "tok/validation/data-00000-of-00001.arrow",
            "tok/validation/dataset_info.json",
            "single/data-00000-of-00001.arrow",
            "single/dataset_info.json",
            "labels.csv",
        ],
    );
    let state = |files: &[&str]| {
        let list: Vec<String> = files
            .iter()
            .map(|f| format!("{{\"filename\": \"{f}\"}}"))
            .collect();
        format!(
            "{{\"_data_files\": [{}], \"_split\": null}}",
            list.join(", ")
        )
    };
    let put = |rel: &str, text: String| std::fs::write(root.join(rel), text).unwrap();
    put(
        "tok/train/state.json",
        state(&["data-00000-of-00002.arrow", "data-00001-of-00002.arrow"]),
    );
    put(
        "tok/validation/state.json",
        state(&["data-00000-of-00001.arrow"]),
    );
    put(
        "single/state.json",
        state(&["data-00000-of-00001.arrow", "gone.arrow"]),
    );
    let d = discover(std::slice::from_ref(&root), &ScanOptions::default()).unwrap();
    let s = summary(&d);
    assert!(d.layouts.contains(&hf_dataset::KIND), "{:?}", d.layouts);
    for want in [
        "tok/train train tokens:2",
        "tok/validation validation tokens:1",
        "single/state.json all LG602",
    ] {
        assert!(s.iter().any(|x| x == want), "{want} in {s:?}");
    }
    // The shards are not scanned again as loose files.
    assert!(!s.iter().any(|x| x.contains(".arrow")), "{s:?}");
}

#[test]
fn webdataset_keys_are_the_path_up_to_the_first_dot_of_the_file_name() {
    use super::webdataset::{is_meta, key_and_ext};
    // Each as webdataset 1.0.2's base_plus_ext splits it (tests/python/test_webdataset.py
    // checks these against the library itself).
    let cases: &[(&str, Option<(&str, &str)>)] = &[
        ("000123.jpg", Some(("000123", "jpg"))),
        ("000123.seg.png", Some(("000123", "seg.png"))),
        ("a.b/c.d.E", Some(("a.b/c", "d.E"))),
        ("dir/x.", Some(("dir/x", ""))),
        ("README", None),
        ("dir/noext", None),
        (".hidden", None),
        ("dir/.hidden.png", Some(("dir/", "hidden.png"))),
        ("a.b/.hidden.png", None),
    ];
    for (name, want) in cases {
        assert_eq!(key_and_ext(name), *want, "{name}");
    }
    assert!(is_meta("__meta__"));
    assert!(is_meta("__index__/x.json"));
    assert!(!is_meta("__x.json"));
    assert!(!is_meta("a/__meta__"));
}

#[test]
fn webdataset_samples_pair_masks_with_images_and_check_class_labels() {
    let (d, s) = run(
        &[
            "train/000001.jpg",
            "train/000001.seg.png",
            "train/000001.cls",
            "train/000002.jpg",
            "train/000002.png",
            "train/000002.json",
            "train/000003.seg.png",
            "train/000003.cls",
            "train/000004.webp",
            "train/000004.txt",
            "train/000005.JPG",
            "train/000005.jpg",
            "train/000006.png",
            "train/000006.seg.npy",
            "train/000006.features.npy",
            "train/__meta__",
        ],
        &ScanOptions::default(),
    );
    assert_eq!(d.layouts, vec![webdataset::KIND]);
    assert_eq!(
        s,
        vec![
            "train/000001.cls train Class",
            "train/000001.seg.png train Mask+image",
            "train/000002.json train Json",
            "train/000002.png train Mask+image",
            "train/000003.cls train Class LG616",
            "train/000003.seg.png train Mask",
            "train/000005.jpg train Data LG616",
            "train/000006.seg.npy train Array",
        ]
    );
}

#[test]
fn photos_beside_json_files_are_not_webdataset_samples() {
    // LabelMe writes `x.jpg` + `x.json`: keyed, but nothing in them is a WebDataset label.
    let (d, _) = run(
        &["a/1.jpg", "a/1.json", "a/2.jpg", "a/2.json"],
        &ScanOptions::default(),
    );
    assert!(!d.layouts.contains(&webdataset::KIND), "{:?}", d.layouts);
}

#[test]
fn token_files_and_torchvision_raw_files_are_their_own_datasets() {
    // nanoGPT's data folder, a Megatron prefix, torchvision's MNIST and CIFAR roots, and what
    // those layouts leave alone (a .bin that is neither, CIFAR's metadata, MNIST's images).
    let (d, s) = run(
        &[
            "shakespeare_char/train.bin",
            "shakespeare_char/val.bin",
            "shakespeare_char/meta.pkl",
            "shakespeare_char/input.txt",
            "openwebtext/train.bin",
            "openwebtext/val.bin",
            "megatron/corpus_text_document.bin",
            "megatron/corpus_text_document.idx",
            "megatron/pytorch_model.bin",
            "MNIST/raw/train-labels-idx1-ubyte",
            "MNIST/raw/train-labels-idx1-ubyte.gz",
            "MNIST/raw/train-images-idx3-ubyte",
            "MNIST/raw/t10k-labels-idx1-ubyte.gz",
            "cifar-10-batches-py/data_batch_1",
            "cifar-10-batches-py/test_batch",
            "cifar-10-batches-py/batches.meta",
            "cifar-100-python/train",
            "cifar-100-python/meta",
        ],
        &ScanOptions::default(),
    );
    assert_eq!(
        s,
        vec![
            "MNIST/raw/t10k-labels-idx1-ubyte.gz test mnist images:false",
            "MNIST/raw/train-labels-idx1-ubyte train mnist images:true",
            "cifar-10-batches-py/data_batch_1 train cifar",
            "cifar-10-batches-py/test_batch test cifar",
            "cifar-100-python/train train cifar",
            "megatron/corpus_text_document.bin all megatron",
            "openwebtext/train.bin train nanogpt meta:false",
            "openwebtext/val.bin val nanogpt meta:false",
            "shakespeare_char/train.bin train nanogpt meta:true",
            "shakespeare_char/val.bin val nanogpt meta:true",
        ]
    );
    let kinds: Vec<(LayoutKind, Option<u32>)> = d
        .datasets
        .iter()
        .map(|x| (x.layout, x.num_classes))
        .collect();
    assert!(
        kinds.contains(&(torchvision_raw::KIND, Some(100))),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&(torchvision_raw::KIND, Some(10))),
        "{kinds:?}"
    );
    assert!(kinds.contains(&(token_bin::KIND, None)), "{kinds:?}");
    // One folder of nanoGPT files scanned as the root is detected as such.
    let (d, s) = run(
        &["train.bin", "val.bin", "prepare.py"],
        &ScanOptions::default(),
    );
    assert_eq!(d.layouts, vec![token_bin::KIND]);
    assert_eq!(
        s,
        vec![
            "train.bin train nanogpt meta:false",
            "val.bin val nanogpt meta:false"
        ]
    );
    // CIFAR-100's folder scanned as the root: its `train` and `test` are batches.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("cifar-100-python");
    touch(&root, &["train", "test", "meta"]);
    let d = discover(std::slice::from_ref(&root), &ScanOptions::default()).unwrap();
    assert_eq!(d.layouts, vec![torchvision_raw::KIND]);
    assert_eq!(d.datasets[0].num_classes, Some(100));
    assert_eq!(d.items.len(), 2);
}

/// One claim serves detection and partition: a tree marked by its names is the same layout
/// scanned alone (detected) and beside another dataset (claimed in the parent folder).
#[test]
fn a_tree_is_its_layout_alone_and_beside_another_dataset() {
    let trees: &[(LayoutKind, &[&str])] = &[
        (
            cityscapes::KIND,
            &[
                "gtFine/train/a/x_gtFine_labelTrainIds.png",
                "leftImg8bit/train/a/x_leftImg8bit.png",
            ],
        ),
        (voc::KIND, &["SegmentationClass/x.png", "JPEGImages/x.jpg"]),
        (voc::KIND, &["Annotations/x.xml", "JPEGImages/x.jpg"]),
        (paired::KIND, &["images/x.jpg", "masks/x.png"]),
        (token_bin::KIND, &["train.bin", "val.bin"]),
    ];
    for (kind, rels) in trees {
        let (alone, _) = run(rels, &ScanOptions::default());
        assert_eq!(alone.layouts, [*kind], "{rels:?} alone");
        let beside: Vec<String> = rels
            .iter()
            .map(|r| format!("tree/{r}"))
            .chain(["other/x.npy".to_string(), "other/y.npy".to_string()])
            .collect();
        let beside: Vec<&str> = beside.iter().map(String::as_str).collect();
        let (d, _) = run(&beside, &ScanOptions::default());
        let layouts: Vec<(&str, LayoutKind)> = d
            .datasets
            .iter()
            .map(|x| (x.name.rsplit('/').next().unwrap(), x.layout))
            .collect();
        assert!(
            layouts.contains(&("tree", *kind)) && layouts.contains(&("other", files::KIND)),
            "{rels:?} beside another dataset: {layouts:?}"
        );
    }
}

/// transformers' example scripts take `--train_file train.json`, which `datasets` reads as
/// JSON Lines: such files are label tables, as `.csv` files are; a one-line `id2label.json` and a pretty-printed configuration beside them are not.
#[test]
fn json_lines_in_json_files_are_tables() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("r");
    std::fs::create_dir_all(&root).unwrap();
    let rows = "{\"sentence\": \"a b\", \"label\": 0}\n{\"sentence\": \"c d\", \"label\": 1}\n";
    std::fs::write(root.join("train.json"), rows).unwrap();
    std::fs::write(root.join("validation.json"), rows).unwrap();
    std::fs::write(
        root.join("id2label.json"),
        "{\"0\": \"neg\", \"1\": \"pos\"}",
    )
    .unwrap();
    std::fs::write(root.join("args.json"), "{\n  \"lr\": 0.1\n}\n").unwrap();
    let d = discover(std::slice::from_ref(&root), &ScanOptions::default()).unwrap();
    assert_eq!(
        summary(&d),
        vec!["train.json all table", "validation.json all table"]
    );
}
