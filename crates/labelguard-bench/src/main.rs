//! Benchmark driver for bench/range_scan.py: times labelguard's kernels on a tensor file and
//! measures this machine's single-core memory read bandwidth, printing JSON.
//!
//!   labelguard-bench range-scan FILE.npy LO HI IGNORE REPS
//!   labelguard-bench bandwidth MIB REPS
//!   labelguard-bench non-finite DTYPE MIB REPS   (float16, bfloat16, float32: the NaN/inf scan
//!                                                 of logits, bit patterns vs the float scan)
//!   labelguard-bench floor DIR EXT JOBS            (list a tree and read every *EXT file: the
//!                                                 floor of a label-set scan, bench/yolo.py)

mod floor;

use labelguard_core::kernels::{non_finite_counts, scan_float, scan_int, IntRange};
use labelguard_core::{DType, TensorView};
use labelguard_io::{read_tensors, Limits};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = match args.first().map(String::as_str) {
        Some("range-scan") if args.len() == 6 => range_scan(&args[1..]),
        Some("bandwidth") if args.len() == 3 => bandwidth(&args[1..]),
        Some("non-finite") if args.len() == 4 => non_finite(&args[1..]),
        Some("floor") if args.len() == 4 => floor::floor(&args[1..]),
        _ => Err("usage: labelguard-bench range-scan FILE LO HI IGNORE REPS | bandwidth MIB REPS | non-finite DTYPE MIB REPS | floor DIR EXT JOBS".into()),
    };
    match out {
        Ok(json) => println!("{json}"),
        Err(e) => {
            eprintln!("labelguard-bench: {e}");
            std::process::exit(2);
        }
    }
}

fn num<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.parse().map_err(|_| format!("not a number: {s}"))
}

/// Times `scan_int` over a memory-mapped .npy (page cache warm after the first pass).
fn range_scan(a: &[String]) -> Result<String, String> {
    let tensors = read_tensors(Path::new(&a[0]), &Limits::default()).map_err(|e| e.to_string())?;
    let view = tensors[0].tensor.view();
    let ignore: i64 = num(&a[3])?;
    let range = IntRange {
        lo: num(&a[1])?,
        hi: num(&a[2])?,
        ignore: Some(ignore),
    };
    let reps: usize = num(&a[4])?;
    let warm = scan_int(&view, range);
    let mut seconds = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        let s = black_box(scan_int(black_box(&view), range));
        seconds.push(t.elapsed().as_secs_f64());
        assert_eq!(s, warm);
    }
    Ok(serde_json::json!({
        "bytes": view.bytes().len(), "seconds": seconds,
        "bad": warm.bad, "ignored": warm.ignored, "min": warm.min, "max": warm.max,
    })
    .to_string())
}

/// Times the NaN/inf count of finite logits-like values (no NaN: every element is read): the
/// bit-pattern kernel (`non_finite_counts`) and the float scan it replaced (`scan_float`).
fn non_finite(a: &[String]) -> Result<String, String> {
    let dtype = DType::parse(&a[0]).ok_or_else(|| format!("unknown dtype {}", a[0]))?;
    let bytes = num::<usize>(&a[1])? << 20;
    let reps: usize = num(&a[2])?;
    let n = bytes / dtype.size();
    // Values in [-8, 8): what logits look like; the bit patterns of each dtype.
    let value = |i: usize| ((i.wrapping_mul(2_654_435_761) >> 7) % 4096) as f32 / 256.0 - 8.0;
    let data: Vec<u8> = match dtype {
        DType::F16 | DType::BF16 => (0..n)
            .flat_map(|i| {
                let bits = value(i).to_bits();
                let half = if dtype == DType::BF16 {
                    (bits >> 16) as u16
                } else {
                    f32_to_f16_bits(value(i))
                };
                half.to_le_bytes()
            })
            .collect(),
        DType::F32 => (0..n).flat_map(|i| value(i).to_le_bytes()).collect(),
        _ => return Err("DTYPE: float16, bfloat16 or float32".into()),
    };
    let view = TensorView::new(dtype, &[n], &data).map_err(|e| e.to_string())?;
    let time = |f: &dyn Fn() -> u64| {
        let mut seconds = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = Instant::now();
            assert_eq!(black_box(f()), 0);
            seconds.push(t.elapsed().as_secs_f64());
        }
        seconds
    };
    let bits = time(&|| {
        let c = non_finite_counts(black_box(&view));
        c.nan + c.pos_inf
    });
    let float = time(&|| {
        let s = scan_float(black_box(&view), f64::NEG_INFINITY, f64::INFINITY);
        s.nan + s.pos_inf
    });
    Ok(
        serde_json::json!({"bytes": data.len(), "bits_seconds": bits, "float_seconds": float})
            .to_string(),
    )
}

/// float32 to IEEE binary16 bits, for the values above (normal, in range: rounding by truncation).
fn f32_to_f16_bits(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    if exp == 0 {
        return sign;
    }
    let e = (exp - 127 + 15).clamp(1, 30) as u16;
    sign | (e << 10) | ((b >> 13) & 0x3FF) as u16
}

/// Sums a buffer far larger than the caches: the read bandwidth one core gets from memory.
fn bandwidth(a: &[String]) -> Result<String, String> {
    let words = num::<usize>(&a[0])? << 17;
    let reps: usize = num(&a[1])?;
    let buf: Vec<u64> = (0..words as u64).collect();
    let mut seconds = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        black_box(sum(black_box(&buf)));
        seconds.push(t.elapsed().as_secs_f64());
    }
    Ok(serde_json::json!({"bytes": words * 8, "seconds": seconds}).to_string())
}

/// A plain fold: LLVM's loop vectorizer unrolls it over independent accumulators.
#[inline(always)]
fn sum_lanes(buf: &[u64]) -> u64 {
    buf.iter().fold(0u64, |a, &x| a.wrapping_add(x))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_avx2(buf: &[u64]) -> u64 {
    sum_lanes(buf)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn sum_avx512(buf: &[u64]) -> u64 {
    sum_lanes(buf)
}

/// The widest vector unit available, as the kernels under test use it.
fn sum(buf: &[u64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU supports AVX-512F, checked just above.
        return unsafe { sum_avx512(buf) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { sum_avx2(buf) };
    }
    sum_lanes(buf)
}
