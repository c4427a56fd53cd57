//! Class histograms: the one pass every mask gets.
//!
//! Label masks are long runs of one id. [`hist_u8_runs`] finds the places where a byte differs
//! from its left neighbour (32 bytes per AVX2 compare, 8 per step without it) and adds whole
//! runs to the bins, so the work is per transition, not per pixel. Min, max, the set of ids and
//! the range check all derive from the 256 bins, so a clean mask costs one read of its pixels.

use labelguard_core::{DType, TensorView};
use std::collections::BTreeMap;

/// What one pass over a u8 mask found besides the histogram: for each id, how many of its
/// pixels sit in short horizontal runs (1 or 2 pixels) whose value lies strictly between the
/// runs on either side. Interpolated borders look exactly like that; clean masks almost never
/// do, so this is the cheap trigger of the resize-artefact check.
#[derive(Clone, Debug)]
pub struct RunStats {
    pub between: [u32; 256],
}

impl Default for RunStats {
    fn default() -> Self {
        RunStats { between: [0; 256] }
    }
}

/// Records a finished run `[start, end)` of `value`, preceded by `prev` and followed by `next`.
#[inline(always)]
fn end_run(bins: &mut [u64; 256], stats: &mut RunStats, prev: u8, value: u8, len: usize, next: u8) {
    bins[value as usize] += len as u64;
    if len <= 2 && ((prev < value && value < next) || (next < value && value < prev)) {
        stats.between[value as usize] += len as u32;
    }
}

/// Portable run finder: 8 bytes at a time, comparing each byte with its left neighbour.
#[inline(always)]
fn runs_portable(data: &[u8], bins: &mut [u64; 256], stats: &mut RunStats) {
    let n = data.len();
    if n == 0 {
        return;
    }
    let (mut start, mut prev) = (0usize, data[0]);
    let mut i = 1;
    while i + 8 <= n {
        let cur = u64::from_le_bytes(data[i..i + 8].try_into().expect("8 bytes"));
        let left = u64::from_le_bytes(data[i - 1..i + 7].try_into().expect("8 bytes"));
        if cur == left {
            i += 8;
            continue;
        }
        for j in i..i + 8 {
            if data[j] != data[j - 1] {
                end_run(bins, stats, prev, data[start], j - start, data[j]);
                prev = data[start];
                start = j;
            }
        }
        i += 8;
    }
    for j in i..n {
        if data[j] != data[j - 1] {
            end_run(bins, stats, prev, data[start], j - start, data[j]);
            prev = data[start];
            start = j;
        }
    }
    end_run(bins, stats, prev, data[start], n - start, data[start]);
}

/// AVX2 run finder: 32 bytes per step, one compare and one movemask; the transitions (few
/// per row in a mask) are then visited one by one through the bit mask.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn runs_avx2(data: &[u8], bins: &mut [u64; 256], stats: &mut RunStats) {
    use std::arch::x86_64::{__m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8};
    let n = data.len();
    let (mut start, mut prev) = (0usize, data[0]);
    let mut i = 1;
    while i + 32 <= n {
        // SAFETY: i + 32 <= n and i >= 1, so both 32-byte loads are inside `data`.
        let eq = unsafe {
            let cur = _mm256_loadu_si256(data.as_ptr().add(i) as *const __m256i);
            let left = _mm256_loadu_si256(data.as_ptr().add(i - 1) as *const __m256i);
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(cur, left)) as u32
        };
        let mut diff = !eq;
        while diff != 0 {
            let j = i + diff.trailing_zeros() as usize;
            end_run(bins, stats, prev, data[start], j - start, data[j]);
            prev = data[start];
            start = j;
            diff &= diff - 1;
        }
        i += 32;
    }
    for j in i..n {
        if data[j] != data[j - 1] {
            end_run(bins, stats, prev, data[start], j - start, data[j]);
            prev = data[start];
            start = j;
        }
    }
    end_run(bins, stats, prev, data[start], n - start, data[start]);
}

/// Adds the histogram of `data` to `bins`, and its short between-runs to `stats`.
///
/// The pass is run-based: it only does work where a byte differs from its left neighbour,
/// which in a label mask is a few times per row, so it runs at close to memory speed.
pub fn hist_u8_runs(data: &[u8], bins: &mut [u64; 256], stats: &mut RunStats) {
    if data.is_empty() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { runs_avx2(data, bins, stats) };
    }
    runs_portable(data, bins, stats)
}

/// Adds the histogram of `data` to `bins`.
pub fn hist_u8(data: &[u8], bins: &mut [u64; 256]) {
    hist_u8_runs(data, bins, &mut RunStats::default())
}

/// The non-zero bins of a 256-bin histogram as (value, count) pairs.
pub fn sparse_u8(bins: &[u64; 256]) -> Vec<(i64, u64)> {
    bins.iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(v, &c)| (v as i64, c))
        .collect()
}

/// At most this many distinct values are tallied per file; the rest are counted together.
pub const MAX_DISTINCT: usize = 1 << 16;

