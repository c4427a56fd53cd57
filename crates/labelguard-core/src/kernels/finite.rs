//! The NaN/inf count of a float tensor, read as bit patterns: a float is NaN or infinite
//! exactly when its exponent bits are all ones, and ±inf are two fixed patterns. No float is
//! converted, so float16 and bfloat16 are read at the speed of their bytes (half as many as
//! float32), and the loop is three integer compares per element that LLVM vectorizes.

use super::typed;
use crate::dtype::DType;
use crate::tensor::TensorView;

/// How many NaN, +inf and -inf values a tensor holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NonFinite {
    pub nan: u64,
    pub pos_inf: u64,
    pub neg_inf: u64,
}

/// The exponent mask and the two infinities of a float format, as raw bits.
#[derive(Clone, Copy)]
struct Pattern<B> {
    exponent: B,
    pos_inf: B,
    neg_inf: B,
}

// IEEE 754 binary16, bfloat16 (float32's upper half), binary32 and binary64.
const F16: Pattern<u16> = Pattern {
    exponent: 0x7C00,
    pos_inf: 0x7C00,
    neg_inf: 0xFC00,
};
const BF16: Pattern<u16> = Pattern {
    exponent: 0x7F80,
    pos_inf: 0x7F80,
    neg_inf: 0xFF80,
};
const F32: Pattern<u32> = Pattern {
    exponent: 0x7F80_0000,
    pos_inf: 0x7F80_0000,
    neg_inf: 0xFF80_0000,
};
const F64: Pattern<u64> = Pattern {
    exponent: 0x7FF0_0000_0000_0000,
    pos_inf: 0x7FF0_0000_0000_0000,
    neg_inf: 0xFFF0_0000_0000_0000,
};

/// An unsigned integer as wide as a float format; counters use the same width so that the
/// compares and the adds vectorize together.
trait Bits: Copy + Eq + std::ops::BitAnd<Output = Self> {
    /// Steps between flushes of the lane counters: they cannot overflow in between.
    const FLUSH: usize;
    fn one_if(b: bool) -> Self;
    fn add(self, o: Self) -> Self;
    fn zero() -> Self;
    fn widen(self) -> u64;
}

macro_rules! bits {
    ($t:ty) => {
        impl Bits for $t {
            const FLUSH: usize = <$t>::MAX as usize;
            #[inline(always)]
            fn one_if(b: bool) -> Self {
                b as $t
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn zero() -> Self {
                0
            }
            #[inline(always)]
            fn widen(self) -> u64 {
                self as u64
            }
        }
    };
}
bits!(u16);
bits!(u32);
bits!(u64);

/// Counts over `L` lanes of 64 bytes: values with the exponent all ones, and each infinity.
#[inline(always)]
fn count_lanes<B: Bits, const L: usize>(data: &[B], p: Pattern<B>) -> NonFinite {
    let mut special = 0u64;
    let mut out = NonFinite::default();
    let body = data.len() - data.len() % L;
    for block in data[..body].chunks(L.saturating_mul(B::FLUSH)) {
        let mut s = [B::zero(); L];
        let mut pi = [B::zero(); L];
        let mut ni = [B::zero(); L];
        for chunk in block.chunks_exact(L) {
            for l in 0..L {
                let v = chunk[l];
                s[l] = s[l].add(B::one_if((v & p.exponent) == p.exponent));
                pi[l] = pi[l].add(B::one_if(v == p.pos_inf));
                ni[l] = ni[l].add(B::one_if(v == p.neg_inf));
            }
        }
        special += s.iter().map(|c| c.widen()).sum::<u64>();
        out.pos_inf += pi.iter().map(|c| c.widen()).sum::<u64>();
        out.neg_inf += ni.iter().map(|c| c.widen()).sum::<u64>();
    }
    for &v in &data[body..] {
        special += ((v & p.exponent) == p.exponent) as u64;
        out.pos_inf += (v == p.pos_inf) as u64;
        out.neg_inf += (v == p.neg_inf) as u64;
    }
    out.nan = special - out.pos_inf - out.neg_inf;
    out
}

macro_rules! dispatch_count {
    ($name:ident, $avx2:ident, $avx512:ident, $t:ty, $l:literal) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx2(data: &[$t], p: Pattern<$t>) -> NonFinite {
            count_lanes::<$t, $l>(data, p)
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        fn $avx512(data: &[$t], p: Pattern<$t>) -> NonFinite {
            count_lanes::<$t, $l>(data, p)
        }
        fn $name(data: &[$t], p: Pattern<$t>) -> NonFinite {
            #[cfg(target_arch = "x86_64")]
            if super::has_avx512() {
                // SAFETY: the CPU supports AVX-512F/BW, checked just above.
                return unsafe { $avx512(data, p) };
            } else if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                return unsafe { $avx2(data, p) };
            }
            count_lanes::<$t, $l>(data, p)
        }
    };
}
dispatch_count!(count_u16, count_u16_avx2, count_u16_avx512, u16, 32);
dispatch_count!(count_u32, count_u32_avx2, count_u32_avx512, u32, 16);
dispatch_count!(count_u64, count_u64_avx2, count_u64_avx512, u64, 8);

