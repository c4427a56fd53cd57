//! `labelguard run` with real child processes: exit codes, byte-exact unbuffered pass-through,
//! signals to the child's process group, the sitecustomize, --sync, --rerun-sync, and the
//! diagnosis of a failing child.
#![cfg(unix)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    std::fs::canonicalize(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// The Python of the tests: $LABELGUARD_PYTHON, else the project's .venv, else python3.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("LABELGUARD_PYTHON") {
        return p.into();
    }
    let venv = repo().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

fn run_cmd(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_labelguard"));
    c.arg("run")
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("PYTHONPATH");
    c
}

fn py(code: &str) -> Vec<String> {
    vec![python().display().to_string(), "-c".into(), code.into()]
}

fn output(args: &[&str], cmd: &[String]) -> Output {
    let mut c = run_cmd(args);
    c.arg("--").args(cmd);
    c.stdin(Stdio::null()).output().expect("labelguard runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_exit_code_is_the_childs() {
    let o = output(&["--no-guard"], &py("import sys; sys.exit(7)"));
    assert_eq!(o.status.code(), Some(7));
    let o = output(
        &["--no-guard"],
        &["sh".into(), "-c".into(), "exit 0".into()],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stdout.is_empty() && o.stderr.is_empty(),
        "nothing added on success"
    );
    // Killed by a signal: 128 + the signal, as a shell reports it.
    let o = output(
        &["--no-guard"],
        &["sh".into(), "-c".into(), "kill -KILL $$".into()],
    );
    assert_eq!(o.status.code(), Some(128 + 9));
}

#[test]
fn a_command_that_cannot_start_is_a_usage_error() {
    let o = output(&[], &["/nonexistent/python".into()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("/nonexistent/python"));
}

#[test]
fn stdin_stdout_and_stderr_pass_through_byte_for_byte() {
    // Colour codes, carriage returns of progress bars, invalid UTF-8, no final newline.
    let code = r#"
import os, sys
data = sys.stdin.buffer.read()
os.write(1, b"\x1b[32mok\x1b[0m 10%\r 50%\r100%\n" + data)
os.write(2, b"\xff\xfe raw \x1b[1;31mred\x1b[0m\r\n no newline at the end")
"#;
    let mut c = run_cmd(&["--no-guard"]);
    c.arg("--").args(py(code));
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    let mut stdin = child.stdin.take().unwrap();
    let feed = input.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&feed));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let mut want = b"\x1b[32mok\x1b[0m 10%\r 50%\r100%\n".to_vec();
    want.extend_from_slice(&input);
    assert_eq!(o.stdout, want);
    assert_eq!(
        o.stderr,
        b"\xff\xfe raw \x1b[1;31mred\x1b[0m\r\n no newline at the end"
    );
}

/// Reads a pipe on a thread and hands over the bytes as they come.
fn reader(mut r: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits until the bytes read so far contain `want`.
fn wait_for(rx: &mpsc::Receiver<Vec<u8>>, seen: &mut Vec<u8>, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !text(seen).contains(want) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(b) => seen.extend(b),
            Err(_) => panic!("waited for {want:?}, got {:?}", text(seen)),
        }
    }
}

