//! Every input format and every scan rule, on data generated here, through the library API.

mod common;

use common::{classes, opts, scan};
use labelguard_formats::fixtures::*;
use labelguard_scan::config::{Overrides, ScanOptions};
use labelguard_scan::report::ScanReport;
use std::path::Path;

/// (file name, code) of every finding; dataset findings have the name "".
fn codes(r: &ScanReport) -> Vec<(String, String)> {
    r.all_findings()
        .map(|f| {
            let name = f
                .path
                .as_deref()
                .map(|p| p.rsplit('/').next().unwrap().to_string())
                .unwrap_or_default();
            (name, f.finding.code.to_string())
        })
        .collect()
}

fn has(r: &ScanReport, file: &str, code: &str) -> bool {
    codes(r).iter().any(|(f, c)| f == file && c == code)
}

fn count(r: &ScanReport, id: i64) -> u64 {
    r.histogram.classes.get(&id).map(|c| c.count).unwrap_or(0)
}

#[test]
fn png_grey_16_bit_palette_and_tiff_masks() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let mut m = scene(40, 20, &[0, 1, 2], 3);
    m[5 * 40 + 7] = 9;
    put(root, "grey.png", &png_gray8(40, 20, &m));
    let m16: Vec<u16> = m
        .iter()
        .map(|&v| if v == 9 { 300 } else { v as u16 })
        .collect();
    put(root, "deep.png", &png_gray16(40, 20, &m16));
    put(
        root,
        "voc.png",
        &png_palette(40, 20, &m, &labelguard_scan::preset::voc_colormap(256)),
    );
    put(root, "t8.tif", &tiff_gray8(40, 20, &m));
    put(root, "t16.tiff", &tiff_gray16(40, 20, &m16));
    // Under each other's names: a .tif is decoded from the open file only when it starts like
    // a TIFF; everything else is read whole and recognised by its magic.
    put(root, "png_named.TIF", &png_gray8(40, 20, &m));
    put(root, "tiff_named.png", &tiff_gray8(40, 20, &m));
    let r = scan(root, &opts(classes(5, 255)));
    for f in [
        "grey.png",
        "voc.png",
        "t8.tif",
        "png_named.TIF",
        "tiff_named.png",
    ] {
        let finding = r
            .all_findings()
            .find(|x| x.path.as_deref().unwrap().ends_with(f))
            .unwrap_or_else(|| panic!("{f}"));
        assert_eq!(finding.finding.code, "LG101", "{f}");
        assert_eq!(finding.finding.locations[0].index, vec![5, 7], "{f}");
        assert_eq!(finding.finding.locations[0].value, "9");
    }
    assert!(has(&r, "deep.png", "LG101") && has(&r, "t16.tiff", "LG101"));
    assert_eq!(count(&r, 300), 2);
    assert_eq!(count(&r, 9), 5);
    assert_eq!(r.summary.files_scanned, 7);
    assert_eq!(r.summary.elements, 7 * 800);
}

#[test]
fn colour_masks_are_mapped_through_the_palette() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let preset = labelguard_scan::preset::by_name("cityscapes").unwrap();
    let pal = (preset.palette)();
    // road / car halves, a void (black) row, one anti-aliased pixel.
    let mut rgb = Vec::new();
    for y in 0..10 {
        for x in 0..20 {
            let c = if y == 0 {
                [0, 0, 0]
            } else if x < 10 {
                pal[0]
            } else {
                pal[13]
            };
            rgb.extend_from_slice(&c);
        }
    }
    rgb[(5 * 20 + 10) * 3..(5 * 20 + 10) * 3 + 3].copy_from_slice(&[60, 30, 130]);
    put(root, "colour.png", &png_rgb(20, 10, &rgb));
    let grey3: Vec<u8> = scene(20, 10, &[1, 2], 3)
        .iter()
        .flat_map(|&v| [v, v, v])
        .collect();
    put(root, "grey3.png", &png_rgb(20, 10, &grey3));
    let o = opts(Overrides {
        preset: Some("cityscapes".into()),
        ..Overrides::default()
    });
    let r = scan(root, &o);
    let f = r
        .all_findings()
        .find(|f| f.path.as_deref().unwrap().ends_with("colour.png"))
        .unwrap();
    assert_eq!(f.finding.code, "LG606");
    assert_eq!(f.finding.count, Some(1));
    assert_eq!(f.finding.locations[0].index, vec![5, 10]);
    assert_eq!(f.finding.locations[0].value, "(60, 30, 130)");
    assert_eq!(
        count(&r, 13),
        90 - 1,
        "car pixels mapped, the anti-aliased one is not"
    );
    assert_eq!(
        count(&r, 255),
        20 + 1,
        "black is Cityscapes void; the unknown colour counts as ignored"
    );
    let g = r
        .all_findings()
        .find(|f| f.path.as_deref().unwrap().ends_with("grey3.png"))
        .unwrap();
    assert!(
        g.finding.message.contains("equal channels"),
        "{}",
        g.finding.message
    );
    // Without a palette the colours are only counted.
    let r = scan(root, &opts(classes(19, 255)));
    let f = r
        .all_findings()
        .find(|f| f.path.as_deref().unwrap().ends_with("colour.png"))
        .unwrap();
    assert!(
        f.finding.message.contains("4 distinct colours"),
        "{}",
        f.finding.message
    );
}