/// NaN, +inf and -inf counts of a float tensor (all zero for other dtypes), one read of its
/// bytes; a broadcast view reads its distinct elements once.
pub fn non_finite_counts(t: &TensorView<'_>) -> NonFinite {
    if t.numel() == 0 || !t.dtype().is_floating() {
        return NonFinite::default();
    }
    if let Some((distinct, n)) = t.without_broadcast() {
        let one = non_finite_counts(&distinct);
        return NonFinite {
            nan: one.nan * n,
            pos_inf: one.pos_inf * n,
            neg_inf: one.neg_inf * n,
        };
    }
    if !t.is_dense() {
        let mut out = NonFinite::default();
        for o in t.offsets() {
            let v = t.read_f64(o);
            out.nan += v.is_nan() as u64;
            out.pos_inf += (v == f64::INFINITY) as u64;
            out.neg_inf += (v == f64::NEG_INFINITY) as u64;
        }
        return out;
    }
    let bytes = t.bytes();
    match t.dtype() {
        DType::F16 => count_u16(&typed::<u16>(bytes), F16),
        DType::BF16 => count_u16(&typed::<u16>(bytes), BF16),
        DType::F32 => count_u32(&typed::<u32>(bytes), F32),
        _ => count_u64(&typed::<u64>(bytes), F64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every 16-bit pattern, as float16 and as bfloat16, against the `half` crate's classification.
    #[test]
    fn every_half_pattern_is_classified_like_half_does() {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        let bytes: Vec<u8> = all.iter().flat_map(|b| b.to_le_bytes()).collect();
        for (dtype, is_nan, to_f32) in [
            (
                DType::F16,
                (|b| half::f16::from_bits(b).is_nan()) as fn(u16) -> bool,
                (|b| half::f16::from_bits(b).to_f32()) as fn(u16) -> f32,
            ),
            (
                DType::BF16,
                |b| half::bf16::from_bits(b).is_nan(),
                |b| half::bf16::from_bits(b).to_f32(),
            ),
        ] {
            let t = TensorView::new(dtype, &[all.len()], &bytes).unwrap();
            let want = NonFinite {
                nan: all.iter().filter(|&&b| is_nan(b)).count() as u64,
                pos_inf: all.iter().filter(|&&b| to_f32(b) == f32::INFINITY).count() as u64,
                neg_inf: all
                    .iter()
                    .filter(|&&b| to_f32(b) == f32::NEG_INFINITY)
                    .count() as u64,
            };
            assert_eq!(non_finite_counts(&t), want, "{dtype:?}");
            assert_eq!(want.pos_inf, 1);
            assert!(want.nan > 0);
        }
    }

    /// Float32 and float64 at every length around the lane width, with the specials placed
    /// anywhere (body and tail), strided and broadcast views included.
    #[test]
    fn wide_floats_match_a_naive_count_at_every_length() {
        let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -f64::NAN, 1e300];
        for n in 0..80usize {
            let values: Vec<f64> = (0..n)
                .map(|i| {
                    if i % 7 == 3 {
                        specials[i % specials.len()]
                    } else {
                        i as f64 - 9.5
                    }
                })
                .collect();
            let naive = |vs: &[f64]| NonFinite {
                nan: vs.iter().filter(|v| v.is_nan()).count() as u64,
                pos_inf: vs.iter().filter(|&&v| v == f64::INFINITY).count() as u64,
                neg_inf: vs.iter().filter(|&&v| v == f64::NEG_INFINITY).count() as u64,
            };
            let b64: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            let t64 = TensorView::new(DType::F64, &[n], &b64).unwrap();
            assert_eq!(non_finite_counts(&t64), naive(&values), "f64 n={n}");
            let as32: Vec<f64> = values.iter().map(|&v| v as f32 as f64).collect();
            let b32: Vec<u8> = values
                .iter()
                .flat_map(|&v| (v as f32).to_le_bytes())
                .collect();
            let t32 = TensorView::new(DType::F32, &[n], &b32).unwrap();
            assert_eq!(non_finite_counts(&t32), naive(&as32), "f32 n={n}");
            if n >= 2 {
                // Every second element: a strided view.
                let half: Vec<f64> = as32.iter().step_by(2).copied().collect();
                let s = TensorView::with_strides(DType::F32, &[half.len()], &[2], &b32).unwrap();
                assert_eq!(non_finite_counts(&s), naive(&half), "strided n={n}");
            }
        }
        let inf = f32::INFINITY.to_le_bytes();
        let b = TensorView::with_strides(DType::F32, &[1000, 3], &[0, 0], &inf).unwrap();
        assert_eq!(
            non_finite_counts(&b),
            NonFinite {
                pos_inf: 3000,
                ..NonFinite::default()
            }
        );
    }

    #[test]
    fn integer_and_empty_tensors_have_none() {
        let t = TensorView::new(DType::I64, &[2], &[0xFF; 16]).unwrap();
        assert_eq!(non_finite_counts(&t), NonFinite::default());
        let e = TensorView::new(DType::F16, &[0, 4], &[]).unwrap();
        assert_eq!(non_finite_counts(&e), NonFinite::default());
    }
}
