//! `labelguard diagnose` as a user runs it: fixture logs, stdin, exit codes, text and JSON.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/logs")
        .join(name)
}

fn labelguard(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_labelguard"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn diagnose(files: &[&str], extra: &[&str]) -> Output {
    let paths: Vec<String> = files
        .iter()
        .map(|f| fixture(f).display().to_string())
        .collect();
    let mut args = vec!["diagnose"];
    args.extend_from_slice(extra);
    args.extend(paths.iter().map(String::as_str));
    labelguard(&args)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

#[test]
fn json_findings_carry_op_code_cause_fix_confidence_evidence_and_user_frame() {
    let o = diagnose(
        &["host_cpu_target_255_segmentation.log"],
        &["--format", "json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v = json(&o);
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["outcome"], "explained");
    let f = &v["findings"][0];
    assert_eq!(f["op"], "cross_entropy");
    assert_eq!(f["code"], "LG103");
    assert_eq!(f["confidence"], "high");
    assert!(f["cause"].as_str().unwrap().contains("255"));
    assert!(f["fix"].as_str().unwrap().contains("ignore_index=255"));
    let ev = &f["evidence"][0];
    assert_eq!(ev["line"], 20);
    assert_eq!(ev["text"], "IndexError: Target 255 is out of bounds.");
    assert_eq!(f["user_frame"]["file"], "/home/user/project/seg_train.py");
    assert_eq!(f["user_frame"]["line"], 14);
    assert_eq!(f["user_frame"]["function"], "train_step");
    assert_eq!(f["user_frame"]["trusted"], true);
}

#[test]
fn stdin_is_read_when_no_file_is_given() {
    let log = std::fs::read(fixture("aten_2.1_nll2d_grouped.log")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_labelguard"))
        .args(["diagnose", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&log).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    let f = &v["findings"][0];
    assert_eq!(f["code"], "LG101");
    assert_eq!(f["count"], 64);
    assert_eq!(f["evidence"][0]["source"], "stdin");
    assert_eq!(v["findings"][1]["code"], "LG902");
}

#[test]
fn text_names_the_op_the_cause_the_fix_and_the_users_line() {
    let o = diagnose(&["aten_1.13_conda_hf_sequence_classification.log"], &[]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o.stdout);
    assert!(out.contains("error[LG101] class-id-out-of-range"), "{out}");
    assert!(
        out.contains(
            "op: cross_entropy · kernel: nll_loss_forward_reduce_cuda_kernel_2d · confidence: high"
        ),
        "{out}"
    );
    assert!(out.contains("fix: "), "{out}");
    assert!(
        out.contains("your code: /home/li/sst/run_glue.py:530 in main"),
        "{out}"
    );
    assert!(
        out.contains("(reported here, not necessarily where it failed)"),
        "{out}"
    );
    assert!(out.contains("warning[LG902] asynchronous-report"), "{out}");
    assert!(out.contains("labelguard run --sync"), "{out}");
    assert!(!out.contains('\x1b'), "NO_COLOR is set");
}

#[test]
fn colour_only_when_asked() {
    let o = diagnose(&["host_cpu_bce_input.log"], &["--color", "always"]);
    assert!(text(&o.stdout).contains("\x1b["));
}

#[test]
fn exit_1_when_an_error_cannot_be_explained() {
    let o = diagnose(&["jupyter_accelerator_error_no_assert_lines.log"], &[]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert!(out.contains("error[LG901]"), "{out}");
    // The cell's context line before the arrow names the likeliest op, at low confidence.
    assert!(out.contains("op: cross_entropy"), "{out}");
    assert!(out.contains("confidence: low"), "{out}");
    assert!(out.contains("unexplained"), "{out}");
}

#[test]
fn exit_0_when_the_log_shows_no_error() {
    let o = diagnose(&["no_error_training_log.log"], &[]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout), "no error found in the log\n");
}

#[test]
fn exit_2_on_an_unreadable_file() {
    let o = labelguard(&["diagnose", "/nonexistent/train.log"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("/nonexistent/train.log"));
}

#[test]
fn several_logs_are_diagnosed_each_on_its_own() {
    let o = diagnose(
        &["host_cpu_target_out_of_bounds.log", "oom_not_assert.log"],
        &["--format", "json"],
    );
    assert_eq!(o.status.code(), Some(1), "the OOM is not explained");
    let v = json(&o);
    assert_eq!(v["outcome"], "unexplained");
    let logs = v["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 2);
    assert_eq!(logs[0]["outcome"], "explained");
    assert_eq!(logs[1]["outcome"], "unexplained");
    assert_eq!(v["findings"].as_array().unwrap().len(), 2);
}

#[test]
fn launch_blocking_tells_it_to_trust_the_traceback() {
    let o = diagnose(&["generic_1.4_bare_header.log"], &["--format", "json"]);
    let codes = |v: &serde_json::Value| -> Vec<String> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(codes(&json(&o)), ["LG901", "LG902"]);
    let o = diagnose(
        &["generic_1.4_bare_header.log"],
        &["--format", "json", "--launch-blocking"],
    );
    assert_eq!(codes(&json(&o)), ["LG901"]);
    assert_eq!(json(&o)["findings"][0]["user_frame"]["trusted"], true);
}

#[test]
fn the_new_rules_are_documented() {
    for code in [
        "LG901", "LG902", "LG903", "LG904", "LG905", "LG906", "LG907", "LG908", "LG909",
    ] {
        let o = labelguard(&["rule", code]);
        assert_eq!(o.status.code(), Some(0), "{code}");
        let doc = text(&o.stdout);
        assert!(doc.contains("## Fix"), "{code}: {doc}");
    }
}

#[test]
fn one_log_per_rank_the_failed_rank_explains_the_others_peer_errors() {
    // torchrun --redirects 3: rank 1's IndexError in one file, rank 0's closed connection in the
    // other (torch 2.15, gloo, CPU).
    let (rank0, rank1) = (
        fixture("per_rank/rank0.stderr.log"),
        fixture("per_rank/rank1.stderr.log"),
    );
    let (rank0, rank1) = (rank0.to_str().unwrap(), rank1.to_str().unwrap());
    let alone = labelguard(&["diagnose", "--format", "json", rank0]);
    assert_eq!(alone.status.code(), Some(1));
    assert_eq!(json(&alone)["findings"][0]["confidence"], "low");
    let o = labelguard(&["diagnose", "--format", "json", rank0, rank1]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let doc = json(&o);
    assert_eq!(doc["outcome"], "explained");
    let peer = &doc["findings"][0];
    assert_eq!(peer["code"], "LG909");
    assert_eq!(peer["severity"], "warning");
    assert_eq!(peer["confidence"], "high");
    assert_eq!(doc["logs"][1]["first_failure"]["rank"], 1);
    assert_eq!(doc["findings"][1]["code"], "LG101");
}

#[test]
fn a_rank_that_failed_first_is_not_also_called_a_peer_failure() {
    // The agent's `failed (exitcode: -6) local_rank: 0 (pid: 12255)` is rank 0's own end; its
    // `Sending process 12256 closing signal SIGTERM` went to another process.
    let o = diagnose(&["torchrun_agent_sigabrt_rank0_sigterm_other_pid.log"], &[]);
    let out = text(&o.stdout);
    assert!(out.contains("rank 0 failed first"), "{out}");
    assert!(
        out.contains("a rank failed because another rank failed first"),
        "{out}"
    );
    assert!(!out.contains("rank 0 failed because"), "{out}");
}

#[test]
fn a_log_with_only_torchelastics_summary_is_unexplained() {
    let o = diagnose(&["torchrun_summary_only_rank1_no_error_text.log"], &[]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("rank 1 failed first"), "{out}");
    assert!(!out.contains("no error found"), "{out}");
}

#[test]
fn a_peer_failure_after_the_first_failure_is_a_warning_in_its_header_too() {
    let o = diagnose(&["ddp_unprefixed_assert_rank1_nccl_timeout.log"], &[]);
    let out = text(&o.stdout);
    assert!(
        out.contains("warning[LG909] peer-rank-failure (follows an earlier error)"),
        "{out}"
    );
    assert!(!out.contains("peer-rank-failure (error)"), "{out}");
}