#[test]
fn arrays_npy_npz_safetensors_and_their_shape_rules() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let ids: Vec<i64> = (0..64).map(|i| [0, 1, 2, 255][i % 4]).collect();
    let b = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    put(root, "ok.npy", &npy("<i8", &[2, 4, 8], &b(&ids)));
    put(
        root,
        "neg.npy",
        &npy(
            "<i8",
            &[64],
            &b(&ids
                .iter()
                .map(|&v| if v == 2 { -5 } else { v })
                .collect::<Vec<_>>()),
        ),
    );
    put(
        root,
        "void.safetensors",
        &safetensors("mask", "I64", &[8, 8], &b(&ids)),
    );
    let one_hot: Vec<u8> = (0..3 * 16).map(|i| ((i / 16) == (i % 3)) as u8).collect();
    put(root, "onehot.npy", &npy("|u1", &[3, 4, 4], &one_hot));
    put(root, "rank5.npy", &npy("|u1", &[1, 1, 2, 2, 2], &[0; 8]));
    let f32s: Vec<u8> = [0.0f32, 1.0, 2.0, 1.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    put(root, "float.npy", &npy("<f4", &[2, 2], &f32s));
    put(root, "empty.npy", &npy("|u1", &[0, 4], &[]));
    // 255 with PyTorch's default ignore_index (-100): the void label is not ignored.
    let r = scan(
        root,
        &opts(Overrides {
            num_classes: Some(3),
            ..Overrides::default()
        }),
    );
    assert!(has(&r, "ok.npy", "LG103"), "{:?}", codes(&r));
    assert!(has(&r, "void.safetensors", "LG103"));
    assert!(has(&r, "neg.npy", "LG102"));
    assert!(has(&r, "onehot.npy", "LG202"));
    assert!(has(&r, "rank5.npy", "LG210"));
    assert!(has(&r, "float.npy", "LG201"));
    assert!(has(&r, "empty.npy", "LG603"));
    let ok = r
        .all_findings()
        .find(|f| f.path.as_deref().unwrap().ends_with("ok.npy"))
        .unwrap();
    assert_eq!(ok.finding.locations[0].index, vec![0, 0, 3], "[n, y, x]");
    // The float array's whole values are still counted.
    assert_eq!(r.histogram.classes[&2].count, 16 + 16 + 1);
}

