//! The inputs of `tests/cmd/scan/truth_*` (issue 9: `scan` tells the whole truth) and
//! `tests/cmd/scan/broken_*` (files that cannot be read are findings): every dataset is built
//! here, in code, and committed under the case's `.in` folder.

use crate::i64s;
use crate::scan_common::{
    jpeg_stub, npy, png_bomb, png_gray16, png_gray8, png_without_plte, put, scene, tiff_gray8,
};
use std::path::Path;

/// Writes every `truth_*.in` and `broken_*.in` folder under `scan`.
pub fn write(scan: &Path) {
    parent(&scan.join("truth_parent.in"));
    unknown_classes(&scan.join("truth_unknown_classes.in"));
    unreadable_first(&scan.join("truth_unreadable_first.in"));
    fix_follows_cause(&scan.join("truth_fix_follows_cause.in"));
    binary_255(&scan.join("truth_binary_255.in"));
    smaller(&scan.join("truth_smaller.in"));
    broken(&scan.join("broken_corpus.in/corpus"));
    bomb(&scan.join("broken_bomb.in"));
}

/// A parent folder holding a VOC tree, an ADE20K tree, a folder of binary masks, an
/// ImageFolder tree, a loose array, a label table and a corrupt mask.
fn parent(root: &Path) {
    for i in 0..4 {
        let mut m = scene(48, 32, &[0, (i % 20 + 1) as u8], 15);
        m[0] = 255;
        let name = format!("2007_{i:06}");
        put(
            root,
            &format!("VOC2012/SegmentationClass/{name}.png"),
            &png_gray8(48, 32, &m),
        );
        put(
            root,
            &format!("VOC2012/JPEGImages/{name}.jpg"),
            &jpeg_stub(48, 32),
        );
    }
    for split in ["training", "validation"] {
        for i in 0..3 {
            let m = scene(48, 32, &[0, 1 + i as u8, 7], 150);
            let name = format!("ADE_{split}_{i}");
            put(
                root,
                &format!("ADEChallengeData2016/annotations/{split}/{name}.png"),
                &png_gray8(48, 32, &m),
            );
            put(
                root,
                &format!("ADEChallengeData2016/images/{split}/{name}.jpg"),
                &jpeg_stub(48, 32),
            );
        }
    }
    for i in 0..6 {
        put(
            root,
            &format!("binary/mask_{i}.png"),
            &png_gray8(32, 32, &scene(32, 32, &[0], 255)),
        );
    }
    for split in ["train", "val"] {
        for class in ["cat", "dog"] {
            for i in 0..2 {
                put(
                    root,
                    &format!("pets/{split}/{class}/{i}.jpg"),
                    &jpeg_stub(16, 16),
                );
            }
        }
    }
    put(
        root,
        "batch.npy",
        &npy("<i8", &[2, 3], &i64s(&[0, 1, 2, 21, 255, 3])),
    );
    put(
        root,
        "labels.csv",
        b"path,label\na.jpg,0\nb.jpg,1\nc.jpg,5\n",
    );
    put(root, "zz_broken.png", b"\x89PNG\r\n\x1a\nxx");
}

/// A mask with ids 21 and 255 and no class count; a 16-bit ADE-style mask (id 1430) in an
/// ADE20K layout; a VOC tree.
fn unknown_classes(root: &Path) {
    put(
        root,
        "masks/a.png",
        &png_gray8(16, 16, &scene(16, 16, &[0, 21], 255)),
    );
    let m: Vec<u16> = (0..256).map(|i| if i < 128 { 3 } else { 1430 }).collect();
    put(
        root,
        "ade/annotations/training/ADE_train_1.png",
        &png_gray16(16, 16, &m),
    );
    put(
        root,
        "ade/images/training/ADE_train_1.jpg",
        &jpeg_stub(16, 16),
    );
    put(
        root,
        "voc/SegmentationClass/x.png",
        &png_gray8(8, 8, &[21u8; 64]),
    );
}

