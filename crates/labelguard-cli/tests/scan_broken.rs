//! The corpus of broken inputs: every file yields a finding with the right rule, and the scan
//! finishes (within the helper's deadline) with exit code 1, never 2, never a hang.
//! Unix only: the corpus holds FIFOs, symlinks, unreadable files and non-UTF-8 names.
#![cfg(unix)]

mod scan_common;
use scan_common::*;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, PermissionsExt};

#[test]
fn each_broken_file_is_a_finding_and_the_scan_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("corpus");
    let good = png_gray8(32, 16, &scene(32, 16, &[0, 1, 2], 3));
    put(&c, "good.png", &good);
    put(&c, "truncated.png", &good[..good.len() / 2]);
    put(&c, "zero.png", b"");
    put(
        &c,
        "wrong_magic.png",
        b"this is not a PNG at all, just text\n",
    );
    put(
        &c,
        "jpeg_mask.png",
        &[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F', 0],
    );
    put(&c, "bomb.png", &png_bomb(100_000, 100_000));
    put(&c, "no_plte.png", &png_without_plte(8, 8, &[1; 64]));
    // Damage the checksum of the last IDAT chunk (just before the 12-byte IEND chunk).
    let mut crc = good.clone();
    let at = crc.len() - 13;
    crc[at] ^= 0x55;
    put(&c, "bad_crc.png", &crc);
    put(&c, "tiff_cut.tif", &tiff_gray8(64, 64, &[1; 4096])[..200]);
    put(&c, "short.npy", &npy("|u1", &[100, 100], &[0; 10]));
    put(&c, "broken.npz", b"PK\x03\x04 not really a zip");
    put(
        &c,
        "header.safetensors",
        b"\x10\x00\x00\x00\x00\x00\x00\x00{not json!!!!!}",
    );
    put(&c, "ragged.csv", b"path,label\na,1\nb\n");
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
        ("truncated.png", "LG602", "truncated"),
        ("zero.png", "LG603", "empty"),
        ("wrong_magic.png", "LG602", "wrong magic"),
        ("jpeg_mask.png", "LG602", "JPEG"),
        ("bomb.png", "LG604", "100000x100000"),
        ("no_plte.png", "LG602", "PLTE"),
        ("bad_crc.png", "LG602", "CRC"),
        ("tiff_cut.tif", "LG602", ""),
        ("short.npy", "LG602", ""),
        ("broken.npz", "LG602", ""),
        ("header.safetensors", "LG602", ""),
        ("ragged.csv", "LG602", "fields"),
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

#[test]
fn a_bomb_is_refused_before_any_allocation_and_the_limit_is_configurable() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "m/big.png", &png_bomb(70_000, 70_000));
    put(dir.path(), "m/ok.png", &png_gray8(64, 64, &[1; 4096]));
    let start = std::time::Instant::now();
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "m",
            "--num-classes",
            "2",
            "--no-config",
            "--format",
            "json",
        ],
    );
    assert!(start.elapsed().as_secs() < 20);
    let r = json(&o);
    assert_eq!(findings_of(&r, "big.png")[0]["code"], "LG604");
    // A 4096-pixel limit refuses the 64x64 mask too, from its header.
    let o = run_in(
        dir.path(),
        &[
            "scan",
            "m",
            "--num-classes",
            "2",
            "--no-config",
            "--format",
            "json",
            "--max-pixels",
            "4095",
        ],
    );
    assert_eq!(findings_of(&json(&o), "ok.png")[0]["code"], "LG604");
}