#[test]
fn one_based_and_zero_means_ignore_conventions_are_named() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    put(
        root,
        "one_based.png",
        &png_gray8(20, 10, &scene(20, 10, &[1, 2, 3, 4, 5], 5)),
    );
    let r = scan(root, &opts(classes(5, 255)));
    assert!(has(&r, "one_based.png", "LG104"), "{:?}", codes(&r));
    // A small spot of C in a mask of 1..4 is a stray value, not a numbering (issue 34).
    put(
        root,
        "one_based.png",
        &png_gray8(20, 10, &scene(20, 10, &[1, 2, 3, 4], 5)),
    );
    let r = scan(root, &opts(classes(5, 255)));
    assert!(has(&r, "one_based.png", "LG101"), "{:?}", codes(&r));
    // ADE20K: 0 is "other", classes 1..150. With the preset (reduce_zero_label) it is clean.
    let ade: Vec<u8> = (0..150 * 4).map(|i| (i % 151) as u8).collect();
    std::fs::remove_file(root.join("one_based.png")).unwrap();
    put(root, "annotations/training/a.png", &png_gray8(150, 4, &ade));
    put(root, "images/training/a.jpg", &jpeg_stub(150, 4));
    let r = scan(
        root,
        &opts(Overrides {
            preset: Some("ade20k".into()),
            ..Overrides::default()
        }),
    );
    assert!(
        codes(&r).iter().all(|(f, _)| f != "a.png"),
        "{:?}",
        codes(&r)
    );
    assert_eq!(
        r.histogram.classes[&255].count, 4,
        "0 became the ignore value"
    );
    let r = scan(
        root,
        &opts(Overrides {
            preset: Some("ade20k".into()),
            reduce_zero_label: Some(false),
            ..Overrides::default()
        }),
    );
    assert!(has(&r, "a.png", "LG106"), "{:?}", codes(&r));
}

fn write_parquet(path: &Path, labels: &[Option<i64>]) {
    std::fs::write(path, parquet_labels(labels)).unwrap();
}

#[test]
fn label_tables_csv_tsv_jsonl_parquet() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    put(root, "a.csv", b"file,label\nx,0\ny,3\nz,1\n");
    put(root, "b.tsv", b"label\tfile\ncat\tx\ndog\ty\nemu\tz\n");
    put(
        root,
        "c.jsonl",
        b"{\"label\": 2}\n{\"label\": 2.5}\n{\"cls\": 1}\n",
    );
    put(root, "d.csv", b"file,klass\nx,1\n");
    write_parquet(&root.join("e.parquet"), &[Some(0), Some(1), None, Some(7)]);
    put(root, "classes.txt", b"cat\ndog\nbird\n");
    let o = opts(Overrides {
        classes: Some(root.join("classes.txt")),
        ..Overrides::default()
    });
    assert_eq!(o.num_classes, Some(3));
    let r = scan(root, &o);
    assert!(has(&r, "a.csv", "LG101"));
    assert!(
        has(&r, "b.tsv", "LG612"),
        "emu is not in the classes file: {:?}",
        codes(&r)
    );
    assert!(!has(&r, "b.tsv", "LG101"));
    assert!(has(&r, "c.jsonl", "LG201") && has(&r, "c.jsonl", "LG612"));
    assert!(has(&r, "d.csv", "LG613"));
    assert!(
        has(&r, "e.parquet", "LG612") && has(&r, "e.parquet", "LG101"),
        "{:?}",
        codes(&r)
    );
    let p = r
        .all_findings()
        .find(|f| f.finding.code == "LG101" && f.path.as_deref().unwrap().ends_with("e.parquet"))
        .unwrap();
    assert_eq!(p.finding.locations[0].index, vec![3]);
    assert_eq!(r.histogram.unit, "samples");
    assert_eq!(r.histogram.classes[&0].name.as_deref(), Some("cat"));
}