fn finish(mut child: Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("labelguard run did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn partial_lines_arrive_without_waiting_for_a_newline() {
    // The child prints a prompt without a newline and waits for input: if labelguard held the
    // partial line back, this would deadlock.
    let code = r#"
import sys
sys.stdout.write("ready> "); sys.stdout.flush()
sys.stderr.write("progress 1/2\r"); sys.stderr.flush()
line = sys.stdin.readline()
sys.stdout.write("got " + line); sys.stdout.flush()
"#;
    let mut c = run_cmd(&["--no-guard"]);
    c.arg("--").args(py(code));
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = reader(child.stdout.take().unwrap());
    let err = reader(child.stderr.take().unwrap());
    let (mut seen, mut seen_err) = (Vec::new(), Vec::new());
    wait_for(&out, &mut seen, "ready> ");
    wait_for(&err, &mut seen_err, "progress 1/2\r");
    child.stdin.take().unwrap().write_all(b"go\n").unwrap();
    wait_for(&out, &mut seen, "got go\n");
    assert_eq!(text(&seen), "ready> got go\n");
    assert!(finish(child).success());
}

fn signal(pid: u32, sig: &str) {
    let s = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(s.success());
}

/// A child that reports signals, with a grandchild in the same process group that does too.
const SIGNALLED: &str = r#"
import os, signal, subprocess, sys, time
marker = sys.argv[1]
grandchild = subprocess.Popen([sys.executable, "-c", """
import signal, sys, time
def on(sig, frame):
    open(sys.argv[1], "w").write("grandchild got %d" % sig)
    sys.exit(0)
signal.signal(signal.SIGTERM, on)
open(sys.argv[1] + ".ready", "w").close()
time.sleep(60)
""", marker])
while not os.path.exists(marker + ".ready"):
    time.sleep(0.01)
def on(sig, frame):
    grandchild.wait()
    print("child got", sig, flush=True)
    sys.exit(42)
signal.signal(signal.SIGTERM, on)
print("ready", flush=True)
time.sleep(60)
"#;

#[test]
fn sigterm_goes_to_the_childs_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("grandchild");
    let mut c = run_cmd(&["--no-guard"]);
    c.arg("--").args(py(SIGNALLED)).arg(&marker);
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = reader(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    wait_for(&out, &mut seen, "ready\n");
    signal(child.id(), "-TERM");
    let status = finish(child);
    wait_for(&out, &mut seen, "child got 15\n");
    assert_eq!(
        status.code(),
        Some(42),
        "the child's exit code after the signal"
    );
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "grandchild got 15"
    );
}

#[test]
fn sigint_reaches_the_child_and_labelguard_reports_how_it_ended() {
    let code = "import time\nprint('ready', flush=True)\ntime.sleep(60)\n";
    let mut c = run_cmd(&["--no-guard"]);
    c.arg("--").args(py(code));
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = reader(child.stdout.take().unwrap());
    let err = reader(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    wait_for(&out, &mut seen, "ready\n");
    signal(child.id(), "-INT");
    let status = finish(child);
    // Python turns SIGINT into KeyboardInterrupt and then dies of SIGINT: 128 + 2.
    assert_eq!(status.code(), Some(130));
    let mut seen_err = Vec::new();
    wait_for(&err, &mut seen_err, "KeyboardInterrupt");
}

#[test]
fn at_a_terminal_the_child_reads_stdin_and_gets_ctrl_c() {
    // A pseudo-terminal: labelguard hands the terminal's foreground to the child's process
    // group, so the child can read the terminal (`input()`, `breakpoint()`) and Ctrl-C reaches
    // it directly; labelguard survives it and exits with the child's status.
    let driver = repo().join("tests/fixtures/run/terminal_driver.py");
    let o = Command::new(python())
        .arg(&driver)
        .arg(env!("CARGO_BIN_EXE_labelguard"))
        .arg(python())
        .env_remove("PYTHONPATH")
        .output()
        .unwrap();
    assert_eq!(text(&o.stdout), "exit 130\n", "{}", text(&o.stderr));
}

#[test]
fn a_failing_child_gets_its_output_diagnosed() {
    let script = repo().join("tests/fixtures/run/device_assert_log.py");
    let o = output(
        &["--no-guard"],
        &[python().display().to_string(), script.display().to_string()],
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout), "epoch 0 step 10 loss 2.3026\n");
    let err = text(&o.stderr);
    // The child's own stderr comes first, unchanged.
    assert!(err.starts_with("../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"), "{err}");
    let (_, diagnosis) = err
        .split_once("labelguard run: the command failed (exit status 1)")
        .expect(&err);
    assert!(
        diagnosis.contains("error[LG101] class-id-out-of-range"),
        "{diagnosis}"
    );
    assert!(diagnosis.contains("on 4 GPU threads"), "{diagnosis}");
    assert!(diagnosis.contains("warning[LG902]"), "{diagnosis}");
    assert!(
        diagnosis.contains(&format!(
            "your code: {}:44 in <module>: print(loss.item()) (reported here",
            script.display()
        )),
        "{diagnosis}"
    );
    assert!(
        diagnosis.contains("stderr:1 ../aten/src/ATen/native/cuda/Loss.cu:250"),
        "{diagnosis}"
    );
}

