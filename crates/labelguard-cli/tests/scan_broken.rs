//! The broken entries a checkout cannot hold (FIFOs, symlinks, unreadable files, non-UTF-8
//! names): every one yields a finding with the right rule, and the scan finishes (within the
//! helper's deadline) with exit code 1, never 2, never a hang. Broken file contents and the
//! decompression bomb are cases: tests/cmd/scan/broken_*.trycmd.
#![cfg(unix)]

mod scan_common;
use scan_common::*;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};

#[test]
fn each_unreadable_entry_is_a_finding_and_the_scan_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("corpus");
    let good = png_gray8(32, 16, &scene(32, 16, &[0, 1, 2], 3));
    put(&c, "good.png", &good);
    // A name that is not UTF-8 (a valid mask otherwise).
    std::fs::write(c.join(std::ffi::OsStr::from_bytes(b"caf\xe9.png")), &good).unwrap();
    // Unreadable: a dangling symlink and a symlink to itself; a chmod 000 file (root reads it).
    symlink(c.join("gone.png"), c.join("dangling.png")).unwrap();
    symlink("selfloop.png", c.join("selfloop.png")).unwrap();
    put(&c, "locked.png", &good);
    std::fs::set_permissions(c.join("locked.png"), std::fs::Permissions::from_mode(0o000)).unwrap();
    // A directory symlink loop and a FIFO.
    std::fs::create_dir(c.join("sub")).unwrap();
    symlink("..", c.join("sub/loop")).unwrap();
    let st = std::process::Command::new("mkfifo")
        .arg(c.join("pipe.png"))
        .status()
        .unwrap();
    assert!(st.success(), "mkfifo");

    let o = run_in(
        dir.path(),
        &[
            "scan",
            "corpus",
            "--num-classes",
            "19",
            "--ignore-index",
            "255",
            "--no-config",
            "--format",
            "json",
        ],
    );
    assert_eq!(code(&o), 1, "stderr: {}", stderr(&o));
    let r = json(&o);
    let expect = [
        ("caf\u{fffd}.png", "LG614", "UTF-8"),
        ("dangling.png", "LG601", "symlink"),
        ("selfloop.png", "LG601", "loop"),
        ("sub/loop", "LG601", "symlink loop"),
        ("pipe.png", "LG601", "FIFO"),
    ];
    for (file, code, words) in expect {
        let f = findings_of(&r, &format!("corpus/{file}"));
        assert!(
            f.iter().any(|x| x["code"] == code
                && x["message"]
                    .as_str()
                    .unwrap()
                    .to_lowercase()
                    .contains(&words.to_lowercase())),
            "{file}: expected {code} mentioning '{words}', got {f:?}"
        );
    }
    assert!(findings_of(&r, "corpus/good.png").is_empty());
    let locked = findings_of(&r, "corpus/locked.png");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc_geteuid() } == 0 {
        assert!(locked.is_empty(), "root reads a chmod 000 file: {locked:?}");
    } else {
        assert_eq!(locked[0]["code"], "LG601");
        assert!(locked[0]["fix"].as_str().unwrap().contains("chmod"));
    }
    // Every non-UTF-8 path is still reported, and the report is valid JSON (no raw bytes).
    assert_eq!(r["summary"]["status"], "errors");
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}