#[test]
fn image_folder_voc_and_custom_layouts() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("if");
    for (rel, w) in [
        ("train/ant/1.jpg", 8),
        ("train/bee/2.jpg", 8),
        ("train/bee/3.jpg", 8),
        ("val/bee/4.jpg", 8),
    ] {
        put(&root, rel, &jpeg_stub(w, 4));
    }
    put(&root, "train/bee/cut.jpg", &jpeg_stub(8, 4)[..30]);
    std::fs::create_dir_all(root.join("val/ant")).unwrap();
    let r = scan(
        &root,
        &opts(Overrides {
            num_classes: Some(2),
            ..Overrides::default()
        }),
    );
    assert_eq!(r.settings.layouts[0].as_str(), "imagefolder");
    assert!(has(&r, "cut.jpg", "LG602"));
    assert!(
        has(&r, "ant", "LG603"),
        "the empty val/ant folder: {:?}",
        codes(&r)
    );
    assert!(has(&r, "", "LG610"), "ant only in train: {:?}", codes(&r));
    assert_eq!(r.histogram.classes[&1].count, 3);
    assert_eq!(r.histogram.classes[&1].name.as_deref(), Some("bee"));

    let v = d.path().join("voc");
    let m = scene(16, 8, &[0, 15, 255], 12);
    put(
        &v,
        "SegmentationClass/2007_000001.png",
        &png_palette(16, 8, &m, &labelguard_scan::preset::voc_colormap(256)),
    );
    put(&v, "JPEGImages/2007_000001.jpg", &jpeg_stub(16, 9));
    put(
        &v,
        "ImageSets/Segmentation/train.txt",
        b"2007_000001\n2007_000002\n",
    );
    let r = scan(
        &v,
        &opts(Overrides {
            preset: Some("pascal-voc".into()),
            ..Overrides::default()
        }),
    );
    assert!(
        has(&r, "2007_000001.png", "LG607"),
        "image 16x9 vs mask 16x8: {:?}",
        codes(&r)
    );
    assert!(has(&r, "2007_000002.png", "LG608"));
    assert_eq!(
        r.files
            .iter()
            .find(|f| f.path.ends_with("2007_000001.png"))
            .unwrap()
            .split,
        "train"
    );

    let c = d.path().join("custom");
    put(&c, "gt/train/a_lbl.png", &png_gray8(4, 4, &[1; 16]));
    put(&c, "rgb/train/a.jpg", &jpeg_stub(4, 4));
    put(&c, "gt/train/b_lbl.png", &png_gray8(4, 4, &[1; 16]));
    let o = opts(Overrides {
        num_classes: Some(2),
        mask_glob: Some("gt/**/*_lbl.png".into()),
        mask_suffix: Some("_lbl.png".into()),
        image_template: Some("rgb/{subdir}/{stem}.jpg".into()),
        ..Overrides::default()
    });
    let r = scan(&c, &o);
    assert_eq!(
        codes(&r).iter().filter(|(_, c)| c == "LG608").count(),
        1,
        "{:?}",
        codes(&r)
    );
    assert!(has(&r, "b_lbl.png", "LG608"));
}

#[test]
fn dataset_rules_resize_artefacts_and_class_weights() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    // Train: classes 0 and 2 in large regions, class 3 in four pixels; val: 0 and 1.
    let mut m = scene(200, 100, &[0, 2], 2);
    m[0] = 3;
    m[1] = 3;
    m[200] = 3;
    m[201] = 3;
    put(root, "masks/train/a.png", &png_gray8(200, 100, &m));
    put(
        root,
        "masks/val/b.png",
        &png_gray8(200, 100, &scene(200, 100, &[0, 1], 1)),
    );
    // A linear downscale of stripes 0 | 10 | 20: one-pixel bands of 5 and 15.
    let band: Vec<u8> = (0..100 * 300)
        .map(|i| match i % 300 {
            0..=99 => 0,
            100 => 5,
            101..=199 => 10,
            200 => 15,
            _ => 20,
        })
        .collect();
    put(
        root,
        "masks/train/bilinear.png",
        &png_gray8(300, 100, &band),
    );
    put(root, "weights.json", b"[1.0, -2.0, 1.0]");
    let o = opts(Overrides {
        num_classes: Some(21),
        ignore_index: Some(255),
        class_weights: Some(root.join("weights.json")),
        imbalance_ratio: Some(1000.0),
        ..Overrides::default()
    });
    let r = scan(root, &o);
    assert!(has(&r, "bilinear.png", "LG605"), "{:?}", codes(&r));
    assert!(has(&r, "weights.json", "LG301") && has(&r, "weights.json", "LG302"));
    let never = r
        .dataset
        .iter()
        .find(|f| f.finding.code == "LG609")
        .expect("LG609");
    assert!(
        never.finding.message.starts_with("13 of 21 classes"),
        "{}",
        never.finding.message
    );
    let split = r
        .dataset
        .iter()
        .find(|f| f.finding.code == "LG610")
        .expect("LG610");
    assert!(
        split.finding.message.contains("1 only in val")
            && split.finding.message.contains("3 only in train"),
        "{}",
        split.finding.message
    );
    assert!(r.dataset.iter().any(|f| f.finding.code == "LG611"));
    let w = r.weights.as_ref().unwrap();
    assert_eq!(w.computed_on, "train");
    let inv = &w
        .suggestions
        .iter()
        .find(|s| s.method.as_str() == "inverse_frequency")
        .unwrap()
        .weights;
    assert_eq!(inv.len(), 21);
    assert_eq!(inv[1], 0.0, "class 1 is not in train");
    assert!(inv[3] > inv[0]);
    // --strict turns the warnings into errors.
    let strict = scan(root, &ScanOptions { strict: true, ..o });
    assert!(strict
        .all_findings()
        .all(|f| f.finding.severity != labelguard_core::Severity::Warning));
}

