//! `labelguard run [--sync] [--rerun-sync] [--capture DIR] [--no-guard] [--hang-timeout S] -- COMMAND ARGS...`:
//! runs a training command for debugging, with the Python guards on and its output diagnosed.
//!
//! The child gets the terminal's stdin; its stdout and stderr go through pipes that are copied
//! to ours chunk by chunk as they arrive (no line buffering: progress bars and colour codes pass
//! byte for byte) and fed to the streaming diagnoser on the way, which keeps bounded state
//! however long the run. When our stdout and stderr are one file (a terminal, `2>&1`), the child
//! gets one pipe for both, so that what it wrote reaches that file in the order it wrote it.
//! At the end, a closing line says how many calls the guards checked (`run/guards.rs`). The child runs in its own process group: SIGINT, SIGTERM, SIGHUP and
//! SIGQUIT sent to labelguard go to that group, and when labelguard owns the terminal the child's
//! group is made its foreground group (so Ctrl-C, and `breakpoint()` reading stdin, reach it
//! directly). labelguard exits with the child's exit code (128 + N when signal N killed it).
//! A multi-process job left hanging by a failed rank is ended after `--hang-timeout` seconds of
//! silence (`run/hang.rs`).

mod guards;
mod hang;
mod tee;

use crate::output::ColorChoice;
use anyhow::{bail, Context};
use labelguard_diagnose::{Analyzer, LogReport, Options, Scanner};
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// The sitecustomize that switches the guards on inside the child (see the file for what it does).
const SITECUSTOMIZE: &str = include_str!("run/sitecustomize.py");
/// The finder that runs code right after a module's import, which the sitecustomize imports from
/// beside it (before labelguard is imported): the Python package's own, one copy for both
/// (build.rs finds it in the repository's layout and in the sdist's).
const AFTER_IMPORT: &str = include_str!(env!("LABELGUARD_AFTER_IMPORT"));

/// What `--sync` sets before the child starts: before `import torch`, where setting them inside
/// the script is too late. TORCH_COMPILE_DISABLE=1 runs `torch.compile`d code eagerly, so that a
/// failure lands on the user's line, where the guards check it (not in a generated kernel).
const SYNC_ENV: &[(&str, &str)] = &[
    ("CUDA_LAUNCH_BLOCKING", "1"),
    ("TORCH_SHOW_CPP_STACKTRACES", "1"),
    ("PYTORCH_USE_CUDA_DSA", "1"),
    ("TORCH_COMPILE_DISABLE", "1"),
];

/// How long to keep reading the child's pipes after it exited (a grandchild may hold them open).
const DRAIN_GRACE: Duration = Duration::from_secs(3);

#[derive(clap::Args)]
#[command(
    trailing_var_arg = true,
    after_help = "Examples:\n  labelguard run -- python train.py --epochs 3\n  labelguard run --rerun-sync -- torchrun --nproc-per-node 2 train.py\n  labelguard run --sync --capture bad-batches -- python train.py\n\nThe exit code is the command's (128 + N when signal N killed it); 2 when it cannot start.\nWhen the command fails, the diagnosis of its output is printed on stderr."
)]
pub struct RunArgs {
    /// Make CUDA errors synchronous, so the traceback points at the failing line: sets
    /// CUDA_LAUNCH_BLOCKING=1, TORCH_SHOW_CPP_STACKTRACES=1 and PYTORCH_USE_CUDA_DSA=1 before the
    /// command starts, and TORCH_COMPILE_DISABLE=1 so that torch.compile'd code runs eagerly
    /// (several times slower).
    #[arg(long)]
    sync: bool,
    /// When the command fails with a device-side assert whose line cannot be trusted, or in a
    /// kernel that torch.compile generated, run it once more with --sync and diagnose that run.
    #[arg(long)]
    rerun_sync: bool,
    /// Save the failing call (or batch) of an uncaught error into DIR with `labelguard.capture`,
    /// for `labelguard replay`.
    #[arg(long, value_name = "DIR")]
    capture: Option<PathBuf>,
    /// Do not switch the Python guards on (the output is still diagnosed).
    #[arg(long)]
    no_guard: bool,
    /// When a rank of a multi-process job has failed and the job then prints nothing for this
    /// many seconds, end it (SIGTERM to its process group, SIGKILL 5 s later): its other ranks
    /// would wait for the failed one until their collective's timeout. 0: never. Raise it for
    /// an elastic job whose restarted workers may start silently (torchrun --max-restarts).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    hang_timeout: f64,
    /// The command to run and its arguments (after `--`).
    #[arg(required = true, value_name = "COMMAND", allow_hyphen_values = true)]
    command: Vec<OsString>,
}

