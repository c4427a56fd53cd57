//! Outputs that never destroy: what every command does with where its output goes (a full
//! disk, device nodes, FIFOs, symbolic links, read-only files, unwritable directories), that a
//! set of outputs is written whole or not at all, and that input-derived text never reaches the
//! terminal as control characters.
#![cfg(unix)]

mod scan_common;

use labelguard_formats::fixtures::{npy, put};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A dataset with one error (label 5 with 3 classes) and one clean file.
fn dataset(root: &Path) {
    let ids = |v: &[i64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    put(root, "data/bad.npy", &npy("<i8", &[3], &ids(&[0, 1, 5])));
    put(root, "data/good.npy", &npy("<i8", &[3], &ids(&[0, 1, 2])));
}

fn labelguard(cwd: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_labelguard"));
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    cmd
}

fn output(mut cmd: Command) -> Output {
    cmd.output().expect("the binary runs")
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `labelguard ARGS` in `cwd`, as an unprivileged user when the tests run as root, so that
/// permissions apply (root writes read-only files and directories). `cwd` is opened to that
/// user.
fn unprivileged(cwd: &Path, args: &[&str]) -> Command {
    // SAFETY: geteuid has no failure mode.
    if unsafe { libc::geteuid() } != 0 {
        return labelguard(cwd, args);
    }
    std::fs::set_permissions(cwd, std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut cmd = Command::new(scan_common::binary_anyone_can_run());
    cmd.args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .uid(65534)
        .gid(65534);
    cmd
}

/// Every name in `dir` (temporary files included).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn scan_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["scan", "data", "--num-classes", "3", "--no-config", "-q"];
    v.extend_from_slice(extra);
    v
}

#[test]
fn a_failed_write_to_stdout_is_exit_2_with_a_message_for_every_command() {
    let d = tempfile::tempdir().unwrap();
    dataset(d.path());
    put(d.path(), "train.log", b"step 1 loss 0.5\n");
    let o = output(labelguard(d.path(), &scan_args(&["--format", "json"])));
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    std::fs::write(d.path().join("part.json"), &o.stdout).unwrap();
    let calls: [&[&str]; 5] = [
        &scan_args(&[]),
        &["diagnose", "train.log"],
        &["rules"],
        &["rule", "LG101"],
        &["merge", "part.json"],
    ];
    for args in calls {
        let mut cmd = labelguard(d.path(), args);
        cmd.stdout(std::fs::File::create("/dev/full").unwrap());
        let o = output(cmd);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", err(&o));
        assert!(
            err(&o).contains("stdout: cannot write") && err(&o).contains("No space left"),
            "{args:?}: {}",
            err(&o)
        );
    }
    // A reader that stops reading (`| head`) is not a failure.
    let mut cmd = labelguard(d.path(), &["rules"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(err(&o).is_empty(), "{}", err(&o));
}

#[test]
fn device_nodes_fifos_and_links_are_refused_and_left_as_they_are() {
    let d = tempfile::tempdir().unwrap();
    dataset(d.path());
    let o = output(labelguard(d.path(), &scan_args(&["-o", "/dev/full"])));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("/dev/full: is a device node"),
        "{}",
        err(&o)
    );
    let md = std::fs::symlink_metadata("/dev/full").unwrap();
    assert!(
        md.file_type().is_char_device(),
        "/dev/full is still a device"
    );

    let fifo = d.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let o = output(labelguard(d.path(), &scan_args(&["--html", "pipe"])));
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("pipe: is a FIFO"), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());

    std::fs::write(d.path().join("target.txt"), "keep").unwrap();
    std::os::unix::fs::symlink("target.txt", d.path().join("link")).unwrap();
    let o = output(labelguard(d.path(), &scan_args(&["-o", "link"])));
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("link: is a symbolic link"), "{}", err(&o));
    assert_eq!(
        std::fs::read_to_string(d.path().join("target.txt")).unwrap(),
        "keep"
    );
    assert!(!d.path().join("data/report").exists());
    assert_eq!(names(d.path()), ["data", "link", "pipe", "target.txt"]);
}

#[test]
fn write_through_follows_links_and_feeds_fifos_on_request() {
    let d = tempfile::tempdir().unwrap();
    dataset(d.path());
    std::fs::write(d.path().join("target.txt"), "old").unwrap();
    std::os::unix::fs::symlink("target.txt", d.path().join("link")).unwrap();
    let o = output(labelguard(
        d.path(),
        &scan_args(&["-o", "link", "--write-through"]),
    ));
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let md = std::fs::symlink_metadata(d.path().join("link")).unwrap();
    assert!(md.file_type().is_symlink(), "the link stays a link");
    let text = std::fs::read_to_string(d.path().join("target.txt")).unwrap();
    assert!(text.contains("1 error"), "{text}");

    let fifo = d.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let reader = std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap());
    let o = output(labelguard(
        d.path(),
        &scan_args(&["-o", "pipe", "--write-through"]),
    ));
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(reader.join().unwrap().contains("1 error"));

    // `-o -` is stdout.
    let o = output(labelguard(d.path(), &scan_args(&["-o", "-"])));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 error"));
}

