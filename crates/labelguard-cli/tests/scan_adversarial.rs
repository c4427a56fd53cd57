//! Adversarial scans (issue 8) of what a checkout cannot hold: a sparse multi-gigabyte array,
//! hostile trees (deep, odd names, unreadable to a normal user, changing under the scan). Every
//! input is hashed before and after: nothing is ever changed. The inputs that once crashed and
//! the safety net for panics are cases: tests/cmd/scan/adversarial_*.
//! Unix only: the hostile trees are made of FIFOs, permissions, `nobody` and non-UTF-8 names.
#![cfg(unix)]

mod scan_common;
use scan_common::*;
use std::hash::{Hash, Hasher};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Path, size, mode, mtime and a hash of the contents of every entry under `dir` (symlinks
/// and FIFOs are not followed or opened). Files over 64 MiB (the sparse ones) hash their
/// first and last MiB; paths beyond PATH_MAX (the deep tree) are not opened.
fn snapshot(dir: &Path) -> Vec<(PathBuf, u64, u32, i64, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.as_os_str().len() > 3500 {
                continue;
            }
            let m = std::fs::symlink_metadata(&p).unwrap();
            let mut h = std::collections::hash_map::DefaultHasher::new();
            if m.is_dir() {
                stack.push(p.clone());
            } else if m.is_file() {
                hash_contents(&p, m.len(), &mut h);
            }
            out.push((p, m.len(), m.mode(), m.mtime(), h.finish()));
        }
    }
    out.sort();
    out
}

fn hash_contents(p: &Path, len: u64, h: &mut impl Hasher) {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(p) else {
        return; // unreadable to this user: size, mode and mtime still compared
    };
    let mut buf = vec![0u8; 1 << 20];
    let mut read_at = |f: &mut std::fs::File, at: u64, h: &mut dyn Hasher| {
        f.seek(SeekFrom::Start(at)).unwrap();
        let n = f.read(&mut buf).unwrap();
        h.write(&buf[..n]);
    };
    if len > 64 << 20 {
        read_at(&mut f, 0, h);
        read_at(&mut f, len - (1 << 20), h);
    } else {
        std::fs::read(p).unwrap().hash(h);
    }
}

fn scan_json(cwd: &Path, extra: &[&str]) -> (i32, serde_json::Value) {
    let mut args = vec!["scan", "d", "--no-config", "--format", "json"];
    args.extend_from_slice(extra);
    let o = run_in(cwd, &args);
    (code(&o), json(&o))
}

fn has(report: &serde_json::Value, file: &str, rule: &str, words: &str) -> bool {
    findings_of(report, &format!("d/{file}")).iter().any(|x| {
        x["code"] == rule
            && x["message"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains(&words.to_lowercase())
    })
}

/// A sparse 4 GiB `.npy` whose header claims what it holds: refused from the header, quickly,
/// without reading (or mapping) the 4 GiB.
#[test]
fn a_sparse_multi_gigabyte_array_is_refused_from_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    let head = npy("|u1", &[1 << 32], &[]);
    put(&d, "sparse.npy", &head);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(d.join("sparse.npy"))
        .unwrap();
    f.set_len(head.len() as u64 + (1 << 32)).unwrap();
    let before = snapshot(&d);
    let (c, r) = scan_json(dir.path(), &["--num-classes", "3"]);
    assert_eq!(c, 1);
    assert!(has(&r, "sparse.npy", "LG604", "over the size limit"), "{r}");
    assert_eq!(before, snapshot(&d));
}