#[test]
fn rerun_sync_runs_once_more_with_cuda_launch_blocking_and_finds_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("runs");
    let script = repo().join("tests/fixtures/run/device_assert_log.py");
    let mut c = run_cmd(&["--no-guard", "--rerun-sync"]);
    c.env("COUNT_FILE", &count)
        .arg("--")
        .arg(python())
        .arg(&script);
    let o = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(&count).unwrap(),
        "run\nrun\n",
        "ran twice"
    );
    let err = text(&o.stderr);
    assert!(
        err.contains("running the command again with CUDA_LAUNCH_BLOCKING=1"),
        "{err}"
    );
    let (_, diagnosis) = err
        .split_once("labelguard run: the run with --sync failed")
        .expect(&err);
    assert!(diagnosis.contains("error[LG101]"), "{diagnosis}");
    assert!(diagnosis.contains("op: cross_entropy"), "{diagnosis}");
    // The synchronous traceback is trusted: the user's line is where it failed.
    assert!(
        diagnosis.contains(&format!(
            "your code: {}:40 in <module>: loss = F.cross_entropy(logits, labels)\n",
            script.display()
        )),
        "{diagnosis}"
    );
    assert!(!diagnosis.contains("LG902"), "{diagnosis}");
}

#[test]
fn rerun_sync_does_not_rerun_when_the_line_can_be_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("runs");
    let script = repo().join("tests/fixtures/run/device_assert_log.py");
    let mut c = run_cmd(&["--no-guard", "--rerun-sync"]);
    c.env("COUNT_FILE", &count).env("CUDA_LAUNCH_BLOCKING", "1");
    c.env("TORCH_SHOW_CPP_STACKTRACES", "1")
        .env("PYTORCH_USE_CUDA_DSA", "1");
    c.arg("--").arg(python()).arg(&script);
    let o = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "run\n");
}

#[test]
fn sync_sets_the_variables_before_the_child_starts() {
    let code = "import os\nprint(*(os.environ.get(k) for k in ('CUDA_LAUNCH_BLOCKING', 'TORCH_SHOW_CPP_STACKTRACES', 'PYTORCH_USE_CUDA_DSA', 'TORCH_COMPILE_DISABLE')))";
    let o = output(&["--no-guard", "--sync"], &py(code));
    assert_eq!(text(&o.stdout), "1 1 1 1\n");
    let o = output(&["--no-guard"], &py(code));
    assert_eq!(text(&o.stdout), "None None None None\n");
}

fn write(dir: &Path, name: &str, body: &str) {
    std::fs::write(dir.join(name), body).unwrap();
}

/// A stand-in labelguard package that reports what the sitecustomize calls (and has checked
/// 3 calls, for the closing summary).
const FAKE_LABELGUARD: &str = r#"
import sys, types
sys.modules["labelguard._guard"] = types.SimpleNamespace(checked=lambda: 3)
def enable():
    assert "torch" in sys.modules
    sys.stderr.write("enable called\n")
class capture:
    def __init__(self, directory):
        self.directory = directory
    def __exit__(self, kind, exc, tb):
        sys.stderr.write("capture %s %s\n" % (self.directory, exc))
        return False
"#;

/// A stand-in `torch` module: importing it is what switches the guards on.
const FAKE_TORCH: &str = "import sys\nsys.stderr.write('torch imported\\n')\n__version__ = '9.9'\n";
/// What the sitecustomize says when the guards are on, and the closing summary.
const ON: &str =
    "labelguard run: the guards are on (torch 9.9): each guarded call is checked before it runs\n";
const CHECKED: &str = "labelguard run: the guards checked 3 calls (torch 9.9)\n";

