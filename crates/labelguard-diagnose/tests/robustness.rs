//! The parser on hostile input: arbitrary bytes, invalid UTF-8, 100 MB lines, pathological
//! repetitions, and any split of the stream into chunks. It must never panic, never take more
//! than linear time, and give the same answer however the bytes arrive.

use labelguard_diagnose::{diagnose_bytes, Analyzer, LogReport, Options, Outcome, Scanner};
use proptest::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Pieces of real logs that exercise every branch of the parser, to be glued at random.
const PIECES: &[&[u8]] = &[
    b"../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] ",
    b"Assertion `t >= 0 && t < n_classes` failed.",
    b"Assertion `srcIndex < srcSelectDimSize` failed.",
    b"Assertion ",
    b" failed.",
    b"AssertionError: Label class 79 exceeds nc=16",
    b"C:\\x\\IndexKernel.cu:91: block: [26,0,0], thread: [32,0,0] ",
    b"RuntimeError: CUDA error: device-side assert triggered",
    b"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    b"Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    b"Traceback (most recent call last):",
    b"RuntimeError                              Traceback (most recent call last)",
    b"  File \"/home/u/train.py\", line 12, in main",
    b"    loss = F.cross_entropy(out, y)",
    b"File /x/functional.py:3029, in cross_entropy(input)",
    b"Cell In[3], line 2",
    b"----> 2 loss = f(x)",
    b"<ipython-input-1-ab> in <module>()",
    b"IndexError: Target 255 is out of bounds.",
    b"IndexError: Target -99999999999999999999999 is out of bounds.",
    b"index out of range in self",
    b"Token indices sequence length is longer than the specified maximum sequence length for this model (600 > 512)",
    b"class_weight=[0.1, 0.2]",
    b"CUBLAS_STATUS_EXECUTION_FAILED",
    b"an illegal memory access was encountered",
    b"1 CUDA device-side assertion failures were found on GPU #0!",
    b"Assertion failure 0",
    b"  GPU assertion failure message = t >= 0 && t < n_classes",
    b"  File containing assertion = /x/Loss.cu:250",
    b"  Device function containing assertion = nll_loss_forward_reduce_cuda_kernel_2d",
    b"labelguard.LabelguardError: [LG101] cross_entropy",
    b"KeyError: 'labels'",
    b"[rank0]:",
    b"[rank12]: ",
    b"3: ",
    b"\x1b[31m",
    b"\x1b[",
    b"\x1b]0;t\x07",
    b"\xff\xfe\xc3",
    b"\xe2\x96\x88",
    b"`",
    b"'",
    b"\r",
    b"\n",
    b"\r\n",
    b"\t",
    b" ",
    b"\0",
];

fn glued() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(0..PIECES.len(), 0..200).prop_map(|ix| {
        ix.into_iter()
            .flat_map(|i| PIECES[i].iter().copied())
            .collect()
    })
}

/// Feeds `log` in chunks of the given sizes (cycled).
fn chunked(log: &[u8], sizes: &[usize]) -> LogReport {
    let mut a = Analyzer::new(Options::default());
    let src = a.add_source("log");
    let mut s = Scanner::new(src);
    let mut rest = log;
    let mut i = 0;
    while !rest.is_empty() {
        let n = sizes[i % sizes.len()].clamp(1, rest.len());
        s.feed(&rest[..n], &mut a);
        rest = &rest[n..];
        i += 1;
    }
    s.finish(&mut a);
    a.finish()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(log in prop::collection::vec(any::<u8>(), 0..4096)) {
        let r = diagnose_bytes(&log, "fuzz", Options::default());
        prop_assert_eq!(r.inputs[0].bytes, log.len() as u64);
    }

    #[test]
    fn glued_log_pieces_never_panic(log in glued()) {
        let r = diagnose_bytes(&log, "fuzz", Options::default());
        // Whatever it concludes is consistent: no findings means no error.
        prop_assert_eq!(r.findings.is_empty(), r.outcome == Outcome::NoError);
    }

    #[test]
    fn the_diagnosis_does_not_depend_on_how_the_stream_is_chunked(
        log in glued(),
        sizes in prop::collection::vec(1usize..64, 1..8),
    ) {
        prop_assert_eq!(chunked(&log, &sizes), chunked(&log, &[log.len().max(1)]));
    }
}