/// The histogram of any sequence of integer values, run-aware, keeping at most
/// [`MAX_DISTINCT`] distinct values. Returns the pairs and the count of elements whose value
/// did not fit.
pub fn hist_values(values: impl Iterator<Item = i64>) -> (Vec<(i64, u64)>, u64) {
    let mut map: BTreeMap<i64, u64> = BTreeMap::new();
    let mut overflow = 0u64;
    let mut current: Option<(i64, u64)> = None;
    let mut flush = |map: &mut BTreeMap<i64, u64>, v: i64, n: u64| {
        if let Some(c) = map.get_mut(&v) {
            *c += n;
        } else if map.len() < MAX_DISTINCT {
            map.insert(v, n);
        } else {
            overflow += n;
        }
    };
    for v in values {
        match &mut current {
            Some((cv, n)) if *cv == v => *n += 1,
            _ => {
                if let Some((cv, n)) = current {
                    flush(&mut map, cv, n);
                }
                current = Some((v, 1));
            }
        }
    }
    if let Some((cv, n)) = current {
        flush(&mut map, cv, n);
    }
    (map.into_iter().collect(), overflow)
}

/// The histogram of 16-bit samples, dense while counting (runs make this cheap).
pub fn hist_u16(data: impl IntoIterator<Item = u16>) -> Vec<(i64, u64)> {
    let mut bins = vec![0u64; 1 << 16];
    let mut data = data.into_iter().peekable();
    if let Some(&first) = data.peek() {
        let mut run_value = first;
        let mut run = 0u64;
        for v in data {
            if v == run_value {
                run += 1;
            } else {
                bins[run_value as usize] += run;
                run_value = v;
                run = 1;
            }
        }
        bins[run_value as usize] += run;
    }
    bins.iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(v, &c)| (v as i64, c))
        .collect()
}

/// Adds `add` to the sorted histogram `into`.
pub fn merge_hist(into: &mut Vec<(i64, u64)>, add: &[(i64, u64)]) {
    if into.is_empty() {
        into.extend_from_slice(add);
        return;
    }
    let mut m: BTreeMap<i64, u64> = into.iter().copied().collect();
    for (v, c) in add {
        *m.entry(*v).or_insert(0) += c;
    }
    *into = m.into_iter().collect();
}

/// The histogram of an integer view, with the fastest kernel for its dtype: for u8 masks
/// the run pass, which also yields the resize-artefact trigger.
pub fn histogram_with_runs(view: &TensorView<'_>) -> (Vec<(i64, u64)>, u64, Option<RunStats>) {
    if view.is_contiguous() {
        match view.dtype() {
            DType::U8 => {
                let mut bins = [0u64; 256];
                let mut runs = RunStats::default();
                hist_u8_runs(view.bytes(), &mut bins, &mut runs);
                return (sparse_u8(&bins), 0, Some(runs));
            }
            DType::U16 => {
                // Read in place: no second copy of the pixels.
                let data = view
                    .bytes()
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]));
                return (hist_u16(data), 0, None);
            }
            _ => {}
        }
    }
    let (h, overflow) = hist_values(view.offsets().map(|o| view.read_i64(o)));
    (h, overflow, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(data: &[u8]) -> [u64; 256] {
        let mut b = [0u64; 256];
        for &v in data {
            b[v as usize] += 1;
        }
        b
    }

    #[test]
    fn run_aware_histogram_matches_naive() {
        let mut seed = 12345u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            seed >> 24
        };
        for len in [0usize, 1, 31, 32, 33, 64, 1000, 70_001] {
            // Runs of random lengths and values, plus noise.
            let mut data = Vec::with_capacity(len);
            while data.len() < len {
                let v = next() as u8;
                let n = (next() as usize % 300) + 1;
                for _ in 0..n.min(len - data.len()) {
                    data.push(if next() % 50 == 0 { next() as u8 } else { v });
                }
            }
            let mut bins = [0u64; 256];
            hist_u8(&data, &mut bins);
            assert_eq!(bins, naive(&data), "len {len}");
            let (mut b2, mut st) = ([0u64; 256], RunStats::default());
            runs_portable(&data, &mut b2, &mut st);
            assert_eq!(b2, naive(&data), "portable, len {len}");
        }
    }

    #[test]
    fn short_runs_between_their_neighbours_are_counted() {
        // 0 0 0 5 10 10 10 7 7 0 0 3 3 3 3
        let data = [0u8, 0, 0, 5, 10, 10, 10, 7, 7, 0, 0, 3, 3, 3, 3];
        let mut bins = [0u64; 256];
        let mut st = RunStats::default();
        hist_u8_runs(&data, &mut bins, &mut st);
        assert_eq!(st.between[5], 1, "5 between 0 and 10");
        assert_eq!(st.between[7], 2, "7 7 between 10 and 0");
        assert_eq!(st.between[0], 0, "0 0 is not between 7 and 3");
        let long: Vec<u8> = (0..4000)
            .map(|i| {
                if i % 100 == 50 {
                    5
                } else if (i / 100) % 2 == 0 {
                    0
                } else {
                    10
                }
            })
            .collect();
        let (mut b1, mut s1) = ([0u64; 256], RunStats::default());
        hist_u8_runs(&long, &mut b1, &mut s1);
        let (mut b2, mut s2) = ([0u64; 256], RunStats::default());
        runs_portable(&long, &mut b2, &mut s2);
        assert_eq!((b1, s1.between), (b2, s2.between));
    }

    #[test]
    fn value_histograms_count_runs_and_overflow() {
        let (h, over) = hist_values([3i64, 3, -1, 3, 70000].into_iter());
        assert_eq!(h, vec![(-1, 1), (3, 3), (70000, 1)]);
        assert_eq!(over, 0);
        let (h, over) = hist_values((0..(MAX_DISTINCT as i64 + 10)).chain([0, 0]));
        assert_eq!(h.len(), MAX_DISTINCT);
        assert_eq!(over, 10);
        assert_eq!(h[0], (0, 3));
        assert_eq!(hist_u16([7, 7, 65535, 7]), vec![(7, 3), (65535, 1)]);
    }
}
