//! The inputs of `tests/cmd/scan/adversarial_*` (issue 8): every defect the fuzzing campaign
//! found, as a file, and a folder whose scan is given an injected panic. The hostile trees a
//! checkout cannot hold (FIFOs, modes, sparse files, deep paths) are in scan_adversarial.rs.

use crate::i64s;
use crate::scan_common::{npy, png_bomb, png_claim, png_gray8, put, scene};
use std::path::Path;

/// Writes every `adversarial_*.in` folder under `scan`.
pub fn write(scan: &Path) {
    once_crashed(&scan.join("adversarial_once_crashed.in"));
    let d = scan.join("adversarial_panic.in/d");
    for i in 0..6 {
        put(&d, &format!("m{i}.png"), &png_gray8(8, 8, &[9; 64]));
    }
}

/// `d/`: a good mask cut short by 1 to 4 bytes, a dtype that is not plain, a shape of 2^128
/// elements, 69 bytes that claim 16384x16384 16-bit RGBA, a billion-squared header and
/// i64::MAX; `min/`: i64::MIN, which `--reduce-zero-label` must not wrap.
fn once_crashed(root: &Path) {
    let d = root.join("d");
    let good = png_gray8(40, 20, &scene(40, 20, &[0, 1, 2], 3));
    put(&d, "good.png", &good);
    for cut in 1..=4 {
        put(&d, &format!("cut{cut}.png"), &good[..good.len() - cut]);
    }
    let mut descr = npy("|u1", &[2], &[0, 1]);
    let at = descr.windows(3).position(|w| w == b"|u1").unwrap();
    descr[at..at + 2].copy_from_slice("é".as_bytes());
    put(&d, "descr.npy", &descr);
    let mut huge = npy("|u1", &[1], &[0]);
    let at = huge.windows(4).position(|w| w == b"(1,)").unwrap();
    let shape = b"(4294967296, 4294967296, 4294967296, 4294967296)";
    huge.splice(at..at + 4, shape.iter().copied());
    put(&d, "shape.npy", &huge);
    put(&d, "tiny_claims_2gb.png", &png_claim(16384, 16384, 16, 6));
    put(&d, "billion.png", &png_bomb(1_000_000_000, 1_000_000_000));
    put(&d, "max.npy", &npy("<i8", &[3], &i64s(&[0, 1, i64::MAX])));
    put(
        root,
        "min/min.npy",
        &npy("<i8", &[3], &i64s(&[1, 2, i64::MIN])),
    );
}
