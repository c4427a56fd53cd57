//! The hot loops: one pass over a tensor's bytes at memory bandwidth.
//!
//! The first pass (`scan_int`, `scan_float`) only counts: min, max, how many elements are
//! outside the valid range (the ignore value excluded), how many are NaN or infinite. It is
//! branch-free over fixed-width lanes so that LLVM vectorizes it; on x86-64 the same code is
//! compiled a second time for AVX2 and picked at run time. The detailed pass (`locate`), which
//! finds coordinates and a histogram of the bad values, runs only when the first one found
//! something, so a valid tensor costs one read of its bytes.

mod finite;
mod float;
pub use finite::{non_finite_counts, NonFinite};
pub use float::{scan_float, FloatStats};

use crate::dtype::DType;
use crate::tensor::TensorView;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one pass over an integer tensor found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct IntStats {
    /// Elements read.
    pub count: u64,
    /// Smallest and largest element (over all elements, ignored ones included); `None` when empty.
    pub min: Option<i64>,
    pub max: Option<i64>,
    /// Elements outside `[lo, hi]` that are not the ignore value.
    pub bad: u64,
    /// Elements equal to the ignore value.
    pub ignored: u64,
}

impl IntStats {
    /// The stats of two parts of one tensor together.
    pub fn merge(self, o: IntStats) -> IntStats {
        IntStats {
            count: self.count + o.count,
            min: opt(self.min, o.min, i64::min),
            max: opt(self.max, o.max, i64::max),
            bad: self.bad + o.bad,
            ignored: self.ignored + o.ignored,
        }
    }
}

fn opt<T: Copy>(a: Option<T>, b: Option<T>, f: fn(T, T) -> T) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The valid range and the ignore value of an integer check, in i64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntRange {
    pub lo: i64,
    pub hi: i64,
    pub ignore: Option<i64>,
}

impl IntRange {
    /// `[0, n-1]`: class ids or indices into a dimension of size `n`.
    pub fn below(n: i64, ignore: Option<i64>) -> IntRange {
        IntRange {
            lo: 0,
            hi: n - 1,
            ignore,
        }
    }
    pub fn is_bad(&self, v: i64) -> bool {
        (v < self.lo || v > self.hi) && Some(v) != self.ignore
    }
}

/// An integer element type that the vectorized scan runs on natively.
trait Lane: Copy + Ord + Default + 'static {
    type Count: Copy + Default + std::ops::Add<Output = Self::Count> + Into<u64>;
    /// The unsigned type of the same width, for the one-compare range test.
    type Unsigned: Copy + Ord + Default;
    fn offset(self, lo: Self) -> Self::Unsigned;
    const MIN: Self;
    const MAX: Self;
    const ONE: Self::Count;
    const ZERO: Self::Count;
    fn to_i64(self) -> i64;
    fn from_i64_clamped(v: i64) -> Self;
}

macro_rules! lane {
    ($t:ty, $c:ty) => {
        impl Lane for $t {
            type Count = $c;
            type Unsigned = $c;
            #[inline(always)]
            fn offset(self, lo: Self) -> $c {
                (self as $c).wrapping_sub(lo as $c)
            }
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            const ONE: $c = 1;
            const ZERO: $c = 0;
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn from_i64_clamped(v: i64) -> Self {
                v.clamp(<$t>::MIN as i64, <$t>::MAX as i64) as $t
            }
        }
    };
}
lane!(u8, u8);
lane!(i8, u8);
lane!(i16, u16);
lane!(u16, u16);
lane!(i32, u32);
lane!(i64, u64);

/// The range and ignore value converted to the element type. An empty range is expressed as
/// `lo = MAX, hi = MIN`; an ignore value the type cannot hold is switched off.
#[derive(Clone, Copy)]
struct Native<T: Lane> {
    lo: T,
    /// `hi - lo` as unsigned: `v` is inside exactly when `v.offset(lo) <= span`.
    span: T::Unsigned,
    ignore: T,
    has_ignore: bool,
}

