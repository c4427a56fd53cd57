//! The overlay of a mask: a small picture of its classes with the bad pixels marked, built
//! during analysis as plain pixels ([`Overlay`]); [`crate::overlay`] encodes it for the report.

use crate::overlay::Overlay;
use labelguard_core::TensorView;

/// A small picture of the mask: classes in their palette colours (dimmed), out-of-range
/// pixels red, resize artefacts yellow. Each output pixel covers a block of the mask and
/// shows a mark if any pixel of the block has one, so single bad pixels stay visible.
pub fn overlay(
    view: &TensorView<'_>,
    bad: &[i64],
    artefacts: &[i64],
    ignore: i64,
    palette: Option<&[[u8; 3]]>,
) -> Overlay {
    let (h, w) = (view.shape()[0], view.shape()[1]);
    let scale = h.max(w).div_ceil(384).max(1);
    let (oh, ow) = (h.div_ceil(scale), w.div_ceil(scale));
    let mut rgb = vec![0u8; oh * ow * 3];
    let mut mark = vec![0u8; oh * ow];
    // Row-major order: the i-th offset is pixel (i / w, i % w). `bad` and `artefacts` come
    // sorted from the histogram.
    for (i, offset) in view.offsets().enumerate() {
        let (y, x) = (i / w, i % w);
        {
            let v = view.read_i64(offset);
            let o = (y / scale) * ow + x / scale;
            let m = if bad.binary_search(&v).is_ok() {
                2
            } else if artefacts.binary_search(&v).is_ok() {
                1
            } else {
                0
            };
            if m > mark[o] {
                mark[o] = m;
            }
            if y % scale == 0 && x % scale == 0 {
                let c = if v == ignore {
                    [40, 40, 40]
                } else {
                    palette
                        .and_then(|p| usize::try_from(v).ok().and_then(|i| p.get(i)).copied())
                        .unwrap_or_else(|| {
                            let g = (v.rem_euclid(19) * 12 + 30) as u8;
                            [g, g, g]
                        })
                };
                rgb[o * 3..o * 3 + 3].copy_from_slice(&[
                    c[0] / 2 + 20,
                    c[1] / 2 + 20,
                    c[2] / 2 + 20,
                ]);
            }
        }
    }
    for (i, m) in mark.iter().enumerate() {
        match m {
            2 => rgb[i * 3..i * 3 + 3].copy_from_slice(&[255, 0, 0]),
            1 => rgb[i * 3..i * 3 + 3].copy_from_slice(&[255, 220, 0]),
            _ => {}
        }
    }
    Overlay {
        width: ow,
        height: oh,
        rgb,
    }
}
