//! Each repair, end to end: a planted defect, scan, fix, and the output checked pixel by
//! pixel; formats kept (bit depth, palette, dtype); untouched files and the input unchanged.

mod common;
use common::*;
use labelguard_scan::config::Overrides;
use labelguard_scan::preset::CITYSCAPES_LABEL_TO_TRAIN;

fn ids(w: usize, h: usize, values: &[u8]) -> Vec<u8> {
    // Region-like masks: runs of each value, so the scan's artefact check stays quiet.
    (0..w * h)
        .map(|i| values[(i / w) * values.len() / h])
        .collect()
}

#[test]
fn cityscapes_label_ids_become_train_ids_and_everything_else_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    cityscapes(&data, 2);
    let raw = ids(64, 34, &(0..34).collect::<Vec<u8>>());
    let rel = "gtFine/train/aachen/aachen_000009_000019_gtFine_labelIds.png";
    put(&data, rel, &png_gray8(64, 34, &raw));
    put(
        &data,
        "leftImg8bit/train/aachen/aachen_000009_000019_leftImg8bit.png",
        &png_rgb(64, 34, &vec![9; 64 * 34 * 3]),
    );
    put(&data, "README.txt", b"not a mask");
    let before = tree(&data);
    let out = dir.path().join("fixed");
    let opts = options(Overrides {
        preset: Some("cityscapes".into()),
        ..Overrides::default()
    });
    let r = fix(&data, &out, &opts, false, false);
    assert_eq!(r.exit_code(), 0, "{}", r.text(50));
    assert_eq!(r.files.len(), 1);
    assert_eq!(r.remaining.as_ref().unwrap().len(), 0);
    // Written under cityscapesScripts' name for trainIds; the labelIds name is not in the output.
    let renamed = rel.replace("_gtFine_labelIds.png", "_gtFine_labelTrainIds.png");
    assert_eq!(r.files[0].written_as.as_deref(), Some(renamed.as_str()));
    assert!(!out.join(rel).exists());
    let (px, img) = pixels(&out.join(&renamed));
    assert_eq!(img.dtype, labelguard_core::DType::U8);
    let want: Vec<u8> = raw
        .iter()
        .map(|&v| CITYSCAPES_LABEL_TO_TRAIN[v as usize])
        .collect();
    assert_eq!(px, want);
    // Pixel counts per mapping: 26 (car) -> 13 covers exactly the pixels that held 26.
    let car = r.totals.iter().find(|t| t.from == 26).unwrap();
    assert_eq!(
        (car.to, car.pixels),
        (13, raw.iter().filter(|&&v| v == 26).count() as u64)
    );
    // The input is byte-identical, every other file is copied byte for byte.
    assert_eq!(tree(&data), before);
    let after = tree(&out);
    assert_eq!(after.len(), before.len());
    for (p, b) in &before {
        if !p.ends_with("aachen_000009_000019_gtFine_labelIds.png") {
            assert_eq!(&after[p], b, "{}", p.display());
        }
    }
    // The output is a clean Cityscapes tree of trainIds.
    assert_eq!(r.others.as_ref().map(Vec::len), Some(0), "{}", r.text(50));
    assert!(r.text(50).contains("the output is clean"), "{}", r.text(50));
}

#[test]
fn one_based_ids_in_16_bit_and_low_bit_palette_pngs_keep_depth_and_palette() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("masks");
    let m16: Vec<u16> = ids(32, 30, &[1, 2, 3]).iter().map(|&v| v as u16).collect();
    put(&data, "a.png", &png_gray16(32, 30, &m16));
    // A 4-bit palette PNG with ids 1..3.
    let raw = ids(32, 30, &[1, 3, 2]);
    let packed: Vec<u8> = raw.chunks(2).map(|p| (p[0] << 4) | p[1]).collect();
    let pal: Vec<u8> = [[0, 0, 0], [200, 0, 0], [0, 200, 0], [0, 0, 200]].concat();
    let mut pal4 = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut pal4, 32, 30);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Four);
        enc.set_palette(pal.clone());
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&packed).unwrap();
    }
    put(&data, "b.png", &pal4);
    let out = dir.path().join("out");
    let opts = options(Overrides {
        num_classes: Some(3),
        ignore_index: Some(255),
        ..Overrides::default()
    });
    let r = fix(&data, &out, &opts, false, false);
    assert_eq!(r.exit_code(), 0, "{}", r.text(50));
    assert_eq!(r.files.len(), 2, "{}", r.text(50));
    let (px, img) = pixels(&out.join("a.png"));
    assert_eq!(img.dtype, labelguard_core::DType::U16);
    let want: Vec<u8> = m16.iter().flat_map(|&v| (v - 1).to_le_bytes()).collect();
    assert_eq!(px, want);
    let b = std::fs::read(out.join("b.png")).unwrap();
    assert_eq!((b[24], b[25]), (4, 3), "4-bit palette stays 4-bit palette");
    assert_eq!(
        chunk(&b, b"PLTE"),
        chunk(&pal4, b"PLTE"),
        "the same palette"
    );
    let (px, _) = pixels(&out.join("b.png"));
    assert_eq!(px, raw.iter().map(|v| v - 1).collect::<Vec<u8>>());
}