impl<T: Lane> Native<T> {
    /// The range in `T`, and whether it is empty for `T` (then every non-ignored element is
    /// bad: the scan runs with the full range and counts those afterwards).
    fn new(r: &IntRange) -> (Self, bool) {
        let empty = r.lo > r.hi || r.lo > T::MAX.to_i64() || r.hi < T::MIN.to_i64();
        let (lo, hi) = if empty {
            (T::MIN, T::MAX)
        } else {
            (T::from_i64_clamped(r.lo), T::from_i64_clamped(r.hi))
        };
        let ignore = r
            .ignore
            .filter(|&i| i >= T::MIN.to_i64() && i <= T::MAX.to_i64());
        let native = Native {
            lo,
            span: hi.offset(lo),
            ignore: ignore.map(T::from_i64_clamped).unwrap_or_default(),
            has_ignore: ignore.is_some(),
        };
        (native, empty)
    }
}

/// Lane-parallel scan of one slice. `L` lanes of `T` make one 64-byte step; counts live in
/// lanes of the same width and are flushed every 255 steps so they cannot overflow.
#[inline(always)]
fn scan_lanes<T: Lane, const L: usize, const IGNORE: bool>(data: &[T], p: Native<T>) -> IntStats {
    let mut stats = IntStats::default();
    let mut mins = [T::MAX; L];
    let mut maxs = [T::MIN; L];
    let body = data.len() - data.len() % L;
    let tail = &data[body..];
    for block in data[..body].chunks(L * 255) {
        let mut bad = [T::ZERO; L];
        let mut ign = [T::ZERO; L];
        for chunk in block.chunks_exact(L) {
            for l in 0..L {
                let v = chunk[l];
                mins[l] = if v < mins[l] { v } else { mins[l] };
                maxs[l] = if v > maxs[l] { v } else { maxs[l] };
                let is_ign = IGNORE && v == p.ignore;
                let outside = v.offset(p.lo) > p.span;
                bad[l] = bad[l] + if outside & !is_ign { T::ONE } else { T::ZERO };
                ign[l] = ign[l] + if is_ign { T::ONE } else { T::ZERO };
            }
        }
        stats.bad += bad.iter().map(|&c| c.into()).sum::<u64>();
        stats.ignored += ign.iter().map(|&c| c.into()).sum::<u64>();
    }
    if body > 0 {
        stats.min = mins.iter().min().map(|v| v.to_i64());
        stats.max = maxs.iter().max().map(|v| v.to_i64());
    }
    for &v in tail {
        let v64 = v.to_i64();
        stats.min = Some(stats.min.map_or(v64, |m| m.min(v64)));
        stats.max = Some(stats.max.map_or(v64, |m| m.max(v64)));
        let is_ign = IGNORE && v == p.ignore;
        stats.ignored += is_ign as u64;
        stats.bad += (!is_ign && v.offset(p.lo) > p.span) as u64;
    }
    stats.count = data.len() as u64;
    stats
}

/// A plain reduction loop, for 32- and 64-bit elements: LLVM's loop vectorizer picks the
/// width and interleaves the min/max/count reductions itself. Counts are as wide as the
/// elements, so they cannot overflow for any slice that fits in memory.
#[inline(always)]
fn scan_plain<T: Lane, const L: usize, const IGNORE: bool>(data: &[T], p: Native<T>) -> IntStats {
    let mut min = T::MAX;
    let mut max = T::MIN;
    let mut bad = T::ZERO;
    let mut ign = T::ZERO;
    for &v in data {
        min = if v < min { v } else { min };
        max = if v > max { v } else { max };
        let is_ign = IGNORE && v == p.ignore;
        let outside = v.offset(p.lo) > p.span;
        bad = bad + if outside & !is_ign { T::ONE } else { T::ZERO };
        ign = ign + if is_ign { T::ONE } else { T::ZERO };
    }
    let nonempty = !data.is_empty();
    IntStats {
        count: data.len() as u64,
        min: nonempty.then(|| min.to_i64()),
        max: nonempty.then(|| max.to_i64()),
        bad: bad.into(),
        ignored: ign.into(),
    }
}

/// Whether this CPU has the AVX-512 subset the kernels use (checked once; cached by std).
#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw")
}