/// 1,200 directories deep (beyond PATH_MAX), names with a newline, a leading dash, invalid UTF-8 and an ESC:
/// every mask is reported under its name and the scan finishes.
#[test]
fn deep_trees_and_odd_names_are_scanned() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    let mask = png_gray8(8, 8, &[7; 64]);
    put(&d, "-rf.png", &mask);
    put(&d, "new\nline.png", &mask);
    put(&d, "esc\x1b[2J.png", &mask);
    std::fs::write(d.join(std::ffi::OsStr::from_bytes(b"bad\xff.png")), &mask).unwrap();
    put(&d, "src.png", &mask);
    // Beyond PATH_MAX: built 100 directories at a time from inside.
    let st = Command::new("bash")
        .arg("-c")
        .arg("set -P; cd d && src=$PWD/src.png && c=$(printf 'n/%.0s' $(seq 100)) && for i in $(seq 12); do mkdir -p $c && cd $c || exit 1; done && cp \"$src\" deep.png")
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(st.success());
    let before = snapshot(&d);
    let (c, r) = scan_json(dir.path(), &["--num-classes", "3"]);
    assert_eq!(c, 1, "7 is out of range for 3 classes");
    for name in [
        "-rf.png",
        "new\nline.png",
        "esc\x1b[2J.png",
        "bad\u{fffd}.png",
    ] {
        assert!(has(&r, name, "LG101", ""), "{name:?} missing from {r}");
    }
    assert_eq!(before, snapshot(&d));
}

/// As a normal user (nobody), unreadable files and directories are LG601 findings.
#[test]
fn unreadable_files_and_directories_as_a_normal_user() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let d = dir.path().join("d");
    let mask = png_gray8(8, 8, &[1; 64]);
    put(&d, "ok.png", &mask);
    put(&d, "locked.png", &mask);
    put(&d, "closed/inside.png", &mask);
    std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(d.join("locked.png"), std::fs::Permissions::from_mode(0o000)).unwrap();
    std::fs::set_permissions(d.join("closed"), std::fs::Permissions::from_mode(0o000)).unwrap();
    let before = snapshot(&d);
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { geteuid() } == 0;
    let mut cmd = if root {
        // Drop to nobody for the run: root reads chmod 000 files, a user does not.
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(binary_anyone_can_run());
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_labelguard"))
    };
    cmd.env("HOME", dir.path());
    let o = run_cmd(
        cmd,
        dir.path(),
        &[
            "scan",
            "d",
            "--no-config",
            "--format",
            "json",
            "--num-classes",
            "3",
        ],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let r = json(&o);
    assert!(has(&r, "locked.png", "LG601", ""), "{r}");
    let closed = findings_of(&r, "d/closed");
    assert!(closed.iter().any(|f| f["code"] == "LG601"), "{r}");
    assert!(findings_of(&r, "d/ok.png").is_empty());
    assert_eq!(before, snapshot(&d));
}

extern "C" {
    fn geteuid() -> u32;
}

/// Files deleted, replaced, truncated (arrays included: no SIGBUS) while the scan runs.
#[test]
fn files_that_change_during_the_scan_never_crash_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d");
    let mask = png_gray8(64, 64, &[1; 4096]);
    let arr = npy("|u1", &[256, 256], &[1; 65536]);
    for i in 0..1500 {
        put(&d, &format!("m{i}.png"), &mask);
        put(&d, &format!("a{i}.npy"), &arr);
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mutator = {
        let (d, stop) = (d.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut i = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let k = i % 1500;
                match i % 4 {
                    0 => drop(std::fs::remove_file(d.join(format!("m{k}.png")))),
                    1 => drop(std::fs::write(d.join(format!("m{k}.png")), b"replaced")),
                    2 => {
                        if let Ok(f) = std::fs::OpenOptions::new()
                            .write(true)
                            .open(d.join(format!("a{k}.npy")))
                        {
                            let _ = f.set_len(100);
                        }
                    }
                    _ => drop(std::fs::remove_file(d.join(format!("a{k}.npy")))),
                }
                i += 1;
            }
        })
    };
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "d",
            "--no-config",
            "--format",
            "json",
            "--num-classes",
            "3",
        ],
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    mutator.join().unwrap();
    // Exited normally (no SIGBUS, no panic) with a report.
    assert!(matches!(code(&o), 0 | 1), "{:?} {}", o.status, stderr(&o));
    let r = json(&o);
    assert!(r["files"].is_array());
}
