//! labelguard's fuzzing harness, on stable Rust (`make fuzz`).
//!
//! Why not cargo-fuzz: it needs a nightly toolchain and sanitizers, which CI does not have;
//! this harness runs anywhere the project builds, `make test` runs its crashers as regression
//! fixtures, and the parsers are safe Rust (no `unsafe` to sanitize), so what a sanitizer would
//! add is the panic, hang and out-of-memory detection done here: `catch_unwind` around each
//! input, a per-input time budget, and a memory cap on the process (`ulimit -v` in `make fuzz`).
//! Debug builds keep overflow checks on, so an arithmetic overflow is a crash too.

pub mod mutate;
pub mod parquet_cases;
pub mod targets;

use labelguard_formats::isolate::isolated;
use mutate::{mutate, Rng};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use targets::Target;

/// One input over this is a hang (the budget is 2 s per file in a release build),
/// counted in CPU time of the thread that runs it: a campaign runs at the lowest priority on
/// a shared machine, where wall time says more about the other processes than about the input.
pub const SLOW: Duration = Duration::from_secs(2);

/// CPU time this thread has used.
#[cfg(unix)]
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid pointer given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Elsewhere (Windows: std has no per-thread CPU clock) the wall time since the first call.
#[cfg(not(unix))]
fn thread_cpu() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

/// The outcome of feeding one input.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Ok,
    Panic(String),
    Slow(Duration),
}

/// Feeds `input` to `target` with a panic net and a clock.
pub fn run_one(target: &Target, input: &[u8], scratch: &Path) -> Outcome {
    let start = thread_cpu();
    match isolated(|| (target.run)(input, scratch)) {
        Err(m) => Outcome::Panic(m),
        Ok(()) if thread_cpu() - start > SLOW => Outcome::Slow(thread_cpu() - start),
        Ok(()) => Outcome::Ok,
    }
}

/// What one campaign on one target did.
pub struct Stats {
    pub executions: u64,
    pub found: Vec<(PathBuf, Outcome)>,
}

/// Mutates the target's seeds for `budget`, saving every crasher under `crashes/<target>/`.
pub fn campaign(target: &Target, budget: Duration, seed: u64, crashes: &Path) -> Stats {
    let dir = tempfile::tempdir().expect("scratch dir");
    let scratch = dir.path().join("input");
    let seeds = (target.seeds)();
    let mut corpus = seeds.clone();
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let mut stats = Stats {
        executions: 0,
        found: Vec::new(),
    };
    while start.elapsed() < budget {
        let base = &corpus[rng.below(corpus.len())];
        let other = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, base, other);
        stats.executions += 1;
        match run_one(target, &input, &scratch) {
            Outcome::Ok => {
                // Keep a few mutants around so that mutations stack up (a cheap corpus).
                if corpus.len() < 256 && rng.below(64) == 0 {
                    corpus.push(input);
                }
            }
            bad => {
                let path = crashes
                    .join(target.name)
                    .join(format!("{:016x}", fnv(&input)));
                std::fs::create_dir_all(path.parent().expect("parent")).expect("crash dir");
                std::fs::write(&path, &input).expect("save crasher");
                stats.found.push((path, bad));
            }
        }
    }
    stats
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