pub fn run(args: RunArgs, color: ColorChoice) -> anyhow::Result<ExitCode> {
    let style = stderr_style(color);
    let site = SiteDir::create()?;
    let capture = match &args.capture {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            Some(std::path::absolute(dir).with_context(|| format!("{}", dir.display()))?)
        }
        None => None,
    };
    if !(args.hang_timeout >= 0.0 && args.hang_timeout.is_finite()) {
        bail!("--hang-timeout must be a number of seconds, 0 or more");
    }
    let launch = Launch {
        command: &args.command,
        site: &site.path,
        guard: !args.no_guard,
        capture: capture.as_deref(),
        hang_timeout: (args.hang_timeout > 0.0).then(|| Duration::from_secs_f64(args.hang_timeout)),
    };
    let first = launch.run(args.sync)?;
    if first.code == 0 {
        summarize(&first);
        if let refused @ 1.. = first.guards.refused {
            let calls = if refused == 1 {
                "call was"
            } else {
                "calls were"
            };
            say(&format!("the command exited 0, yet {refused} guarded {calls} refused in its processes (the error caught, or a child process the command went on without): see each refusal above"));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let compiled = first.report.compiled_failure();
    if args.rerun_sync && !args.sync && (first.report.needs_sync_rerun() || compiled) {
        say(if compiled {
            "the failure is in a kernel that torch.compile generated, so its line is unknown; running the command again with TORCH_COMPILE_DISABLE=1 and CUDA_LAUNCH_BLOCKING=1 to find it"
        } else {
            "the device-side assert was reported asynchronously, so its line cannot be trusted; running the command again with CUDA_LAUNCH_BLOCKING=1 to find it"
        });
        let second = launch.run(true)?;
        summarize(&second);
        if second.code != 0 {
            report(&second, style, "the run with --sync");
            return Ok(exit_code(second.code));
        }
        report(&first, style, "the first run");
        say("the run with --sync did not fail: the failure depends on the data order or on timing; keep --sync and --capture on until it fails again");
        return Ok(exit_code(first.code));
    }
    summarize(&first);
    report(&first, style, "the command");
    Ok(exit_code(first.code))
}

/// The closing summary of the guards (see `run/guards.rs`).
fn summarize(outcome: &RunOutcome) {
    for line in outcome.guards.lines() {
        say(&line);
    }
}

/// The diagnosis goes to stderr, so `auto` colours only when stderr is a terminal too (the
/// shared `style` looks at stdout).
fn stderr_style(color: ColorChoice) -> labelguard_report::Style {
    if color == ColorChoice::Auto && !std::io::stderr().is_terminal() {
        labelguard_report::Style { color: false }
    } else {
        crate::output::style(color)
    }
}

fn say(message: &str) {
    eprintln!("labelguard run: {message}");
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(code.clamp(0, 255) as u8)
}

fn report(outcome: &RunOutcome, style: labelguard_report::Style, what: &str) {
    if outcome.skipped > 0 {
        say(&format!(
            "{} bytes of {what}'s output came faster than they could be diagnosed; they were passed through but not read",
            outcome.skipped
        ));
    }
    if outcome.report.findings.is_empty() {
        // Killed by a signal (Ctrl-C, the job's time limit) with nothing in the output: the
        // shell already says how it ended.
        if outcome.code < 128 {
            say(&format!(
                "{what} failed (exit status {}); its output shows no error that labelguard knows",
                outcome.code
            ));
        }
        return;
    }
    let mut err = std::io::stderr().lock();
    let header = format!(
        "\nlabelguard run: {what} failed (exit status {}); diagnosis of its output:\n\n",
        outcome.code
    );
    let _ = err.write_all(header.as_bytes());
    let _ = err.write_all(
        labelguard_report::diagnose::text(std::slice::from_ref(&outcome.report), style).as_bytes(),
    );
}

/// A private directory with the sitecustomize, removed when labelguard exits, however it exits:
/// a watcher process removes it when labelguard is gone, SIGKILL included.
struct SiteDir {
    path: PathBuf,
    _watcher: Option<process::Watcher>,
}

impl SiteDir {
    fn create() -> anyhow::Result<SiteDir> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path =
            std::env::temp_dir().join(format!("labelguard-run-{}-{nanos:x}", std::process::id()));
        #[cfg_attr(not(unix), expect(unused_mut))]
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder
            .create(&path)
            .with_context(|| format!("creating {}", path.display()))?;
        let watcher = process::Watcher::remove_when_gone(&path);
        let dir = SiteDir {
            path,
            _watcher: watcher,
        };
        for (name, text) in [
            ("sitecustomize.py", SITECUSTOMIZE),
            ("_labelguard_after_import.py", AFTER_IMPORT),
        ] {
            std::fs::write(dir.path.join(name), text)
                .with_context(|| format!("writing {}", dir.path.display()))?;
        }
        Ok(dir)
    }
}