macro_rules! dispatch_simd {
    ($name:ident, $avx2:ident, $avx512:ident, $t:ty, $l:literal, $kernel:ident) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        fn $avx2<const IGNORE: bool>(data: &[$t], p: Native<$t>) -> IntStats {
            $kernel::<$t, $l, IGNORE>(data, p)
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
        fn $avx512<const IGNORE: bool>(data: &[$t], p: Native<$t>) -> IntStats {
            $kernel::<$t, $l, IGNORE>(data, p)
        }
        fn $name(data: &[$t], range: &IntRange) -> IntStats {
            /// The widest kernel this CPU runs.
            fn pick<const IGNORE: bool>(data: &[$t], p: Native<$t>) -> IntStats {
                #[cfg(target_arch = "x86_64")]
                if has_avx512() {
                    // SAFETY: the CPU supports AVX-512F/BW, checked just above.
                    return unsafe { $avx512::<IGNORE>(data, p) };
                } else if std::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU supports AVX2, checked just above.
                    return unsafe { $avx2::<IGNORE>(data, p) };
                }
                $kernel::<$t, $l, IGNORE>(data, p)
            }
            let (p, empty) = Native::new(range);
            // The ignore test is compiled in or out: a run-time flag in the loop halves the
            // 64-bit kernel's speed (LLVM narrows the masks instead of keeping them in lanes).
            let mut stats = match p.has_ignore {
                true => pick::<true>(data, p),
                false => pick::<false>(data, p),
            };
            if empty {
                stats.bad = stats.count - stats.ignored;
            }
            stats
        }
    };
}
// 8- and 16-bit elements need narrow counters flushed every 255 steps (`scan_lanes`); 32- and
// 64-bit ones vectorize best as plain reductions (`scan_plain`).
dispatch_simd!(scan_u8, scan_u8_avx2, scan_u8_avx512, u8, 64, scan_lanes);
dispatch_simd!(scan_i8, scan_i8_avx2, scan_i8_avx512, i8, 64, scan_lanes);
dispatch_simd!(
    scan_i16,
    scan_i16_avx2,
    scan_i16_avx512,
    i16,
    32,
    scan_lanes
);
dispatch_simd!(
    scan_u16,
    scan_u16_avx2,
    scan_u16_avx512,
    u16,
    32,
    scan_lanes
);
dispatch_simd!(
    scan_i32,
    scan_i32_avx2,
    scan_i32_avx512,
    i32,
    16,
    scan_plain
);
dispatch_simd!(scan_i64, scan_i64_avx2, scan_i64_avx512, i64, 8, scan_plain);

/// Reinterprets little-endian bytes as `T`, copying only when they are not aligned.
///
/// Callers use it only with plain integer and float types, for which every bit pattern is a
/// valid value.
pub(crate) fn typed<T: Copy + Default>(bytes: &[u8]) -> Cow<'_, [T]> {
    let size = std::mem::size_of::<T>();
    // SAFETY: T is a primitive integer or float (see callers); any bytes are a valid T.
    let (head, body, _) = unsafe { bytes.align_to::<T>() };
    if head.is_empty() {
        Cow::Borrowed(&body[..bytes.len() / size])
    } else {
        let mut out = vec![T::default(); bytes.len() / size];
        // SAFETY: out has exactly bytes.len() / size elements of T.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                out.as_mut_ptr() as *mut u8,
                out.len() * size,
            )
        };
        Cow::Owned(out)
    }
}

/// How many threads one scan of a large tensor may use (1 unless the embedding program asks
/// for more: the Python module sets it to the CPUs it may run on, as PyTorch does for its own
/// reductions; the command line scans many files at once and keeps 1).
static SCAN_THREADS: AtomicUsize = AtomicUsize::new(1);

/// Dense slices of at least this many bytes are split across `SCAN_THREADS` threads (below it,
/// starting a thread costs more than it saves).
const SPLIT_BYTES: usize = 8 << 20;

/// Sets how many threads one scan of a large tensor may use (at least 1).
pub fn set_scan_threads(n: usize) {
    SCAN_THREADS.store(n.max(1), Ordering::Relaxed);
}

/// Bytes of one part of a split scan: small enough that a thread slowed by a busy core (PyTorch's
/// OpenMP workers spin for a while after each parallel op) leaves the rest to the others, large
/// enough that claiming a part costs nothing next to reading it.
const PART_BYTES: usize = 1 << 20;

