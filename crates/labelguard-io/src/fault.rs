//! Fault injection for the tests of the safety nets: a panic while one file is read, a crash
//! after N files are written. Compiled into debug builds only (the ones `cargo test` runs);
//! release builds, the ones users run, contain no such hook and read no such variable.

/// `LABELGUARD_INJECT_PANIC=TEXT`: reading any file whose displayed path contains TEXT panics
/// (the test of the per-file panic net, LG620).
pub fn panic_if_chosen(display: &str) {
    if cfg!(debug_assertions) {
        static NEEDLE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
        let needle = NEEDLE.get_or_init(|| setting("LABELGUARD_INJECT_PANIC"));
        if let Some(n) = needle {
            if display.contains(n.as_str()) {
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

fn setting(name: &str) -> Option<String> {
    if cfg!(debug_assertions) {
        std::env::var(name).ok().filter(|s| !s.is_empty())
    } else {
        None
    }
}
