//! Fault injection for the tests of the safety nets: a panic while one file is read, a crash
//! after N files are written. Compiled into debug builds only (the ones `cargo test` runs);
//! release builds, the ones users run, contain no such hook and read no such variable.

/// `LABELGUARD_INJECT_PANIC=TEXT`: reading any file whose displayed path contains TEXT panics
/// (the test of the per-file panic net, LG620).
pub fn panic_if_chosen(display: &str) {
    panic_in_phase_if_chosen("read", display);
}

/// The phases `LABELGUARD_INJECT_PANIC=PHASE:TEXT` names, besides `read` (a file of a scan,
/// the default): the discovery of a scan root, the tensors file of `check`, a log of
/// `diagnose` (the tests of the command-wide panic net).
pub const PHASES: &[&str] = &["discover", "check", "diagnose"];

/// Panics when `LABELGUARD_INJECT_PANIC` names `phase` (no `PHASE:` prefix means `read`)
/// and a text that `path` contains.
pub fn panic_in_phase_if_chosen(phase: &str, path: &str) {
    if cfg!(debug_assertions) {
        static NEEDLE: std::sync::OnceLock<Option<(String, String)>> = std::sync::OnceLock::new();
        let needle = NEEDLE.get_or_init(|| {
            let v = setting("LABELGUARD_INJECT_PANIC")?;
            let (p, t) = match v.split_once(':') {
                Some((p, t)) if PHASES.contains(&p) => (p.to_string(), t.to_string()),
                _ => ("read".to_string(), v),
            };
            (!t.is_empty()).then_some((p, t))
        });
        if let Some((p, n)) = needle {
            if p == phase && path.contains(n.as_str()) {
                panic!("injected fault (LABELGUARD_INJECT_PANIC={n})");
            }
        }
    }
}

/// `LABELGUARD_FIX_KILL_AFTER=N`: `labelguard fix` aborts the process after writing N files
/// (the test of its resume journal).
pub fn kill_after() -> Option<usize> {
    setting("LABELGUARD_FIX_KILL_AFTER").and_then(|v| v.parse().ok())
}

/// `LABELGUARD_SLOW_DIAGNOSER=MS`: `labelguard run`'s diagnoser waits MS milliseconds before
/// each piece of output it reads (the test of a diagnoser slower than the output, as on a busy
/// machine).
pub fn slow_diagnoser() -> Option<std::time::Duration> {
    setting("LABELGUARD_SLOW_DIAGNOSER")
        .and_then(|v| v.parse().ok())
        .filter(|&ms| ms > 0)
        .map(std::time::Duration::from_millis)
}

/// `LABELGUARD_PAUSE=PHASE:FILE`: at PHASE (`listed`: a bucket's objects were listed, none
/// read yet) the process creates FILE and waits until it is removed, at most 60 s (the test of
/// an object deleted between the listing and the read deletes it meanwhile).
pub fn pause_if_chosen(phase: &str) {
    let Some(v) = setting("LABELGUARD_PAUSE") else {
        return;
    };
    let Some((p, file)) = v.split_once(':') else {
        return;
    };
    if p != phase || std::fs::write(file, phase).is_err() {
        return;
    }
    let started = std::time::Instant::now();
    while std::path::Path::new(file).exists()
        && started.elapsed() < std::time::Duration::from_secs(60)
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn setting(name: &str) -> Option<String> {
    if cfg!(debug_assertions) {
        std::env::var(name).ok().filter(|s| !s.is_empty())
    } else {
        None
    }
}