#[cfg(unix)] // a name or file type Windows has not
#[test]
fn a_grey_alpha_mask_has_an_extra_channel_and_non_utf8_names_are_flagged() {
    use std::os::unix::ffi::OsStrExt;
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 2, 1);
        enc.set_color(png::ColorType::GrayscaleAlpha);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[1, 255, 4, 255]).unwrap();
    }
    put(root, "la.png", &out);
    std::fs::write(
        root.join(std::ffi::OsStr::from_bytes(b"x\xff.png")),
        png_gray8(2, 1, &[0, 1]),
    )
    .unwrap();
    let r = scan(root, &opts(classes(3, 255)));
    assert!(
        has(&r, "la.png", "LG203") && has(&r, "la.png", "LG101"),
        "{:?}",
        codes(&r)
    );
    assert!(has(&r, "x\u{fffd}.png", "LG614"));
}

/// A model directory: a BERT-like `config.json`, a WordPiece `tokenizer.json` of `tokens` ids
/// (plus `added`, special), and a `model.safetensors` whose word embedding has `rows` rows.
fn model_dir(root: &Path, rows: u64, tokens: u64, added: &[&str]) {
    use serde_json::json;
    let config = json!({"model_type": "bert", "architectures": ["BertForMaskedLM"], "vocab_size": rows,
                        "max_position_embeddings": 16, "type_vocab_size": 2, "pad_token_id": 0});
    put(root, "config.json", config.to_string().as_bytes());
    let vocab: serde_json::Map<String, serde_json::Value> =
        (0..tokens).map(|i| (format!("t{i}"), json!(i))).collect();
    let added: Vec<_> = added
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": tokens + i as u64, "content": t, "special": true}))
        .collect();
    let tokenizer = json!({"model": {"type": "WordPiece", "vocab": vocab}, "added_tokens": added});
    put(root, "tokenizer.json", tokenizer.to_string().as_bytes());
    put(root, "tokenizer_config.json", br#"{"pad_token": "t0"}"#);
    let header = json!({"bert.embeddings.word_embeddings.weight":
                        {"dtype": "F32", "shape": [rows, 1], "data_offsets": [0, rows * 4]}})
    .to_string();
    let mut st = (header.len() as u64).to_le_bytes().to_vec();
    st.extend(header.as_bytes());
    st.resize(st.len() + rows as usize * 4, 0);
    put(root, "model.safetensors", &st);
}

#[test]
fn a_model_directory_is_scanned_as_a_model() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    model_dir(root, 30, 30, &[]);
    let o = opts(Overrides::default());
    let r = scan(root, &o);
    assert_eq!(
        r.settings.layouts,
        [labelguard_scan::layout_kind::LayoutKind::declared("model")]
    );
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));

    // Tokens added without resizing the embedding: LG809, and LG810 for the special one.
    model_dir(root, 30, 30, &["<|im_start|>"]);
    let r = scan(root, &o);
    assert_eq!(
        codes(&r),
        [
            ("config.json".into(), "LG809".into()),
            ("config.json".into(), "LG810".into())
        ]
    );
    assert!(r.has_errors());

    // A corrupt tokenizer.json is named, not a panic.
    put(root, "tokenizer.json", b"{\"model\": ");
    let r = scan(root, &o);
    assert_eq!(codes(&r), [("tokenizer.json".into(), "LG602".into())]);

    // Beside a dataset, the model is a dataset of its own.
    let e = tempfile::tempdir().unwrap();
    model_dir(&e.path().join("bert"), 30, 30, &["<new>"]);
    put(e.path(), "masks/a.png", &png_gray8(4, 4, &[0; 16]));
    let r = scan(e.path(), &o);
    assert!(has(&r, "config.json", "LG809"), "{:?}", codes(&r));
}

