//! Ends a multi-process job that one failed rank left hanging.
//!
//! When a rank dies, the other ranks of a job wait for it in their next collective: gloo notices
//! the closed connection at once, but NCCL waits for its timeout (10 minutes by default; gloo's is
//! 30 when the failed process stays alive), and a launcher that does not watch its processes
//! (plain `python` processes started by a script, `mp.spawn(join=False)`) never ends the others.
//! torchrun and `mp.spawn(join=True)` end them themselves. So `labelguard run`, once a rank's
//! process ended with an error, gives the job `--hang-timeout` seconds of silence: past that, it
//! sends SIGTERM to the command's process group, and SIGKILL [`KILL_AFTER`] later.
//!
//! A rank's end is known from the file `ended-RANK-PID` that the run's sitecustomize leaves in
//! the run's private directory (an uncaught exception, a failure under mp.spawn, a non-zero
//! `sys.exit`), or from TorchElastic's agent saying a worker failed. An error printed is not
//! enough: a rank may catch a TargetError, print it and go on, then compute silently for long.

use labelguard_diagnose::Analyzer;
use std::path::Path;
use std::process::{Child, ExitStatus};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the child and the output are looked at.
const POLL: Duration = Duration::from_millis(50);
/// From SIGTERM to SIGKILL.
const KILL_AFTER: Duration = Duration::from_secs(5);

enum Ending {
    Waiting,
    Terminated(Instant),
    Killed,
}

/// The rank of the earliest `ended-RANK-PID` file in `dir` (`ended--PID` when the rank is not
/// known: `Some(None)`).
fn ended_rank(dir: &Path) -> Option<Option<u32>> {
    let entries = std::fs::read_dir(dir).ok()?;
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let rank = name.strip_prefix("ended-")?.split('-').next()?.to_owned();
            let at = e.metadata().and_then(|m| m.modified()).ok()?;
            Some((at, rank.parse().ok()))
        })
        .min()
        .map(|(_, rank)| rank)
}

/// Waits for the child; with a timeout, ends its process group when a rank failed and the
/// output has been silent that long.
pub(super) fn wait(
    child: &mut Child,
    analyzer: &Mutex<Option<Analyzer>>,
    ended: &Path,
    timeout: Option<Duration>,
) -> std::io::Result<ExitStatus> {
    let Some(timeout) = timeout else {
        return child.wait();
    };
    let pgid = child.id() as i32;
    let (mut fed, mut quiet_since) = (0, Instant::now());
    let mut ending = Ending::Waiting;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        std::thread::sleep(POLL);
        let (now_fed, failed) = analyzer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map_or((0, None), Analyzer::progress);
        let failed = failed.map(Some).or_else(|| ended_rank(ended));
        if now_fed != fed {
            fed = now_fed;
            quiet_since = Instant::now();
        }
        match ending {
            Ending::Waiting => {
                if let Some(rank) = failed.filter(|_| quiet_since.elapsed() >= timeout) {
                    let who = rank.map_or("a rank".into(), |r| format!("rank {r}"));
                    super::say(&format!(
                        "{who} failed and the job has printed nothing for {} s since: the other ranks are likely waiting for it in a collective until its timeout; ending the command (SIGTERM to its process group; --hang-timeout 0 keeps waiting)",
                        timeout.as_secs_f64()
                    ));
                    super::process::end_group(child, pgid, false);
                    ending = Ending::Terminated(Instant::now());
                }
            }
            Ending::Terminated(at) if at.elapsed() >= KILL_AFTER => {
                super::process::end_group(child, pgid, true);
                ending = Ending::Killed;
            }
            _ => {}
        }
    }
}