#[test]
fn the_sitecustomize_chains_and_says_once_when_the_guards_are_off() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("user");
    let broken = dir.path().join("broken");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::create_dir_all(&broken).unwrap();
    write(
        &user,
        "sitecustomize.py",
        "import sys\nsys.stderr.write('user sitecustomize ran\\n')\nMARK = 42\n",
    );
    write(
        &broken,
        "labelguard.py",
        "raise ImportError('built for another Python')\n",
    );
    write(&broken, "torch.py", FAKE_TORCH);
    // The grandchild imports torch too: it must not repeat the warning.
    let code = "import subprocess, sys, sitecustomize\nimport torch\nprint('main ran', sitecustomize.MARK)\nsubprocess.run([sys.executable, '-c', 'import torch'])";
    let mut c = run_cmd(&[]);
    c.env(
        "PYTHONPATH",
        format!("{}:{}", user.display(), broken.display()),
    );
    c.arg("--").args(py(code));
    let o = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "main ran 42\n");
    let err = text(&o.stderr);
    let off = format!(
        "labelguard run: the Python guards are off: `import labelguard` failed in {} (ImportError: built for another Python); install the labelguard package into this environment to switch them on\n",
        python().display()
    );
    assert_eq!(
        err,
        format!(
            "user sitecustomize ran\ntorch imported\n{off}user sitecustomize ran\ntorch imported\n"
        )
    );
}

#[test]
fn python_without_torch_is_left_alone() {
    // No `import torch`: labelguard is not even imported, so a broken install says nothing.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "labelguard.py",
        "raise ImportError('must not be imported')\n",
    );
    let mut c = run_cmd(&[]);
    c.env("PYTHONPATH", dir.path())
        .arg("--")
        .args(py("import json; print('plain')"));
    let o = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(text(&o.stdout), "plain\n");
    assert_eq!(text(&o.stderr), "");
}

#[test]
fn the_guards_are_enabled_after_import_torch_and_capture_saves_uncaught_errors() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    write(&fake, "torch.py", FAKE_TORCH);
    write(&fake, "labelguard.py", FAKE_LABELGUARD);
    let batches = dir.path().join("batches");
    let run = |flags: &[&str], code: &str| {
        let mut c = run_cmd(flags);
        c.env("PYTHONPATH", &fake).arg("--").args(py(code));
        let o = c.stdin(Stdio::null()).output().unwrap();
        assert_eq!(text(&o.stdout), "main\n");
        text(&o.stderr)
    };
    let ok = "import torch\nprint('main')";
    let fails = "import torch\nprint('main')\nraise ValueError('bad batch')";
    assert_eq!(
        run(&[], ok),
        format!("torch imported\nenable called\n{ON}{CHECKED}")
    );
    assert_eq!(run(&["--no-guard"], ok), "torch imported\n");
    let capture = batches.display().to_string();
    let err = run(&["--capture", &capture], fails);
    assert!(batches.is_dir(), "--capture creates the directory");
    assert!(
        err.starts_with(&format!(
            "torch imported\nenable called\n{ON}capture {capture} bad batch\nTraceback"
        )) && err.contains(CHECKED),
        "{err}"
    );
    let err = run(&["--no-guard", "--capture", &capture], fails);
    assert!(
        err.starts_with(&format!("torch imported\ncapture {capture} bad batch\n")),
        "{err}"
    );
}

/// Runs `code` under `labelguard run` with the stand-in torch and labelguard first on
/// PYTHONPATH (and `labelguard` as given); returns (stdout, stderr).
fn with_fakes(labelguard: &str, code: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "torch.py", FAKE_TORCH);
    write(dir.path(), "labelguard.py", labelguard);
    let mut c = run_cmd(&[]);
    c.env("PYTHONPATH", dir.path())
        .current_dir(dir.path())
        .arg("--")
        .args(py(code));
    let o = c.stdin(Stdio::null()).output().unwrap();
    (text(&o.stdout), text(&o.stderr))
}