impl Drop for SiteDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

struct Launch<'a> {
    command: &'a [OsString],
    site: &'a Path,
    guard: bool,
    capture: Option<&'a Path>,
    hang_timeout: Option<Duration>,
}

struct RunOutcome {
    code: i32,
    report: LogReport,
    /// Bytes of output that went by faster than the diagnoser could read them.
    skipped: u64,
    guards: guards::Summary,
}

impl Launch<'_> {
    /// The child's environment: ours plus the guard switches (and the sync variables).
    fn environment(&self, sync: bool) -> Vec<(OsString, OsString)> {
        let mut env: Vec<(OsString, OsString)> = Vec::new();
        let old = std::env::var_os("PYTHONPATH").filter(|p| !p.is_empty());
        let paths = std::iter::once(self.site.to_path_buf())
            .chain(old.iter().flat_map(std::env::split_paths));
        let pythonpath = std::env::join_paths(paths).unwrap_or_else(|_| self.site.into());
        env.push(("PYTHONPATH".into(), pythonpath));
        env.push((
            "LABELGUARD_GUARD".into(),
            if self.guard { "1" } else { "0" }.into(),
        ));
        // Where a rank that ends with an error says so (see `hang`).
        env.push(("LABELGUARD_RUN_DIR".into(), self.site.as_os_str().into()));
        if let Some(dir) = self.capture {
            env.push(("LABELGUARD_CAPTURE".into(), dir.as_os_str().into()));
        }
        // Output through a pipe is block-buffered by Python: it would arrive late, and be lost
        // when the process aborts (a C++ terminate after a CUDA error).
        if std::env::var_os("PYTHONUNBUFFERED").is_none() {
            env.push(("PYTHONUNBUFFERED".into(), "1".into()));
        }
        if sync {
            for (k, v) in SYNC_ENV {
                env.push(((*k).into(), (*v).into()));
            }
        }
        env
    }

    fn run(&self, sync: bool) -> anyhow::Result<RunOutcome> {
        let Some((program, rest)) = self.command.split_first() else {
            bail!("no command to run");
        };
        guards::Summary::clear(self.site);
        let mut cmd = Command::new(program);
        // When our stdout and stderr are one file (a terminal, `2>&1`), the child gets one pipe
        // for both, as it would get that file: its writes reach it in the order it made them.
        // Two pipes copied by two threads would interleave them differently (a logger line
        // inside a printed dict).
        let merged = process::same_file(1, 2)
            .then(std::io::pipe)
            .transpose()
            .context("making a pipe")?;
        let (merged_reader, streams): (_, &[(i32, &str)]) = match merged {
            Some((reader, writer)) => {
                let copy = writer.try_clone().context("making a pipe")?;
                cmd.stdout(Stdio::from(writer)).stderr(Stdio::from(copy));
                (Some(reader), &[(1, "output")])
            }
            None => {
                cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
                (None, &[(1, "stdout"), (2, "stderr")])
            }
        };
        cmd.args(rest)
            .envs(self.environment(sync))
            .stdin(Stdio::inherit());
        // The diagnoser is made before the child starts (its knowledge base is compiled on
        // first use), so it reads from the child's first byte on.
        let mut analyzer = Analyzer::new(Options {
            launch_blocking: sync,
        });
        let sources: Vec<_> = streams
            .iter()
            .map(|&(fd, name)| (fd, analyzer.add_source(name)))
            .collect();
        let terminal = process::prepare(&mut cmd);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("cannot run {}", program.to_string_lossy()))?;
        // Our copies of the write ends close with the command, so that the pipe ends with the child.
        drop(cmd);
        let pgid = child.id() as i32;
        process::started(pgid, terminal);

        let shared = Arc::new(Mutex::new(Some(analyzer)));
        let (done_tx, done_rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let skipped = Arc::new(AtomicU64::new(0));
        let sharing = tee::Shared {
            analyzer: shared.clone(),
            skipped: skipped.clone(),
            done: done_tx,
            stop: stop.clone(),
        };
        let pipes: Vec<std::fs::File> = match merged_reader {
            Some(reader) => vec![process::pipe_file(reader)],
            None => vec![
                process::pipe_file(child.stdout.take().expect("piped")),
                process::pipe_file(child.stderr.take().expect("piped")),
            ],
        };
        let tees: Vec<(i32, tee::Tee)> = pipes
            .into_iter()
            .zip(&sources)
            .map(|(pipe, &(fd, src))| {
                (fd, tee::start(pipe, fd, Scanner::new(src), sharing.clone()))
            })
            .collect();
        drop(sharing);

        let status = hang::wait(&mut child, &shared, self.site, self.hang_timeout)
            .context("waiting for the command");
        process::finished(terminal);
        let status = status?;
        // Both pipes reach end of file when the child's last writer exits; a grandchild that
        // keeps them open only gets a grace period.
        let deadline = std::time::Instant::now() + DRAIN_GRACE;
        let mut open = tees.len();
        while open > 0 {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if done_rx.recv_timeout(left).is_err() {
                break;
            }
            open -= 1;
        }
        if open > 0 && cfg!(unix) {
            // A process the command started still holds its output: stop diagnosing it and
            // leave a copier that keeps passing it through after labelguard exits, so that
            // process never sees a broken pipe.
            stop.store(true, Ordering::SeqCst);
            let mut handed = false;
            for (fd, tee) in tees {
                if let Some(pipe) = tee.join() {
                    handed |= process::pass_through(pipe, fd);
                }
            }
            if handed {
                say("the command exited, but a process it started still writes to its output; that output keeps coming through, undiagnosed");
            }
            // The copiers have stopped: each diagnoser reads what it was given (the end of its
            // stream included) and ends.
            while done_rx.recv().is_ok() {}
        }
        let analyzer = shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .expect("taken once");
        Ok(RunOutcome {
            code: process::exit_code(status),
            report: analyzer.finish(),
            skipped: skipped.load(Ordering::Relaxed),
            guards: guards::Summary::read(self.site),
        })
    }
}