#[test]
fn binary_255_reduce_zero_label_and_void_map_exactly() {
    let dir = tempfile::tempdir().unwrap();
    type Case = (Overrides, usize, Vec<u8>, fn(u8) -> u8);
    let cases: Vec<Case> = vec![
        (
            Overrides {
                num_classes: Some(2),
                ..Overrides::default()
            },
            40,
            ids(40, 40, &[0, 255, 0]),
            |v| if v == 255 { 1 } else { v },
        ),
        (
            Overrides {
                num_classes: Some(150),
                ignore_index: Some(255),
                ..Overrides::default()
            },
            160,
            ids(160, 151, &(0..=150).collect::<Vec<u8>>()),
            |v| if v == 0 { 255 } else { v - 1 },
        ),
        (
            Overrides {
                num_classes: Some(5),
                ignore_index: Some(100),
                ..Overrides::default()
            },
            40,
            ids(40, 40, &[0, 255, 4, 1]),
            |v| if v == 255 { 100 } else { v },
        ),
    ];
    for (i, (over, w, mask, want)) in cases.into_iter().enumerate() {
        let data = dir.path().join(format!("d{i}"));
        let h = mask.len() / w;
        put(&data, "m.png", &png_gray8(w as u32, h as u32, &mask));
        let out = dir.path().join(format!("o{i}"));
        let r = fix(&data, &out, &options(over), false, false);
        assert_eq!(r.files.len(), 1, "case {i}: {}", r.text(50));
        assert_eq!(r.exit_code(), 0, "case {i}: {}", r.text(50));
        let (px, _) = pixels(&out.join("m.png"));
        assert_eq!(
            px,
            mask.iter().map(|&v| want(v)).collect::<Vec<u8>>(),
            "case {i}"
        );
    }
}

#[test]
fn colour_masks_map_through_the_palette_and_unknown_colours_are_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let pal = [[128u8, 64, 128], [244, 35, 232], [0, 0, 0]]; // road, sidewalk, void
    let want = ids(30, 30, &[0, 1, 255, 0]);
    let rgb: Vec<u8> = want
        .iter()
        .flat_map(|&v| if v == 255 { pal[2] } else { pal[v as usize] })
        .collect();
    put(&data, "good.png", &png_rgb(30, 30, &rgb));
    let mut bad = rgb.clone();
    bad[0..3].copy_from_slice(&[1, 2, 3]);
    put(&data, "bad.png", &png_rgb(30, 30, &bad));
    let out = dir.path().join("out");
    let opts = options(Overrides {
        preset: Some("cityscapes".into()),
        ..Overrides::default()
    });
    let r = fix(&data, &out, &opts, false, false);
    let (px, img) = pixels(&out.join("good.png"));
    assert_eq!((img.channels, px), (1, want));
    // The mask with a colour outside the palette is copied unchanged, and reported.
    assert_eq!(
        std::fs::read(out.join("bad.png")).unwrap(),
        std::fs::read(data.join("bad.png")).unwrap()
    );
    assert!(
        r.left_alone.iter().any(|l| l.path == "bad.png"),
        "{}",
        r.text(50)
    );
}