/// Issue 42: transformers, datasets and accelerate probe `importlib.util.find_spec("torch")`
/// before anything imports it; the guards must still engage at the real import, whatever route
/// it takes, and say so once.
#[test]
fn the_guards_engage_after_find_spec_probes_and_any_import_route() {
    let want = format!("torch imported\nenable called\n{ON}{CHECKED}");
    for code in [
        "import importlib.util\nassert importlib.util.find_spec('torch')\nassert importlib.util.find_spec('torch')\nimport torch",
        "import importlib\nimportlib.import_module('torch')",
        "__import__('torch')",
        "import runpy, sys, os\nopen('m.py', 'w').write('import torch')\nsys.path.insert(0, os.getcwd())\nrunpy.run_module('m')",
    ] {
        let (out, err) = with_fakes(FAKE_LABELGUARD, code);
        assert_eq!((out.as_str(), err.as_str()), ("", want.as_str()), "{code}");
    }
    // A finder put ahead of labelguard's finds torch itself: the guards engage at the next import.
    let ahead = "import sys, importlib.machinery as m\nclass First:\n    def find_spec(self, name, path=None, target=None):\n        return m.PathFinder.find_spec(name, path) if name == 'torch' else None\nsys.meta_path.insert(0, First())\nimport torch\nprint('before')\nimport json\nprint('after')";
    let (out, err) = with_fakes(FAKE_LABELGUARD, ahead);
    assert_eq!(out, "before\nafter\n");
    assert_eq!(err, want);
    // ... and at exit, when no import came after it: not silent.
    let (_, err) = with_fakes(FAKE_LABELGUARD, &ahead.replace("\nimport json", ""));
    assert!(
        err.contains("labelguard run: the Python guards are off: torch 9.9 was imported, but the guards never saw it arrive"),
        "{err}"
    );
}

#[test]
fn guards_that_cannot_be_switched_on_say_why_at_once_and_in_the_summary() {
    let broken = "import sys, types\nsys.modules['labelguard._guard'] = types.SimpleNamespace(checked=lambda: 0)\ndef enable():\n    raise RuntimeError('no wrappers for this torch')\n";
    let (out, err) = with_fakes(broken, "import torch\nprint('ran on')");
    assert_eq!(out, "ran on\n");
    assert_eq!(
        err,
        "torch imported\n\
         labelguard run: the Python guards are off: torch 9.9 was imported, but labelguard.enable() failed (RuntimeError: no wrappers for this torch)\n\
         labelguard run: the guards were off in 1 process that imported torch: labelguard.enable() failed (RuntimeError: no wrappers for this torch)\n"
    );
}

/// Under `run`, a terminal (or `2>&1`) gets the child's stdout and stderr in the order the
/// child wrote them, as without labelguard: big printed dicts (larger than a pipe's buffer)
/// and logger lines between them, each whole.
#[test]
fn stdout_and_stderr_to_one_file_keep_the_childs_order() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("interleave.py");
    write(
        dir.path(),
        "interleave.py",
        "import logging, sys\nlogging.basicConfig(level=logging.INFO, format='LOG %(message)s')\nfor i in range(40):\n    print({k: 'v' * 30 for k in range(i * 3000, i * 3000 + 3000)}, flush=True)\n    logging.info('step %d', i)\n    sys.stderr.write('partial '); sys.stderr.flush()\n    print('tail', i, flush=True)\n",
    );
    // One file open for both streams, as `> out 2>&1` makes it (no shell: the paths of a
    // clone may hold spaces).
    let both = |program: &std::path::Path, args: &[&std::ffi::OsStr]| {
        let out = dir.path().join("out.txt");
        let file = std::fs::File::create(&out).unwrap();
        let o = Command::new(program)
            .args(args)
            .env("NO_COLOR", "1")
            .env_remove("PYTHONPATH")
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .status()
            .unwrap();
        assert!(
            o.success(),
            "{}",
            String::from_utf8_lossy(&std::fs::read(&out).unwrap())
        );
        std::fs::read(&out).unwrap()
    };
    let py = python();
    let plain = both(&py, &[script.as_os_str()]);
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_labelguard"));
    let run = both(
        bin,
        &[
            "run".as_ref(),
            "--no-guard".as_ref(),
            "--".as_ref(),
            py.as_os_str(),
            script.as_os_str(),
        ],
    );
    assert!(plain.len() > 40 * 3000 * 30, "{}", plain.len());
    assert!(run == plain, "the order differs from a plain run's");
}