#[cfg(unix)]
mod process {
    //! Process groups, the terminal's foreground group, and signal forwarding.

    use std::fs::File;
    use std::io::IsTerminal;
    use std::mem::ManuallyDrop;
    use std::os::unix::io::FromRawFd;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::process::{Command, ExitStatus};
    use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

    use nix::sys::signal::{
        killpg, sigaction, SaFlags, SigAction, SigHandler, SigSet, SigmaskHow, Signal,
    };
    use nix::unistd::{getpgrp, tcgetpgrp, tcsetpgrp, Pid};

    /// The child's process group, 0 while none runs.
    static CHILD_PGID: AtomicI32 = AtomicI32::new(0);
    /// A signal that arrived before the child's group was known.
    static PENDING: AtomicI32 = AtomicI32::new(0);

    const FORWARDED: [Signal; 4] = [
        Signal::SIGINT,
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGQUIT,
    ];

    extern "C" fn forward(sig: std::ffi::c_int) {
        let pgid = CHILD_PGID.load(Ordering::SeqCst);
        match Signal::try_from(sig) {
            // killpg is async-signal-safe.
            Ok(s) if pgid > 0 => drop(killpg(Pid::from_raw(pgid), s)),
            _ => PENDING.store(sig, Ordering::SeqCst),
        }
    }