#[test]
fn every_fixture_gives_the_same_diagnosis_in_small_chunks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/logs");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "log") {
            let log = std::fs::read(&path).unwrap();
            let whole = chunked(&log, &[log.len()]);
            for sizes in [&[1usize][..], &[7, 3, 100], &[4096]] {
                assert_eq!(
                    chunked(&log, sizes),
                    whole,
                    "{} in chunks {sizes:?}",
                    path.display()
                );
            }
        }
    }
}

/// Thousands of identical assertion lines (one per failing GPU thread) become one finding.
#[test]
fn ten_thousand_assertion_lines_are_grouped_with_a_count() {
    let mut log = Vec::new();
    for i in 0..10_000 {
        log.extend_from_slice(format!("../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [{},0,0], thread: [{},0,0] Assertion `t >= 0 && t < n_classes` failed.\n", i / 512, i % 512).as_bytes());
    }
    log.extend_from_slice(b"RuntimeError: CUDA error: device-side assert triggered\n");
    let r = diagnose_bytes(&log, "big", Options::default());
    let d = &r.findings[0];
    assert_eq!(d.finding.code, "LG101");
    assert_eq!(d.count, 10_000);
    assert_eq!(d.evidence[0].line, 1);
    assert_eq!(d.evidence[0].count, 10_000);
    assert_eq!(d.evidence[0].last_line, Some(10_000));
}

fn time(log: &[u8]) -> Duration {
    let t = Instant::now();
    let r = diagnose_bytes(log, "t", Options::default());
    std::hint::black_box(r);
    t.elapsed()
}

/// Growing the input grows the time in proportion (a quadratic pass would grow it by the square).
fn assert_linear(name: &str, make: impl Fn(usize) -> Vec<u8>) {
    // 8x the input: linear time takes about 8x, quadratic 64x; the limit between them (24x)
    // leaves a loaded machine's noise room (4x the input with a limit of 10x failed under load).
    let small = make(1);
    let big = make(8);
    // Warm up, then the best of three runs of each to keep scheduling noise out.
    let _ = time(&small);
    let t1 = (0..3).map(|_| time(&small)).min().unwrap();
    let t8 = (0..3).map(|_| time(&big)).min().unwrap();
    let ratio = t8.as_secs_f64() / t1.as_secs_f64().max(1e-4);
    eprintln!("{name}: {} bytes {t1:?}, 8x {t8:?}", small.len());
    assert!(
        ratio < 24.0,
        "{name}: 8x the input took {ratio:.1}x the time ({t1:?} -> {t8:?})"
    );
}

#[test]
fn pathological_inputs_take_linear_time() {
    let repeat = |piece: &'static [u8], n: usize| -> Vec<u8> { piece.repeat(n) };
    assert_linear("one line of glued assertions", |k| {
        repeat(b"Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.", 10_000 * k)
    });
    assert_linear("'Assertion' without 'failed'", |k| {
        repeat(b"Assertion ", 100_000 * k)
    });
    assert_linear("'Assertion' then one far 'failed'", |k| {
        let mut v = repeat(b"Assertion ", 100_000 * k);
        v.extend_from_slice(b" failed");
        v
    });
    assert_linear("tracebacks that never end", |k| {
        repeat(
            b"Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n    y()\n",
            10_000 * k,
        )
    });
    assert_linear("frames of one endless traceback", |k| {
        let mut v = b"Traceback (most recent call last):\n".to_vec();
        v.extend(repeat(
            b"  File \"/home/u/x.py\", line 1, in f\n    loss = F.cross_entropy(a, b)\n",
            10_000 * k,
        ));
        v
    });
    assert_linear("distinct assertion sites", |k| {
        (0..2_500 * k)
            .flat_map(|i| format!("/x/K{i}.cu:{i}: k{i}: block: [0,0,0], thread: [0,0,0] Assertion `x{i} < n` failed.\n").into_bytes())
            .collect()
    });
    assert_linear("distinct unknown exceptions", |k| {
        (0..5_000 * k)
            .flat_map(|i| format!("Traceback (most recent call last):\n  File \"a.py\", line {i}, in f\nE{i}Error: boom {i}\n").into_bytes())
            .collect()
    });
    assert_linear("traceback lines full of link brackets", |k| {
        let line = [&b"  "[..], &b"[a](b [[[ ](x) ]("[..].repeat(100), b"\n"].concat();
        let mut v = b"Traceback (most recent call last):\n".to_vec();
        v.extend(line.repeat(1_000 * k));
        v
    });
    assert_linear("rank prefixes", |k| {
        (0..5_000 * k)
            .flat_map(|i| format!("[rank{i}]: Traceback (most recent call last):\n[rank{i}]:   File \"a.py\", line 1, in f\n").into_bytes())
            .collect()
    });
}