/// WebDataset samples extracted into a folder: each part checked as its kind, the mask against
/// the sample's image, the class labels of `.cls` and `.json` against the class count.
#[test]
fn webdataset_samples_are_checked_part_by_part() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("wds");
    let ok: Vec<u8> = (0..64).map(|i| (i % 3) as u8).collect();
    let mut seven = ok.clone();
    seven[9] = 7;
    let i64s = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("000001.jpg", jpeg_stub(8, 8)),
        ("000001.seg.png", png_gray8(8, 8, &ok)),
        ("000001.cls", b"2".to_vec()),
        ("000002.jpg", jpeg_stub(8, 4)),
        ("000002.seg.png", png_gray8(8, 8, &ok)),
        ("000003.jpg", jpeg_stub(8, 8)),
        ("000003.seg.png", png_gray8(8, 8, &seven)),
        ("000004.jpg", jpeg_stub(8, 8)),
        ("000004.cls", b"5\n".to_vec()),
        ("000005.jpg", jpeg_stub(8, 8)),
        ("000005.json", br#"{"caption": "x", "label": 9}"#.to_vec()),
        ("000006.jpg", jpeg_stub(8, 8)),
        ("000006.json", br#"{"label": "zebra"}"#.to_vec()),
        ("000007.cls", b"1".to_vec()),
        ("000008.jpg", jpeg_stub(2, 2)),
        ("000008.seg.npy", npy("<i8", &[2, 2], &i64s(&[0, 1, 2, 4]))),
        ("000009.jpg", jpeg_stub(8, 8)),
        ("000009.cls", b" 1 \n".to_vec()),
        ("000009.json", b"{not json".to_vec()),
    ];
    for (rel, bytes) in &files {
        put(&root, rel, bytes);
    }
    let r = scan(&root, &opts(classes(3, 255)));
    assert_eq!(r.settings.layouts[0].as_str(), "webdataset");
    let mut found = codes(&r);
    found.sort();
    let want: Vec<(String, String)> = [
        ("000002.seg.png", "LG607"),
        ("000003.seg.png", "LG101"),
        ("000004.cls", "LG101"),
        ("000005.json", "LG101"),
        ("000006.json", "LG612"),
        ("000007.cls", "LG616"),
        ("000008.seg.npy", "LG101"),
        ("000009.json", "LG602"),
    ]
    .iter()
    .map(|(f, c)| (f.to_string(), c.to_string()))
    .collect();
    assert_eq!(found, want);
    // A class label is one sample of the histogram (a mask counts its pixels).
    assert_eq!(r.histogram.unit, "pixels+samples");
    assert_eq!(count(&r, 5), 1);
    assert_eq!(count(&r, 9), 1);
    // The same tree under --layout wds.
    let forced = scan(
        &root,
        &opts(Overrides {
            layout: Some("wds".into()),
            ..classes(3, 255)
        }),
    );
    let mut again = codes(&forced);
    again.sort();
    assert_eq!(again, found);
}

/// A text dataset's JSON Lines (`{"text": ...}`, run_clm.py's `--train_file train.json`) has no
/// label column: an LG613 warning that names it as not checked, not an error that fails the scan
/// of valid data; a column the user names and the table lacks stays an error.
#[test]
fn a_text_table_without_a_label_column_is_a_warning_unless_a_column_is_named() {
    use labelguard_core::Severity;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("train.json");
    std::fs::write(&path, "{\"text\": \"a b\"}\n{\"text\": \"c d\"}\n").unwrap();
    let found = |opts: &ScanOptions| {
        let report = labelguard_scan::scan(
            std::slice::from_ref(&path),
            opts,
            &labelguard_scan::progress::Silent,
        )
        .unwrap();
        report
            .all_findings()
            .map(|f| (f.finding.code, f.finding.severity))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        found(&ScanOptions::default()),
        vec![("LG613", Severity::Warning)]
    );
    let named = ScanOptions {
        label_column: Some("tag".into()),
        ..ScanOptions::default()
    };
    assert_eq!(found(&named), vec![("LG613", Severity::Error)]);
}