    /// Whether labelguard owns the terminal (stdin is a terminal and we are its foreground group).
    fn owns_terminal() -> bool {
        let stdin = std::io::stdin();
        stdin.is_terminal() && tcgetpgrp(&stdin).is_ok_and(|g| g == getpgrp())
    }

    /// Runs `f` with SIGTTOU blocked on this thread: a background process group may then take
    /// the terminal's foreground instead of being stopped.
    fn with_sigttou_blocked<T>(f: impl FnOnce() -> T) -> T {
        let mut set = SigSet::empty();
        set.add(Signal::SIGTTOU);
        let old = set.thread_swap_mask(SigmaskHow::SIG_BLOCK).ok();
        let out = f();
        if let Some(old) = old {
            let _ = old.thread_set_mask();
        }
        out
    }

    /// Makes process group `pgid` the foreground group of the terminal on fd 0.
    fn give_terminal_to(pgid: Pid) {
        // SAFETY: fd 0 stays open for the life of the process. Borrowed raw (not through
        // `std::io::stdin()`, which allocates on first use) so that this is safe after fork.
        let terminal = unsafe { std::os::fd::BorrowedFd::borrow_raw(0) };
        with_sigttou_blocked(|| tcsetpgrp(terminal, pgid).ok());
    }

    /// Puts the child in its own process group (and, when we own the terminal, in the
    /// terminal's foreground), and installs the forwarding handlers. Returns whether the
    /// terminal is handed over.
    pub fn prepare(cmd: &mut Command) -> bool {
        let terminal = owns_terminal();
        cmd.process_group(0);
        if terminal {
            // SAFETY: between fork and exec only async-signal-safe calls run (sigprocmask and
            // tcsetpgrp through nix's thin wrappers; no allocation).
            unsafe {
                cmd.pre_exec(|| {
                    give_terminal_to(nix::unistd::getpid());
                    Ok(())
                });
            }
        }
        let action = SigAction::new(
            SigHandler::Handler(forward),
            SaFlags::SA_RESTART,
            SigSet::empty(),
        );
        for sig in FORWARDED {
            // SAFETY: the handler only calls killpg and touches atomics.
            let _ = unsafe { sigaction(sig, &action) };
        }
        terminal
    }

    /// Records the child's group; delivers a signal that arrived while it started.
    pub fn started(pgid: i32, terminal: bool) {
        if terminal {
            // The child does this too; doing it on both sides closes the race with its first read.
            give_terminal_to(Pid::from_raw(pgid));
        }
        CHILD_PGID.store(pgid, Ordering::SeqCst);
        let sig = PENDING.swap(0, Ordering::SeqCst);
        if let Ok(s) = Signal::try_from(sig) {
            let _ = killpg(Pid::from_raw(pgid), s);
        }
    }

    /// Sends SIGTERM (or SIGKILL) to the child's process group.
    pub fn end_group(_child: &mut std::process::Child, pgid: i32, kill: bool) {
        let sig = if kill {
            Signal::SIGKILL
        } else {
            Signal::SIGTERM
        };
        let _ = killpg(Pid::from_raw(pgid), sig);
    }

    /// Takes the terminal back after the child exited.
    pub fn finished(terminal: bool) {
        CHILD_PGID.store(0, Ordering::SeqCst);
        if terminal {
            give_terminal_to(getpgrp());
        }
    }

    /// The shell's convention: the exit code, or 128 + the signal that killed the process.
    pub fn exit_code(status: ExitStatus) -> i32 {
        status
            .code()
            .or_else(|| status.signal().map(|s| 128 + s))
            .unwrap_or(1)
    }

    /// Our stdout (1) or stderr (2), written without any buffering of Rust's.
    pub fn raw_output(fd: i32) -> ManuallyDrop<File> {
        // SAFETY: fds 1 and 2 stay open for the life of the process; ManuallyDrop never closes them.
        ManuallyDrop::new(unsafe { File::from_raw_fd(fd) })
    }

