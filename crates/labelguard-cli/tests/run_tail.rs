//! `labelguard run` never loses the end of a failing command's output: a traceback written in
//! 4-byte pieces, beside busy processes, with the diagnoser slowed down on purpose
//! (`LABELGUARD_SLOW_DIAGNOSER`, a hook of debug builds), is diagnosed every time, and after a
//! flood that overflows the diagnoser's queue the last part of the stream is still read in full,
//! at its true line numbers.
#![cfg(unix)]

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

fn repo() -> PathBuf {
    std::fs::canonicalize(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// The real log of an asynchronously reported nll_loss assert (847 bytes).
fn log() -> PathBuf {
    repo().join("tests/fixtures/logs/aten_1.10_nll_async_callso.log")
}

/// `labelguard run` of the fixture that writes `log()` in `piece`-byte writes, `pause`
/// seconds apart, after `flood` progress lines of 36 bytes; every piece of the diagnoser waits
/// `slow_ms` (0: no pause).
fn run(piece: usize, pause: f64, flood: usize, slow_ms: u64) -> Output {
    let script = repo().join("tests/fixtures/run/tiny_writes.py");
    Command::new(env!("CARGO_BIN_EXE_labelguard"))
        .args(["run", "--no-guard", "--", "python3"])
        .arg(script)
        .arg(log())
        .args([piece.to_string(), pause.to_string(), flood.to_string()])
        .env("NO_COLOR", "1")
        .env("LABELGUARD_SLOW_DIAGNOSER", slow_ms.to_string())
        .env_remove("PYTHONPATH")
        .stdin(Stdio::null())
        .output()
        .expect("labelguard runs")
}

/// Processes that keep the cores busy while they live.
struct Busy(Vec<Child>);

impl Busy {
    fn start(n: usize) -> Busy {
        Busy(
            (0..n)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("sh starts")
                })
                .collect(),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The diagnosis after the child's own stderr.
fn diagnosis(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    match err.split_once("labelguard run: the command failed (exit status 1)") {
        Some((_, d)) => d.to_string(),
        None => panic!("no diagnosis:\n{err}"),
    }
}

/// Everything the log says, from its first line to its last: the assert (LG101), that it was
/// reported asynchronously (LG902), and the user's frame from the traceback at the end.
fn assert_whole(d: &str) {
    assert!(d.contains("error[LG101]"), "{d}");
    assert!(d.contains("warning[LG902]"), "{d}");
    assert!(d.contains("your code: /home/kim/cifar/train.py:96"), "{d}");
}

#[test]
fn a_traceback_in_tiny_writes_is_diagnosed_whatever_the_diagnoser_costs() {
    // 212 writes of 4 bytes, 1 ms apart, each piece of the diagnoser 20 ms late, beside two
    // busy processes: the error is diagnosed whole every time.
    let _busy = Busy::start(2);
    for _ in 0..3 {
        let o = run(4, 0.001, 0, 20);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with(&std::fs::read_to_string(log()).unwrap()),
            "the child's stderr passes through unchanged: {err}"
        );
        assert!(
            !err.contains("faster than they could be diagnosed"),
            "{err}"
        );
        assert_whole(&diagnosis(&o));
    }
}

#[test]
fn after_a_flood_the_last_part_of_the_stream_is_diagnosed_in_full() {
    // 16 MiB of progress lines overflow the diagnoser's queue (some are skipped and counted),
    // then the traceback arrives in 4-byte writes: read in full, at its true line numbers.
    let flood = (16 << 20) / 36;
    let o = run(4, 0.0, flood, 20);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("faster than they could be diagnosed"), "{err}");
    let d = diagnosis(&o);
    assert_whole(&d);
    assert!(d.contains(&format!("stderr:{} ", flood + 1)), "{d}");
}
