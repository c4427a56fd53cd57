//! The panic net under every command (issue 8): a panic in `check`, `diagnose` or the
//! discovery phase of `scan` is an LG620 internal error with "please report" and exit code 2,
//! never an abort with exit 101 and a Rust backtrace. The panics are injected through
//! `LABELGUARD_INJECT_PANIC=PHASE:TEXT`, the one fault-injection hook (`labelguard_io::fault`; debug builds only).

mod scan_common;
use scan_common::*;
use std::process::{Command, Output};

fn with_fault(cwd: &std::path::Path, fault: &str, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_labelguard"));
    cmd.env("LABELGUARD_INJECT_PANIC", fault);
    run_cmd(cmd, cwd, args)
}

/// The one-line LG620 error: exit 2, the panic's text and place, "please report", and none of
/// the default hook's output (the "panicked at" line, the backtrace note).
fn assert_internal_error(o: &Output) {
    let err = stderr(o);
    assert_eq!(code(o), 2, "{err}");
    assert!(
        err.starts_with("labelguard: error: LG620 internal-error: internal error: injected fault"),
        "{err}"
    );
    assert!(err.contains("fault.rs:"), "{err}");
    assert!(err.contains("please report"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

fn npy_i64(values: &[i64]) -> Vec<u8> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    npy("<i8", &[values.len()], &bytes)
}

#[test]
fn a_panic_in_check_is_lg620_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "input.npy", &npy_i64(&[1, 2, 3]));
    let args = [
        "check",
        "embedding",
        "input.npy",
        "--arg",
        "num_embeddings=10",
    ];
    // Without the fault the same call is fine, so the exit code below is the net's.
    assert_eq!(code(&run_in(dir.path(), &args)), 0);
    let o = with_fault(dir.path(), "check:input.npy", &args);
    assert_internal_error(&o);
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    // Another phase's fault does not fire in check.
    assert_eq!(
        code(&with_fault(dir.path(), "diagnose:input.npy", &args)),
        0
    );
}

#[test]
fn a_panic_in_diagnose_is_lg620_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "train.log",
        b"epoch 1 loss 0.5\nepoch 2 loss 0.4\n",
    );
    assert_eq!(code(&run_in(dir.path(), &["diagnose", "train.log"])), 0);
    let o = with_fault(dir.path(), "diagnose:train.log", &["diagnose", "train.log"]);
    assert_internal_error(&o);
}

#[test]
fn a_panic_while_a_scan_discovers_its_files_is_lg620_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    put(
        &dir.path().join("masks"),
        "a.png",
        &png_gray8(4, 4, &[1; 16]),
    );
    let args = ["scan", "masks", "--no-config", "--num-classes", "3", "-q"];
    assert_eq!(code(&run_in(dir.path(), &args)), 0);
    let o = with_fault(dir.path(), "discover:masks", &args);
    assert_internal_error(&o);
    // A plain TEXT still means the reading of a file, which the scan's own net isolates.
    let o = with_fault(dir.path(), "a.png", &args);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
}