/// `scan` over `data`, on scoped threads when `data` is large: each thread (this one too) claims
/// the next part until none is left, so a slow thread delays the scan by one part at most. The
/// counts add up and min/max combine, so the result is the one-thread result.
fn split<T: Sync>(data: &[T], scan: impl Fn(&[T]) -> IntStats + Sync) -> IntStats {
    let threads = SCAN_THREADS.load(Ordering::Relaxed);
    if threads < 2 || std::mem::size_of_val(data) < SPLIT_BYTES {
        return scan(data);
    }
    let parts: Vec<&[T]> = data
        .chunks(PART_BYTES / std::mem::size_of::<T>().max(1))
        .collect();
    let next = AtomicUsize::new(0);
    let claim = || {
        let mut stats = IntStats::default();
        while let Some(part) = parts.get(next.fetch_add(1, Ordering::Relaxed)) {
            stats = stats.merge(scan(part));
        }
        stats
    };
    std::thread::scope(|s| {
        // A thread that cannot start leaves its parts to the others.
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(s, claim).ok())
            .collect();
        let mut stats = claim();
        for helper in helpers {
            // A helper that panicked lost the part it held: scan everything again here.
            match helper.join() {
                Ok(part) => stats = stats.merge(part),
                Err(_) => return scan(data),
            }
        }
        stats
    })
}

/// One pass over an integer or bool tensor: min, max, count of elements outside
/// `[range.lo, range.hi]` that are not `range.ignore`. Floats are read as their truncation,
/// which callers use only for hints.
pub fn scan_int(t: &TensorView<'_>, range: IntRange) -> IntStats {
    if t.numel() == 0 {
        return IntStats::default();
    }
    if let Some((distinct, factor)) = t.without_broadcast() {
        let s = scan_int(&distinct, range);
        return IntStats {
            count: s.count * factor,
            bad: s.bad * factor,
            ignored: s.ignored * factor,
            ..s
        };
    }
    if !t.is_dense() {
        let mut s = IntStats::default();
        for o in t.offsets() {
            let v = t.read_i64(o);
            s = s.merge(IntStats {
                count: 1,
                min: Some(v),
                max: Some(v),
                bad: range.is_bad(v) as u64,
                ignored: (Some(v) == range.ignore) as u64,
            });
        }
        return s;
    }
    let bytes = t.bytes();
    match t.dtype() {
        DType::U8 | DType::Bool => split(bytes, |d| scan_u8(d, &range)),
        DType::I8 => split(&typed::<i8>(bytes), |d| scan_i8(d, &range)),
        DType::I16 => split(&typed::<i16>(bytes), |d| scan_i16(d, &range)),
        DType::U16 => split(&typed::<u16>(bytes), |d| scan_u16(d, &range)),
        DType::I32 => split(&typed::<i32>(bytes), |d| scan_i32(d, &range)),
        DType::I64 => split(&typed::<i64>(bytes), |d| scan_i64(d, &range)),
        _ => {
            let mut s = IntStats::default();
            for o in 0..t.numel() {
                let v = t.read_i64(o);
                s = s.merge(IntStats {
                    count: 1,
                    min: Some(v),
                    max: Some(v),
                    bad: range.is_bad(v) as u64,
                    ignored: (Some(v) == range.ignore) as u64,
                });
            }
            s
        }
    }
}

/// Where the bad elements are: the first few in PyTorch's (row-major) order with their
/// multi-dimensional index, and how often each bad value occurs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Located {
    /// (index, printable value), first offending elements in row-major order.
    pub first: Vec<(Vec<usize>, String)>,
    /// Bad value (as printed) to count, at most `MAX_DISTINCT` values; the rest in `other`.
    pub values: BTreeMap<OrderedValue, u64>,
    pub other_values: u64,
    pub total: u64,
}

/// A value key that orders integers numerically and keeps floats printable.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OrderedValue {
    Int(i64),
    Float(String),
}

impl std::fmt::Display for OrderedValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OrderedValue::Int(v) => write!(f, "{v}"),
            OrderedValue::Float(s) => f.write_str(s),
        }
    }
}

const MAX_DISTINCT: usize = 64;