/// The real guard (python/labelguard, issue 4): `labelguard.enable()` must make the bad
/// cross_entropy call raise labelguard's exception before PyTorch runs it, `run` must diagnose
/// that exception as LG101 at the script's line, and `--capture` must save the call. Needs
/// `import labelguard` to work in the test Python (the project's .venv after `make python`).
#[test]
fn the_real_guard_raises_before_pytorch_and_is_diagnosed() {
    let script = repo().join("tests/fixtures/run/guarded_cross_entropy.py");
    let probe = Command::new(python())
        .args(["-c", "import labelguard, torch; labelguard.enable"])
        .env_remove("PYTHONPATH")
        .output()
        .unwrap();
    assert!(
        probe.status.success(),
        "`import labelguard, torch` fails in {}: install the Python package first (`make python`).\n{}",
        python().display(),
        text(&probe.stderr)
    );
    let mut c = run_cmd(&[]);
    c.arg("--").arg(python()).arg(&script);
    let o = c.stdin(Stdio::null()).output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!text(&o.stdout).contains("not reached"), "{err}");
    assert!(
        !err.contains("IndexError: Target 3 is out of bounds."),
        "the guard raised first:\n{err}"
    );
    let (_, diagnosis) = err
        .split_once("labelguard run: the command failed")
        .expect(&err);
    assert!(diagnosis.contains("[LG101]"), "{diagnosis}");
    assert!(diagnosis.contains("op: cross_entropy"), "{diagnosis}");
    assert!(
        diagnosis.contains(&format!("your code: {}:8 in <module>", script.display())),
        "{diagnosis}"
    );

    // --capture: the failing call is saved for `labelguard replay`.
    let dir = tempfile::tempdir().unwrap();
    let mut c = run_cmd(&["--capture", dir.path().to_str().unwrap()]);
    c.arg("--").arg(python()).arg(&script);
    let o = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let saved: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(saved.len(), 1, "{}", text(&o.stderr));
    assert!(
        saved[0].extension().is_some_and(|e| e == "safetensors"),
        "{saved:?}"
    );
}

// --- Faults: labelguard killed, grandchildren, floods, signals (issue 8) ---

fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}

/// The names in a directory.
fn listing(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "waited for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigkill_to_labelguard_leaves_no_temporary_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let mut c = run_cmd(&["--no-guard"]);
    c.arg("--")
        .args(sh("echo $$; exec sleep 30"))
        .env("TMPDIR", tmp.path());
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = reader(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    wait_for(&out, &mut seen, "\n");
    let sleeper: u32 = text(&seen).trim().parse().unwrap();
    let dirs = listing(tmp.path());
    assert!(
        dirs.len() == 1 && dirs[0].starts_with("labelguard-run-"),
        "{dirs:?}"
    );
    signal(child.id(), "-KILL");
    assert_eq!(finish(child).code(), None, "killed");
    wait_until("the directory to go", || listing(tmp.path()).is_empty());
    signal(sleeper, "-KILL");

    // And after a normal exit.
    let mut c = run_cmd(&["--no-guard"]);
    c.arg("--").args(sh("exit 3")).env("TMPDIR", tmp.path());
    assert_eq!(
        c.stdin(Stdio::null()).output().unwrap().status.code(),
        Some(3)
    );
    assert!(listing(tmp.path()).is_empty());
}

#[test]
fn a_grandchild_that_outlives_its_parent_keeps_its_later_output() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("done");
    // The child exits at once; its background grandchild writes after the 3 s grace period,
    // and records that its writes succeeded (a broken pipe would kill or fail `echo`). 8 s, not
    // just past the grace period: on a loaded CI machine starting labelguard and the shell can
    // take seconds, and the bound below must tell "did not wait" from "slow to start".
    let script = format!(
        "(sleep 8; echo late; echo late-err >&2; echo later && touch '{}') & echo early",
        marker.display()
    );
    let mut c = run_cmd(&["--no-guard"]);
    c.arg("--").args(sh(&script));
    let start = Instant::now();
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = reader(child.stdout.take().unwrap());
    let err = reader(child.stderr.take().unwrap());
    let status = finish(child);
    assert_eq!(status.code(), Some(0));
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "labelguard does not wait for the grandchild"
    );
    let (mut seen, mut seen_err) = (Vec::new(), Vec::new());
    wait_for(&out, &mut seen, "later\n");
    wait_for(&err, &mut seen_err, "late-err\n");
    assert_eq!(text(&seen), "early\nlate\nlater\n");
    assert!(text(&seen_err).contains("keeps coming through"));
    wait_until("the grandchild's marker", || marker.exists());
}