/// A 100 MB line (no line break) is read in pieces: no panic, bounded time.
#[test]
fn a_100_mb_line_is_read_in_linear_time() {
    let mut line = Vec::with_capacity(100 << 20);
    let unit = "█ progress 50% loss=0.1 ".as_bytes();
    while line.len() < (100 << 20) {
        line.extend_from_slice(unit);
        if line.len() % (1 << 20) < unit.len() {
            line.extend_from_slice(b"Assertion `t >= 0 && t < n_classes` failed.");
        }
    }
    line.push(0xff); // invalid UTF-8 at the very end
    let t = Instant::now();
    let r = diagnose_bytes(&line, "long", Options::default());
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    assert_eq!(r.inputs[0].lines, 1);
    assert_eq!(r.inputs[0].bytes, line.len() as u64);
}

#[test]
fn lines_are_counted_like_wc_plus_a_last_unterminated_line() {
    let count = |log: &[u8]| diagnose_bytes(log, "n", Options::default()).inputs[0].lines;
    assert_eq!(count(b""), 0);
    assert_eq!(count(b"a"), 1);
    assert_eq!(count(b"a\n"), 1);
    assert_eq!(count(b"a\nb"), 2);
    assert_eq!(count(b"a\r\nb\r\n"), 2);
    assert_eq!(count(b"10%\r50%\r100%\n"), 1);
}

/// Found by the chunking property: the line before an exception line (the source line that
/// raised it) was only seen when both lay in one chunk, so a byte-by-byte stream lost the
/// "most likely in cross_entropy" that the whole log gave.
#[test]
fn the_line_before_an_exception_is_seen_across_chunk_boundaries() {
    let log: &[u8] = b"Assertion \nAssertion \x1b[31m    loss = F.cross_entropy(out, y)\rRuntimeError: CUDA error: device-side assert triggered\rAssertion ";
    let whole = chunked(log, &[log.len()]);
    assert_eq!(whole.findings[0].op, "cross_entropy");
    for size in 1..log.len() {
        assert_eq!(chunked(log, &[size]), whole, "chunks of {size}");
    }
    // CRLF split between chunks, and a source line longer than the window.
    let crlf: &[u8] = b"    loss = F.cross_entropy(out, y)\r\nRuntimeError: CUDA error: device-side assert triggered\n";
    for size in 1..crlf.len() {
        assert_eq!(
            chunked(crlf, &[size]),
            chunked(crlf, &[crlf.len()]),
            "chunks of {size}"
        );
    }
    let long = [
        b"x = ".as_slice(),
        &[b'a'; 5000],
        b"\nRuntimeError: CUDA error: device-side assert triggered\n",
    ]
    .concat();
    for size in [1, 7, 4096, 4099, 5003] {
        assert_eq!(
            chunked(&long, &[size]),
            chunked(&long, &[long.len()]),
            "chunks of {size}"
        );
    }
}
