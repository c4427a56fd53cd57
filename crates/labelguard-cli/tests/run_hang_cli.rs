//! `labelguard run --hang-timeout`: a job whose failed rank leaves the others waiting (processes
//! started by a script that does not watch them) is ended once its output stays silent; a job
//! without a failed rank, one whose rank only printed an error (and caught it), or one that keeps
//! printing, is left alone.
#![cfg(unix)]

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `sh -c script` under `labelguard run --hang-timeout 1`, and how long it took.
fn run(script: &str) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_labelguard"))
        .args([
            "run",
            "--no-guard",
            "--hang-timeout",
            "1",
            "--",
            "sh",
            "-c",
            script,
        ])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("labelguard runs");
    (out, start.elapsed())
}

/// `run(script)` for a job that labelguard must end because rank 1 failed: SIGTERM's exit code,
/// well before the job's own `sleep 600`, and the reason said. Returns the job's stderr.
fn ended_for_rank_1(script: &str) -> String {
    let (out, took) = run(script);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(143), "{err}");
    assert!(took < Duration::from_secs(60), "{took:?}");
    assert!(
        err.contains("labelguard run: rank 1 failed and the job"),
        "{err}"
    );
    err
}

/// What rank 1 of 2 prints when the guard refuses its batch (torch.distributed's prefix).
const RANK1_FAILS: &str = "printf '%s\\n' '[rank1]: Traceback (most recent call last):' '[rank1]:   File \"train.py\", line 9, in <module>' '[rank1]:     loss = criterion(logits, labels)' '[rank1]: labelguard.TargetError: cross_entropy on rank 1 of 2: PyTorch would raise' '[rank1]: [LG101] 1 of 4 targets is outside [0, 2]' >&2";

/// TorchElastic's agent when rank 1's process ended with an error
/// (torch/distributed/elastic/multiprocessing/api.py).
const RANK1_ENDED: &str = "echo 'E1126 13:30:20.031000 12228 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 1 (pid: 12255) of binary: /x/python' >&2";

#[test]
fn a_job_left_hanging_by_a_failed_rank_is_ended() {
    // Rank 0 waits (here in `sleep`, as in a collective whose peer is gone) and never ends.
    let err = ended_for_rank_1(&format!("{RANK1_FAILS}; {RANK1_ENDED}; exec sleep 600"));
    assert!(
        err.contains("labelguard run: rank 1 failed and the job has printed nothing for 1 s since"),
        "{err}"
    );
    assert!(
        err.contains("rank 1 failed first (TorchElastic's agent saw it fail first)"),
        "{err}"
    );
}

#[test]
fn a_silent_job_without_a_failed_rank_is_left_alone() {
    let (out, _) = run("echo start; sleep 2; echo done");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "start\ndone\n");
}

#[test]
fn a_rank_that_catches_its_error_and_goes_on_silently_is_left_alone() {
    // The error is printed (traceback.print_exc()) but no rank's process ends.
    let (out, _) = run(&format!("{RANK1_FAILS}; sleep 3; echo FINAL"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "FINAL\n");
}

#[test]
fn a_rank_that_says_it_ended_is_a_failed_rank() {
    // The file the run's sitecustomize leaves when a rank ends with an error.
    ended_for_rank_1("touch \"$LABELGUARD_RUN_DIR/ended-1-$$\"; exec sleep 600");
}

#[test]
fn a_job_that_keeps_printing_after_a_failure_is_left_alone() {
    let (out, _) = run(&format!(
        "{RANK1_FAILS}; for i in 1 2 3 4 5 6; do echo step $i; sleep 0.4; done; exit 3"
    ));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(!err.contains("ending the command"), "{err}");
}