    /// Whether our file descriptors `a` and `b` are open on one file (device and inode).
    pub fn same_file(a: i32, b: i32) -> bool {
        use std::os::unix::fs::MetadataExt;
        let meta = |fd| raw_output(fd).metadata().ok().map(|m| (m.dev(), m.ino()));
        meta(a).is_some_and(|m| meta(b) == Some(m))
    }

    /// A child's pipe as a file, to poll and to hand on.
    pub fn pipe_file(pipe: impl Into<std::os::fd::OwnedFd>) -> File {
        File::from(pipe.into())
    }

    /// Waits until `file` has data (or end of file) to read: true; or until `stop` is set: false.
    /// `quiet` runs every 100 ms that nothing comes.
    pub fn readable(file: &File, stop: &AtomicBool, quiet: &mut dyn FnMut()) -> bool {
        use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
        use std::os::fd::AsFd;
        loop {
            if stop.load(Ordering::SeqCst) {
                return false;
            }
            let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLIN)];
            // The timeout bounds how long a stop request waits.
            if poll(&mut fds, PollTimeout::from(100u8)).is_ok_and(|n| n > 0) {
                return true;
            }
            quiet();
        }
    }

    /// Keeps copying `pipe` to our `fd` in a process of its own (`cat`, in its own process
    /// group), which outlives labelguard and ends when the last writer closes the pipe.
    pub fn pass_through(pipe: File, fd: i32) -> bool {
        use std::os::fd::AsFd;
        let out = match fd {
            1 => std::io::stdout().as_fd().try_clone_to_owned(),
            _ => std::io::stderr().as_fd().try_clone_to_owned(),
        };
        let Ok(out) = out else { return false };
        Command::new("cat")
            .stdin(pipe)
            .stdout(out)
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .is_ok()
    }

    /// A process that removes a directory once labelguard is gone: it waits for end of file on
    /// a pipe whose only writer is labelguard, which the system closes however labelguard ends.
    pub struct Watcher(std::process::Child);

    impl Watcher {
        pub fn remove_when_gone(dir: &std::path::Path) -> Option<Watcher> {
            Command::new("sh")
                .args(["-c", "read _; rm -rf -- \"$0\""])
                .arg(dir)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                // Its own group: Ctrl-C at the terminal and signals to the child's group miss it.
                .process_group(0)
                .spawn()
                .ok()
                .map(Watcher)
        }
    }

    impl Drop for Watcher {
        fn drop(&mut self) {
            drop(self.0.stdin.take());
            let _ = self.0.wait();
        }
    }
}

#[cfg(not(unix))]
mod process {
    //! Without Unix process groups: the child shares the console, which delivers Ctrl-C to it.

    use std::io::Write;
    use std::process::{Command, ExitStatus};

    pub fn prepare(_cmd: &mut Command) -> bool {
        false
    }
    pub fn started(_pgid: i32, _terminal: bool) {}
    pub fn end_group(child: &mut std::process::Child, _pgid: i32, _kill: bool) {
        let _ = child.kill();
    }
    pub fn finished(_terminal: bool) {}
    pub fn exit_code(status: ExitStatus) -> i32 {
        status.code().unwrap_or(1)
    }
    pub fn raw_output(fd: i32) -> Box<dyn Write> {
        if fd == 1 {
            Box::new(std::io::stdout())
        } else {
            Box::new(std::io::stderr())
        }
    }
    /// Without fstat's inode: the two streams are always kept apart.
    pub fn same_file(_a: i32, _b: i32) -> bool {
        false
    }
    pub fn pipe_file(pipe: impl Into<std::os::windows::io::OwnedHandle>) -> std::fs::File {
        std::fs::File::from(pipe.into())
    }
    /// Without poll: reads block, and a pipe is never handed on.
    pub fn readable(
        _file: &std::fs::File,
        _stop: &std::sync::atomic::AtomicBool,
        _quiet: &mut dyn FnMut(),
    ) -> bool {
        true
    }
    pub fn pass_through(_pipe: std::fs::File, _fd: i32) -> bool {
        false
    }
    pub struct Watcher;
    impl Watcher {
        pub fn remove_when_gone(_dir: &std::path::Path) -> Option<Watcher> {
            None
        }
    }
}
