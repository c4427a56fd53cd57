//! Helpers shared by the `scan_*` tests: run the binary with a deadline, read its JSON.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub use labelguard_formats::fixtures::*;
pub mod coco;

/// Runs `labelguard ARGS` in `cwd`, failing the test if it takes more than a minute (a hang
/// is a bug: FIFOs and symlink loops must not block the scan).
pub fn run_in(cwd: &Path, args: &[&str]) -> Output {
    run_cmd(Command::new(env!("CARGO_BIN_EXE_labelguard")), cwd, args)
}

/// [`run_in`] for a prepared command (extra environment, another user).
pub fn run_cmd(mut cmd: Command, cwd: &Path, args: &[&str]) -> Output {
    let mut child = cmd
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Drain both pipes while waiting: a report larger than the pipe buffer must not stall.
    let drain = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Output {
                status,
                stdout: out.join().expect("stdout"),
                stderr: err.join().expect("stderr"),
            };
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("labelguard {args:?} did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub fn code(o: &Output) -> i32 {
    o.status.code().expect("exited normally")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", stdout(o), stderr(o)))
}

/// Every finding of a JSON report: (path or "", code).
pub fn codes(report: &serde_json::Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for f in report["files"].as_array().expect("files") {
        for x in f["findings"].as_array().expect("findings") {
            out.push((
                x["path"].as_str().unwrap_or("").to_string(),
                x["code"].as_str().unwrap().to_string(),
            ));
        }
    }
    for x in report["dataset"].as_array().expect("dataset") {
        out.push((String::new(), x["code"].as_str().unwrap().to_string()));
    }
    out
}

/// The findings of one file (matched by path suffix).
pub fn findings_of<'a>(report: &'a serde_json::Value, suffix: &str) -> Vec<&'a serde_json::Value> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"].as_str().unwrap().ends_with(suffix))
        .flat_map(|f| f["findings"].as_array().unwrap().iter())
        .collect()
}

/// DATA as the calls expect it: a Cityscapes tree with defects, `DATA/arrays` with
/// id arrays, and `labels.csv` beside it.
pub fn make_data(root: &Path) {
    let data = root.join("DATA");
    cityscapes(&data, 3);
    // labelIds instead of trainIds, and a stray 19 (out of range).
    let mut m = scene(64, 32, &[23, 11, 7, 1], 26);
    put(
        &data,
        "gtFine/train/aachen/aachen_000009_000019_gtFine_labelIds.png",
        &png_gray8(64, 32, &m),
    );
    put(
        &data,
        "leftImg8bit/train/aachen/aachen_000009_000019_leftImg8bit.png",
        &png_rgb(64, 32, &vec![1; 64 * 32 * 3]),
    );
    m = scene(64, 32, &[0, 1, 2, 255], 40);
    put(
        &data,
        "gtFine/val/lindau/lindau_000009_000019_gtFine_labelTrainIds.png",
        &png_gray8(64, 32, &m),
    );
    put(
        &data,
        "leftImg8bit/val/lindau/lindau_000009_000019_leftImg8bit.png",
        &png_rgb(64, 32, &vec![1; 64 * 32 * 3]),
    );
    // Arrays: clean, trailing channel dim, void without ignore index is fine here (255 ignored).
    let ids: Vec<u8> = scene(16, 8, &[0, 5, 255], 18);
    put(&data, "arrays/clean.npy", &npy("|u1", &[8, 16], &ids));
    put(
        &data,
        "arrays/channel.npy",
        &npy("|u1", &[1, 8, 16, 1], &ids),
    );
    let long: Vec<u8> = [3i64, 19, 2, -1]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    put(
        &data,
        "arrays/labels.safetensors",
        &safetensors("target", "I64", &[4], &long),
    );
    let mut csv = String::from("path,label\n");
    for i in 0..20 {
        csv += &format!("img{i}.jpg,{}\n", i % 10);
    }
    csv += "img20.jpg,10\n";
    put(root, "labels.csv", csv.as_bytes());
}

/// The labelguard binary at a path every user can run, for the tests that drop to `nobody`:
/// the build's own path may pass through a directory only its owner can enter (a clone under
/// `/root`, or in `mktemp -d`), which `nobody` cannot traverse. A copy in a directory opened
/// to everyone, made once per test binary.
#[cfg(unix)]
pub fn binary_anyone_can_run() -> &'static Path {
    use std::os::unix::fs::PermissionsExt;
    static COPY: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    COPY.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir").keep();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let to = dir.join("labelguard");
        // Copied by `cp`, not by this process: a write descriptor open here would be inherited
        // by a child that another test thread forks meanwhile, and exec of the copy would fail
        // with ETXTBSY ("Text file busy") until that child execs.
        let copied = std::process::Command::new("cp")
            .arg(env!("CARGO_BIN_EXE_labelguard"))
            .arg(&to)
            .status()
            .expect("run cp");
        assert!(copied.success(), "copy the binary");
        std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).unwrap();
        to
    })
}