/// 30 masks, and a truncated one that sorts last by name and has no bad pixels: ranked last
/// by pixels, first as unreadable.
fn unreadable_first(root: &Path) {
    for i in 0..30 {
        put(
            root,
            &format!("m/a{i:02}.png"),
            &png_gray8(16, 16, &scene(16, 16, &[0, 1], 7 + (i % 3) as u8)),
        );
    }
    let mut truncated = png_gray8(16, 16, &[1u8; 256]);
    truncated.truncate(truncated.len() - 20);
    put(root, "m/zz_truncated.png", &truncated);
}

/// Exactly C (19) and no 0 (1-based, not labelIds); a bilinear-resized mask: one-pixel bands
/// with values between their neighbours (2 | 10 | void 255), spread over many ids.
fn fix_follows_cause(root: &Path) {
    let m: Vec<u8> = (0..256).map(|i| 1 + (i % 19) as u8).collect();
    put(root, "one_based.png", &png_gray8(16, 16, &m));
    let (w, h) = (64usize, 64usize);
    let mut m = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            m[y * w + x] = match x {
                0..=20 => 2,
                21 => 3 + (y % 7) as u8,
                22..=40 => 10,
                41 => 100 + 15 * (y % 8) as u8,
                _ => 255,
            };
        }
    }
    put(root, "resized.png", &png_gray8(w as u32, h as u32, &m));
}

/// Twelve 0/255 masks.
fn binary_255(root: &Path) {
    for i in 0..12 {
        put(
            root,
            &format!("masks/train/m{i:02}.png"),
            &png_gray8(32, 32, &scene(32, 32, &[0], 255)),
        );
    }
}

/// An ImageFolder tree with a class missing from val; a config in a working folder and a mask
/// outside it; an id array; a two-class mask for grammar and the histogram's columns.
fn smaller(root: &Path) {
    for (split, classes) in [
        ("train", &["cat", "dog", "eel"][..]),
        ("val", &["cat", "eel"][..]),
    ] {
        for c in classes {
            put(root, &format!("if/{split}/{c}/1.jpg"), &jpeg_stub(8, 8));
        }
    }
    put(
        root,
        "work/labelguard.toml",
        b"class_weights = \"w.json\"\nnum_classes = 3\n",
    );
    put(root, "work/w.json", b"[1, 2]\n");
    put(root, "other/x.png", &png_gray8(4, 4, &[1u8; 16]));
    put(root, "ids.npy", &npy("<i8", &[2], &i64s(&[1, 2])));
    put(
        root,
        "g/a.png",
        &png_gray8(8, 8, &[[0u8; 32], [9u8; 32]].concat()),
    );
}

/// Files that cannot be read, each for its own reason (the ones a checkout cannot hold, FIFOs,
/// links, modes and names that are not UTF-8, are in scan_broken.rs).
fn broken(c: &Path) {
    let good = png_gray8(32, 16, &scene(32, 16, &[0, 1, 2], 3));
    put(c, "good.png", &good);
    put(c, "truncated.png", &good[..good.len() / 2]);
    put(c, "zero.png", b"");
    put(
        c,
        "wrong_magic.png",
        b"this is not a PNG at all, just text\n",
    );
    put(
        c,
        "jpeg_mask.png",
        &[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0],
    );
    put(c, "bomb.png", &png_bomb(100_000, 100_000));
    put(c, "no_plte.png", &png_without_plte(8, 8, &[1; 64]));
    // Damage the checksum of the last IDAT chunk (just before the 12-byte IEND chunk).
    let mut crc = good.clone();
    let at = crc.len() - 13;
    crc[at] ^= 0x55;
    put(c, "bad_crc.png", &crc);
    put(c, "tiff_cut.tif", &tiff_gray8(64, 64, &[1; 4096])[..200]);
    put(c, "short.npy", &npy("|u1", &[100, 100], &[0; 10]));
    put(c, "broken.npz", b"PK\x03\x04 not really a zip");
    put(
        c,
        "header.safetensors",
        b"\x10\x00\x00\x00\x00\x00\x00\x00{not json!!!!!}",
    );
    put(c, "ragged.csv", b"path,label\na,1\nb\n");
}

/// A 70000x70000 PNG header (refused before any allocation) beside a 64x64 mask.
fn bomb(root: &Path) {
    put(root, "m/big.png", &png_bomb(70_000, 70_000));
    put(root, "m/ok.png", &png_gray8(64, 64, &[1; 4096]));
}