#[test]
fn read_only_files_are_refused_and_kept_modes_are_kept() {
    let d = tempfile::tempdir().unwrap();
    dataset(d.path());
    let ro = d.path().join("ro.txt");
    std::fs::write(&ro, "old").unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
    let o = output(unprivileged(d.path(), &scan_args(&["-o", "ro.txt"])));
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("ro.txt: cannot write"), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), "old");
    let mode = std::fs::metadata(&ro).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o444);

    // A writable file is replaced, and keeps its mode.
    let kept = d.path().join("kept.txt");
    std::fs::write(&kept, "old").unwrap();
    std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o640)).unwrap();
    let o = output(labelguard(d.path(), &scan_args(&["-o", "kept.txt"])));
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(std::fs::read_to_string(&kept).unwrap().contains("1 error"));
    let mode = std::fs::metadata(&kept).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

#[test]
fn a_set_of_outputs_is_written_whole_or_not_at_all() {
    let d = tempfile::tempdir().unwrap();
    dataset(d.path());
    let locked = d.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::write(d.path().join("old.json"), "old").unwrap();

    // An unwritable directory for --html: no -o report, the old one unchanged.
    for (flag, path) in [
        ("--html", "locked/r.html"),
        ("--write-weights", "locked/w.py"),
    ] {
        let o = output(unprivileged(
            d.path(),
            &scan_args(&["-o", "new.txt", "--format", "json", flag, path]),
        ));
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", err(&o));
        assert!(err(&o).contains("locked"), "{}", err(&o));
        let cmd = unprivileged(d.path(), &scan_args(&["-o", "old.json", flag, path]));
        assert_eq!(output(cmd).status.code(), Some(2));
    }
    // Weights that cannot be computed (no --num-classes): the report is not written either.
    let o = output(labelguard(
        d.path(),
        &[
            "scan",
            "data",
            "--no-config",
            "-o",
            "new.txt",
            "--write-weights",
            "w.json",
        ],
    ));
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("no class weights"), "{}", err(&o));
    // A full disk for the report on stdout: the files of the set are not written.
    let mut cmd = labelguard(d.path(), &scan_args(&["--html", "r.html"]));
    cmd.stdout(std::fs::File::create("/dev/full").unwrap());
    assert_eq!(output(cmd).status.code(), Some(2));

    assert_eq!(
        std::fs::read_to_string(d.path().join("old.json")).unwrap(),
        "old"
    );
    assert_eq!(
        names(d.path()),
        ["data", "locked", "old.json"],
        "no partial or temporary file"
    );
    assert!(names(&locked).is_empty());

    // With every path writable, all of them are written.
    let o = output(labelguard(
        d.path(),
        &scan_args(&[
            "-o",
            "new.txt",
            "--html",
            "r.html",
            "--write-weights",
            "w.py",
        ]),
    ));
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert_eq!(
        names(d.path()),
        ["data", "locked", "new.txt", "old.json", "r.html", "w.py"]
    );
}

#[test]
fn control_characters_in_names_never_reach_the_terminal() {
    let d = tempfile::tempdir().unwrap();
    dataset(d.path());
    let evil = "clear\x1b[2J\x1b]0;title\x07\nFORGED LINE\u{9b}31m.npy";
    std::fs::copy(
        d.path().join("data/bad.npy"),
        d.path().join("data").join(evil),
    )
    .unwrap();
    for (format, color) in [("text", "never"), ("text", "always"), ("github", "never")] {
        let o = output(labelguard(
            d.path(),
            &[
                "scan",
                "data",
                "--num-classes",
                "3",
                "--no-config",
                "--format",
                format,
                "--color",
                color,
            ],
        ));
        assert_eq!(o.status.code(), Some(1), "{}", err(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("clear\\x1b[2J\\x1b]0;title\\x07\\nFORGED LINE\\u{9b}31m.npy"),
            "{out}"
        );
        assert!(!out.lines().any(|l| l.starts_with("FORGED")), "{out}");
        assert!(!out.contains('\u{9b}') && !out.contains('\x07'), "{out}");
        if color == "never" {
            assert!(!out.contains('\x1b'), "{format}: {out}");
        } else {
            // Only our own colour codes: every ESC starts a CSI colour sequence.
            for (i, _) in out.match_indices('\x1b') {
                let rest = &out[i + 1..];
                assert!(rest.starts_with('['), "{rest:.20}");
                let end = rest.find('m').expect("a colour code");
                assert!(rest[1..end].chars().all(|c| c.is_ascii_digit() || c == ';'));
            }
        }
    }
    // A log whose name holds control characters: diagnose's text and its error messages.
    let log = d.path().join("run\x1b[2J.log");
    std::fs::write(
        &log,
        "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\n",
    )
    .unwrap();
    let o = output(labelguard(d.path(), &["diagnose", log.to_str().unwrap()]));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("run\\x1b[2J.log"), "{out}");
    assert!(!out.contains('\x1b'), "{out}");
    let o = output(labelguard(d.path(), &["diagnose", "missing\x1b[2J.log"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("missing\\x1b[2J.log") && !err(&o).contains('\x1b'));
}

#[test]
fn a_fifo_named_by_a_setting_is_refused_not_waited_on() {
    let d = tempfile::tempdir().unwrap();
    dataset(d.path());
    let fifo = d.path().join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    // A plain open(2) of a FIFO waits for a writer forever: each of these returned only when
    // the settings files were opened without blocking.
    for flag in ["--palette", "--classes", "--config"] {
        let mut args = scan_args(&[flag, "pipe"]);
        args.retain(|a| *a != "--no-config" || flag != "--config");
        let o = output(labelguard(d.path(), &args));
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", err(&o));
        assert!(
            err(&o).contains("not a regular file"),
            "{flag}: {}",
            err(&o)
        );
    }
}