#[test]
fn npy_arrays_keep_their_dtype_and_header() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("arrays");
    let vals: Vec<i64> = (0..64).map(|i| 1 + (i / 22)).collect(); // 1..=3
    let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
    let input = npy("<i8", &[8, 8], &bytes);
    put(&data, "t.npy", &input);
    let out = dir.path().join("out");
    let opts = options(Overrides {
        num_classes: Some(3),
        ignore_index: Some(255),
        ..Overrides::default()
    });
    let r = fix(&data, &out, &opts, false, false);
    assert_eq!(r.files.len(), 1, "{}", r.text(50));
    let got = std::fs::read(out.join("t.npy")).unwrap();
    let h = labelguard_io::parse_npy(&got).unwrap();
    assert_eq!(got[..h.data_offset], input[..h.data_offset]);
    let ids: Vec<i64> = got[h.data_offset..]
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(ids, vals.iter().map(|v| v - 1).collect::<Vec<_>>());
}

#[test]
fn dry_run_plans_pixel_counts_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    put(
        &data,
        "m.png",
        &png_gray8(40, 40, &ids(40, 40, &[1, 2, 3, 3])),
    );
    put(&data, "ok.png", &png_gray8(40, 40, &ids(40, 40, &[0, 1])));
    let out = dir.path().join("out");
    let opts = options(Overrides {
        num_classes: Some(3),
        ignore_index: Some(255),
        ..Overrides::default()
    });
    let r = fix(&data, &out, &opts, true, false);
    assert!(!out.exists(), "a dry run creates nothing");
    assert!(r.remaining.is_none());
    assert_eq!(r.copied, 1);
    let moves: Vec<(i64, i64, u64)> = r.totals.iter().map(|t| (t.from, t.to, t.pixels)).collect();
    assert_eq!(moves, [(1, 0, 400), (2, 1, 400), (3, 2, 800)]);
    let text = r.text(50);
    assert!(
        text.contains("would repair 1 file") && text.contains("m.png"),
        "{text}"
    );
}

#[test]
fn resize_artefacts_are_reported_and_filled_only_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // Two classes (2 and 12) with one-pixel bands of in-between ids (5, 9) at the border.
    let (w, h) = (256usize, 64usize);
    let mut m = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            m[y * w + x] = if x < 120 {
                2
            } else if x == 120 {
                5
            } else if x == 121 {
                9
            } else {
                12
            };
        }
    }
    put(&data, "m.png", &png_gray8(w as u32, h as u32, &m));
    let opts = options(Overrides {
        num_classes: Some(13),
        ignore_index: Some(255),
        ..Overrides::default()
    });
    let out = dir.path().join("out");
    let r = fix(&data, &out, &opts, false, false);
    assert_eq!(
        std::fs::read(out.join("m.png")).unwrap(),
        std::fs::read(data.join("m.png")).unwrap()
    );
    assert!(
        r.left_alone
            .iter()
            .any(|l| l.reason.contains("nearest-neighbour")),
        "{}",
        r.text(50)
    );
    let out2 = dir.path().join("out2");
    let r = fix(&data, &out2, &opts, false, true);
    assert!(
        r.files[0].notes[0].starts_with("APPROXIMATION"),
        "{}",
        r.text(50)
    );
    let (px, _) = pixels(&out2.join("m.png"));
    assert!(px.iter().all(|&v| v == 2 || v == 12));
    assert_eq!(r.exit_code(), 0, "{}", r.text(50));
}

#[test]
fn output_inside_the_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    put(&data, "m.png", &png_gray8(8, 8, &[1; 64]));
    let opts = options(Overrides {
        num_classes: Some(1),
        ..Overrides::default()
    });
    let o = labelguard_fix::FixOptions {
        input: data.clone(),
        out: data.join("fixed"),
        scan: opts,
        plan: labelguard_fix::Plan::default(),
        dry_run: false,
        fill_artefacts: false,
        strict: false,
    };
    let e = labelguard_fix::run(&o, &labelguard_scan::progress::Silent).unwrap_err();
    assert!(e.to_string().contains("overlaps the input"), "{e}");
    assert!(!data.join("fixed").exists());
}

#[test]
fn a_table_that_moves_nothing_leaves_the_file_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    put(&data, "m.png", &png_gray8(16, 16, &ids(16, 16, &[0, 1])));
    let opts = options(Overrides::default());
    let plan = labelguard_fix::Plan {
        every_mask: vec![labelguard_fix::parse_map("200:3").unwrap()],
        ..labelguard_fix::Plan::default()
    };
    let out = dir.path().join("out");
    let r = fix_with(&data, &out, &opts, plan, false, false);
    assert_eq!(r.files.len(), 0);
    assert_eq!(r.copied, 1);
    assert_eq!(
        std::fs::read(out.join("m.png")).unwrap(),
        std::fs::read(data.join("m.png")).unwrap()
    );
}
