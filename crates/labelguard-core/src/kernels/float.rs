//! The float pass: NaN/inf counts, min, max and the values outside `[lo, hi]` of a float
//! tensor in one read, f32 (and float16/bfloat16 widened in chunks) over fixed-width lanes that
//! LLVM vectorizes, with an AVX2 build picked at run time; float64 and integers are widened.

use super::{opt, typed};
use crate::dtype::DType;
use crate::tensor::TensorView;

/// What one pass over a float tensor found.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct FloatStats {
    pub count: u64,
    /// Smallest and largest finite-or-infinite value, NaN excluded; `None` when there is none.
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub nan: u64,
    pub pos_inf: u64,
    pub neg_inf: u64,
    /// Values below `lo` or above `hi` (infinities included, NaN not).
    pub below: u64,
    pub above: u64,
    /// Values with a fractional part (NaN and infinities not counted).
    pub fractional: u64,
}

impl FloatStats {
    pub fn non_finite(&self) -> u64 {
        self.nan + self.pos_inf + self.neg_inf
    }
}

#[inline(always)]
fn scan_float_lanes<const L: usize>(data: &[f32], lo: f32, hi: f32) -> FloatStats {
    // The f64 path widens; f32 (and f16/bf16 via f32) is the common case for speed.
    let mut s = FloatStats::default();
    let mut mins = [f32::INFINITY; L];
    let mut maxs = [f32::NEG_INFINITY; L];
    let mut nan = [0u32; L];
    let mut below = [0u32; L];
    let mut above = [0u32; L];
    let mut frac = [0u32; L];
    let mut pinf = [0u32; L];
    let mut ninf = [0u32; L];
    let flush = |s: &mut FloatStats, a: &mut [[u32; L]; 6]| {
        s.nan += a[0].iter().map(|&c| c as u64).sum::<u64>();
        s.below += a[1].iter().map(|&c| c as u64).sum::<u64>();
        s.above += a[2].iter().map(|&c| c as u64).sum::<u64>();
        s.fractional += a[3].iter().map(|&c| c as u64).sum::<u64>();
        s.pos_inf += a[4].iter().map(|&c| c as u64).sum::<u64>();
        s.neg_inf += a[5].iter().map(|&c| c as u64).sum::<u64>();
        *a = [[0; L]; 6];
    };
    let chunks = data.chunks_exact(L);
    let tail = chunks.remainder();
    for chunk in chunks {
        for l in 0..L {
            let v = chunk[l];
            let is_nan = v.is_nan();
            mins[l] = if v < mins[l] { v } else { mins[l] };
            maxs[l] = if v > maxs[l] { v } else { maxs[l] };
            nan[l] += is_nan as u32;
            below[l] += (v < lo) as u32;
            above[l] += (v > hi) as u32;
            frac[l] += (v.is_finite() & (v != v.trunc())) as u32;
            pinf[l] += (v == f32::INFINITY) as u32;
            ninf[l] += (v == f32::NEG_INFINITY) as u32;
        }
    }
    let mut acc = [nan, below, above, frac, pinf, ninf];
    flush(&mut s, &mut acc);
    let mut min = mins.iter().copied().fold(f32::INFINITY, f32::min);
    let mut max = maxs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for &v in tail {
        s.nan += v.is_nan() as u64;
        s.below += (v < lo) as u64;
        s.above += (v > hi) as u64;
        s.fractional += (v.is_finite() && v != v.trunc()) as u64;
        s.pos_inf += (v == f32::INFINITY) as u64;
        s.neg_inf += (v == f32::NEG_INFINITY) as u64;
        if v < min {
            min = v
        }
        if v > max {
            max = v
        }
    }
    s.count = data.len() as u64;
    if s.count > s.nan {
        s.min = Some(min as f64);
        s.max = Some(max as f64);
    }
    s
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn scan_f32_avx2(data: &[f32], lo: f32, hi: f32) -> FloatStats {
    scan_float_lanes::<16>(data, lo, hi)
}

fn scan_f32(data: &[f32], lo: f32, hi: f32) -> FloatStats {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { scan_f32_avx2(data, lo, hi) };
    }
    scan_float_lanes::<16>(data, lo, hi)
}

fn scan_f64_values(values: impl Iterator<Item = f64>, lo: f64, hi: f64) -> FloatStats {
    let mut s = FloatStats::default();
    for v in values {
        s.count += 1;
        if v.is_nan() {
            s.nan += 1;
            continue;
        }
        s.min = Some(s.min.map_or(v, |m: f64| m.min(v)));
        s.max = Some(s.max.map_or(v, |m: f64| m.max(v)));
        s.below += (v < lo) as u64;
        s.above += (v > hi) as u64;
        s.fractional += (v.is_finite() && v != v.trunc()) as u64;
        s.pos_inf += (v == f64::INFINITY) as u64;
        s.neg_inf += (v == f64::NEG_INFINITY) as u64;
    }
    s
}

/// One pass over a tensor read as floats: NaN/Inf counts, min, max, and how many values fall
/// below `lo` or above `hi`. Integer tensors are widened.
pub fn scan_float(t: &TensorView<'_>, lo: f64, hi: f64) -> FloatStats {
    if t.numel() == 0 {
        return FloatStats::default();
    }
    if let Some((distinct, n)) = t.without_broadcast() {
        let one = scan_float(&distinct, lo, hi);
        return FloatStats {
            count: one.count * n,
            nan: one.nan * n,
            pos_inf: one.pos_inf * n,
            neg_inf: one.neg_inf * n,
            below: one.below * n,
            above: one.above * n,
            fractional: one.fractional * n,
            ..one
        };
    }
    // f32 comparisons against the bounds rounded to f32 are exact only when the bounds are
    // f32-representable; the bounds used by the contracts (0, 1) are.
    if t.is_dense() && t.dtype() == DType::F32 && lo as f32 as f64 == lo && hi as f32 as f64 == hi {
        return scan_f32(&typed::<f32>(t.bytes()), lo as f32, hi as f32);
    }
    if t.is_dense() && matches!(t.dtype(), DType::F16 | DType::BF16) {
        let raw = typed::<u16>(t.bytes());
        let mut s = FloatStats::default();
        let mut buf = vec![0f32; 4096];
        for chunk in raw.chunks(4096) {
            let out = &mut buf[..chunk.len()];
            if t.dtype() == DType::F16 {
                for (o, &b) in out.iter_mut().zip(chunk) {
                    *o = half::f16::from_bits(b).to_f32();
                }
            } else {
                for (o, &b) in out.iter_mut().zip(chunk) {
                    *o = half::bf16::from_bits(b).to_f32();
                }
            }
            let part = scan_f32(out, lo as f32, hi as f32);
            s = FloatStats {
                count: s.count + part.count,
                min: opt(s.min, part.min, f64::min),
                max: opt(s.max, part.max, f64::max),
                nan: s.nan + part.nan,
                pos_inf: s.pos_inf + part.pos_inf,
                neg_inf: s.neg_inf + part.neg_inf,
                below: s.below + part.below,
                above: s.above + part.above,
                fractional: s.fractional + part.fractional,
            };
        }
        return s;
    }
    scan_f64_values(t.offsets().map(|o| t.read_f64(o)), lo, hi)
}