#[test]
fn a_child_killed_by_sigkill_or_sigterm_gives_128_plus_the_signal() {
    let o = output(&["--no-guard"], &sh("echo before; kill -KILL $$"));
    assert_eq!(o.status.code(), Some(137));
    assert_eq!(text(&o.stdout), "before\n");
    // SIGTERM to labelguard itself, with a child that does not catch it: forwarded, and the
    // child's death by SIGTERM is labelguard's exit code.
    let mut c = run_cmd(&["--no-guard"]);
    c.arg("--").args(sh("echo ready; sleep 30 & wait"));
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = reader(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    wait_for(&out, &mut seen, "ready\n");
    signal(child.id(), "-TERM");
    assert_eq!(finish(child).code(), Some(143));
}

#[test]
fn a_flood_of_output_passes_through_whole() {
    // 64 MiB of log lines as fast as the child can write them: every byte arrives, in order.
    let o = output(
        &["--no-guard"],
        &sh("yes 'epoch 1 step 100 loss 0.25 lr 0.001' | head -c 67108864"),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stdout.len(), 64 << 20);
    assert!(o
        .stdout
        .starts_with(b"epoch 1 step 100 loss 0.25 lr 0.001\nepoch"));
    let whole_lines = o.stdout.len() / 36 * 36;
    assert!(o.stdout[..whole_lines]
        .chunks(36)
        .all(|l| l == b"epoch 1 step 100 loss 0.25 lr 0.001\n"));
}

#[test]
fn after_a_flood_the_error_at_the_end_is_diagnosed_at_its_line() {
    // 2,000,000 lines as fast as they come (faster than the diagnoser of a debug build reads:
    // some are skipped), then a device-side assert: found, with its true line number.
    let assert_line = "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.";
    let script = format!("yes 'epoch 1 step 100 loss 0.25 lr 0.001' | head -n 2000000; echo '{assert_line}' >&2; exit 1");
    let o = output(&["--no-guard"], &sh(&script));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(o.stdout.len(), 36 * 2_000_000);
    let err = text(&o.stderr);
    assert!(err.contains("LG101"), "{err}");
    assert!(err.contains("stderr:1 "), "{err}");
    // The same flood on stdout before the assert line on stdout: its line number is counted
    // through any skipped bytes.
    let script = format!(
        "yes 'epoch 1 step 100 loss 0.25 lr 0.001' | head -n 2000000; echo '{assert_line}'; exit 1"
    );
    let o = output(&["--no-guard"], &sh(&script));
    let err = text(&o.stderr);
    assert!(err.contains("stdout:2000001 "), "{err}");
}

#[test]
fn rerun_sync_runs_a_compiled_failure_again_eagerly_and_finds_the_line() {
    // A real torch.compile'd model (inductor, one thread) whose generated kernel raises its own
    // index check; the rerun with TORCH_COMPILE_DISABLE=1 fails at the user's line.
    let script = repo().join("tests/fixtures/logs/train_compiled.py");
    let mut c = run_cmd(&["--no-guard", "--rerun-sync"]);
    c.env("OMP_NUM_THREADS", "1")
        .arg("--")
        .arg(python())
        .arg(&script)
        .arg("ids");
    let o = c.stdin(Stdio::null()).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("index out of bounds: 0 <= tmp"), "{err}");
    assert!(
        err.contains("running the command again with TORCH_COMPILE_DISABLE=1"),
        "{err}"
    );
    let (_, diagnosis) = err
        .split_once("labelguard run: the run with --sync failed")
        .expect(&err);
    assert!(
        diagnosis.contains("error[LG401]") && diagnosis.contains("op: embedding"),
        "{diagnosis}"
    );
    assert!(
        diagnosis.contains(&format!(
            "your code: {}:14 in forward: h = self.emb(ids).mean(1)\n",
            script.display()
        )),
        "{diagnosis}"
    );
}