/// The detailed pass: visits elements in row-major order and records those `is_bad` accepts.
pub fn locate(
    t: &TensorView<'_>,
    limit: usize,
    is_bad: impl Fn(&TensorView<'_>, usize) -> bool,
) -> Located {
    let mut out = Located::default();
    for (flat, off) in t.offsets().enumerate() {
        if !is_bad(t, off) {
            continue;
        }
        out.total += 1;
        let value = if t.dtype().is_floating() {
            OrderedValue::Float(t.format_value(off))
        } else {
            OrderedValue::Int(t.read_i64(off))
        };
        if out.first.len() < limit {
            out.first.push((t.unravel(flat), value.to_string()));
        }
        if let Some(c) = out.values.get_mut(&value) {
            *c += 1;
        } else if out.values.len() < MAX_DISTINCT {
            out.values.insert(value, 1);
        } else {
            out.other_values += 1;
        }
    }
    out
}

/// Distinct values of an integer tensor with their counts, up to `cap` distinct values
/// (`None` past that): the class profile that hints are inferred from.
pub fn int_histogram(t: &TensorView<'_>, cap: usize) -> Option<BTreeMap<i64, u64>> {
    let mut h = BTreeMap::new();
    if let Some((distinct, factor)) = t.without_broadcast() {
        let mut h = int_histogram(&distinct, cap)?;
        h.values_mut().for_each(|c| *c *= factor);
        return Some(h);
    }
    if t.dtype() == DType::U8 && t.is_dense() {
        let mut bins = [0u64; 256];
        for &b in t.bytes() {
            bins[b as usize] += 1;
        }
        for (v, &c) in bins.iter().enumerate() {
            if c > 0 {
                h.insert(v as i64, c);
            }
        }
        return (h.len() <= cap).then_some(h);
    }
    for o in t.offsets() {
        *h.entry(t.read_i64(o)).or_insert(0) += 1;
        if h.len() > cap {
            return None;
        }
    }
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(dtype: DType, shape: &[usize], bytes: &'a [u8]) -> TensorView<'a> {
        TensorView::new(dtype, shape, bytes).unwrap()
    }

    fn naive(values: &[i64], r: IntRange) -> IntStats {
        IntStats {
            count: values.len() as u64,
            min: values.iter().copied().min(),
            max: values.iter().copied().max(),
            bad: values.iter().filter(|&&v| r.is_bad(v)).count() as u64,
            ignored: values.iter().filter(|&&v| Some(v) == r.ignore).count() as u64,
        }
    }

    #[test]
    fn a_scan_split_across_threads_gives_the_one_thread_answer() {
        // Above SPLIT_BYTES, in parts of PART_BYTES and a short last one; the extremes and the
        // bad values sit at part boundaries and in the last part.
        let n = (SPLIT_BYTES / 8) * 3 + 5;
        let mut vals: Vec<i64> = (0..n as i64).map(|i| i % 19).collect();
        let part = PART_BYTES / 8;
        vals[part - 1] = 255;
        vals[part] = -7;
        vals[7 * part] = 300;
        vals[n - 1] = 40;
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let t = view(DType::I64, &[n], &bytes);
        let r = IntRange::below(19, Some(255));
        let one = split(&typed::<i64>(&bytes), |d| scan_i64(d, &r));
        set_scan_threads(3);
        let three = scan_int(&t, r);
        set_scan_threads(1);
        assert_eq!(three, one);
        assert_eq!(three, naive(&vals, r));
        assert_eq!(
            (three.min, three.max, three.bad, three.ignored),
            (Some(-7), Some(300), 3, 1)
        );
    }

    #[test]
    fn int_scan_matches_naive_for_every_dtype_and_length() {
        let mut seed = 0x9E3779B97F4A7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in [0usize, 1, 7, 63, 64, 65, 200, 255 * 64 + 3, 70_000] {
            for dtype in [
                DType::U8,
                DType::I8,
                DType::I16,
                DType::U16,
                DType::I32,
                DType::I64,
            ] {
                let vals: Vec<i64> = (0..len)
                    .map(|_| match dtype {
                        DType::U8 => (next() % 256) as i64,
                        DType::I8 => (next() % 256) as i64 - 128,
                        DType::I16 => (next() % 700) as i64 - 350,
                        DType::U16 => (next() % 700) as i64,
                        _ => (next() % 700) as i64 - 350,
                    })
                    .collect();
                let bytes: Vec<u8> = vals
                    .iter()
                    .flat_map(|&v| match dtype {
                        DType::U8 | DType::I8 => vec![v as u8],
                        DType::I16 | DType::U16 => (v as i16).to_le_bytes().to_vec(),
                        DType::I32 => (v as i32).to_le_bytes().to_vec(),
                        _ => v.to_le_bytes().to_vec(),
                    })
                    .collect();
                let t = view(dtype, &[len], &bytes);
                for r in [
                    IntRange::below(19, Some(255)),
                    IntRange::below(19, Some(-100)),
                    IntRange::below(300, None),
                    IntRange {
                        lo: 5,
                        hi: 2,
                        ignore: None,
                    },
                    IntRange {
                        lo: -1000,
                        hi: 1000,
                        ignore: Some(7),
                    },
                    IntRange::below(i64::MAX, Some(i64::MIN)),
                ] {
                    assert_eq!(scan_int(&t, r), naive(&vals, r), "{dtype} len {len} {r:?}");
                }
            }
        }
    }

    #[test]
    fn unaligned_bytes_give_the_same_answer() {
        let vals: Vec<i64> = (0..1000).map(|i| i % 23).collect();
        let mut bytes = vec![0u8];
        bytes.extend(vals.iter().flat_map(|v| v.to_le_bytes()));
        let t = view(DType::I64, &[1000], &bytes[1..]);
        let r = IntRange::below(20, None);
        assert_eq!(scan_int(&t, r), naive(&vals, r));
    }

    #[test]
    fn strided_views_are_scanned_in_full() {
        // A [3,4] int32 tensor viewed transposed (strides 1,4) and as an expanded row.
        let vals: Vec<i32> = (0..12).collect();
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let t = TensorView::with_strides(DType::I32, &[4, 3], &[1, 4], &bytes).unwrap();
        assert!(t.is_dense() && !t.is_contiguous());
        let s = scan_int(&t, IntRange::below(10, None));
        assert_eq!((s.count, s.bad, s.min, s.max), (12, 2, Some(0), Some(11)));
        let loc = locate(&t, 10, |t, o| t.read_i64(o) >= 10);
        // Element [i,j] of the transposed view is i + 4j; in row-major order 10 comes first at [2,2].
        assert_eq!(loc.first[0].0, vec![2, 2]);
        let e = TensorView::with_strides(DType::I32, &[5, 4], &[0, 1], &bytes).unwrap();
        assert!(!e.is_dense());
        assert_eq!(scan_int(&e, IntRange::below(3, None)).bad, 5);
        assert_eq!(int_histogram(&e, 10).unwrap()[&3], 5);
        // A broadcast dimension in the middle: [2, 3(broadcast), 2] over 4 stored values.
        let m = TensorView::with_strides(DType::I32, &[2, 3, 2], &[2, 0, 1], &bytes).unwrap();
        let s = scan_int(&m, IntRange::below(2, Some(3)));
        assert_eq!((s.count, s.bad, s.ignored, s.max), (12, 3, 3, Some(3)));
    }

    #[test]
    fn constant_views_are_answered_without_iterating() {
        let bytes = 255i64.to_le_bytes();
        let big = [1usize << 20, 1 << 20];
        let t = TensorView::with_strides(DType::I64, &big, &[0, 0], &bytes).unwrap();
        assert!(t.is_constant());
        let s = scan_int(&t, IntRange::below(19, None));
        assert_eq!(
            (s.count, s.bad, s.min, s.max),
            (1 << 40, 1 << 40, Some(255), Some(255))
        );
        assert_eq!(
            scan_int(&t, IntRange::below(19, Some(255))).ignored,
            1 << 40
        );
        assert_eq!(int_histogram(&t, 4).unwrap()[&255], 1 << 40);
        let f = 1.5f32.to_le_bytes();
        let t = TensorView::with_strides(DType::F32, &big, &[0, 0], &f).unwrap();
        let s = scan_float(&t, 0.0, 1.0);
        assert_eq!(
            (s.count, s.above, s.fractional, s.max),
            (1 << 40, 1 << 40, 1 << 40, Some(1.5))
        );
    }

    #[test]
    fn float_scan_counts_nan_inf_and_range() {
        let vals = [
            0.0f32,
            1.0,
            1.5,
            -0.25,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.5,
        ];
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let t = view(DType::F32, &[8], &bytes);
        let s = scan_float(&t, 0.0, 1.0);
        assert_eq!(
            (s.nan, s.pos_inf, s.neg_inf, s.below, s.above),
            (1, 1, 1, 2, 2)
        );
        assert_eq!(
            (s.min, s.max),
            (Some(f64::NEG_INFINITY), Some(f64::INFINITY))
        );
        assert_eq!(s.fractional, 3);
        let halfs: Vec<u8> = vals
            .iter()
            .flat_map(|&v| half::f16::from_f32(v).to_le_bytes())
            .collect();
        let h = scan_float(&view(DType::F16, &[8], &halfs), 0.0, 1.0);
        assert_eq!(h, s);
    }
}
