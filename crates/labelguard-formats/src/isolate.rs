//! Isolation: a panic in the work given to [`isolated`] (in labelguard or in a decoder it
//! calls) comes back as its message, and the caller goes on. A panic while one file is read or
//! analysed becomes an LG620 finding on that file
//! (`labelguard_scan::analyze::item::analyze_item_isolated`); a Parquet reader's panic is the file's
//! LG602.
//!
//! This is a safety net, not a fix: every panic found is also fixed where it happens. The
//! panic's message and location are captured by a hook (instead of being printed over the
//! progress bar) and put in the finding, bounded in length like every echoed value.

use std::cell::{Cell, RefCell};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Set while this thread runs isolated work: its panics are captured, not printed.
    static ISOLATED: Cell<bool> = const { Cell::new(false) };
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The longest panic text kept in a finding.
const MAX_PANIC_TEXT: usize = 300;

fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !ISOLATED.with(Cell::get) {
                return previous(info);
            }
            let payload = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let text = format!(
                "{}{at}",
                labelguard_core::clip::clip(&payload, MAX_PANIC_TEXT)
            );
            CAUGHT.with(|c| *c.borrow_mut() = Some(text));
        }));
    });
}

/// Runs `f`, turning a panic into `Err(message)`.
pub fn isolated<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was = ISOLATED.with(|i| i.replace(true));
    let out = catch_unwind(AssertUnwindSafe(f));
    ISOLATED.with(|i| i.set(was));
    out.map_err(|_| {
        CAUGHT
            .with(|c| c.borrow_mut().take())
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_bounded_message_with_its_location() {
        let e = isolated(|| -> u8 { panic!("boom {}", "x".repeat(5000)) }).unwrap_err();
        assert!(e.starts_with("boom xxx"), "{e}");
        assert!(e.contains("bytes)"), "clipped: {e}");
        assert!(e.len() < MAX_PANIC_TEXT + 100, "{e}");
        let e = isolated(|| {
            let v: Vec<u8> = Vec::new();
            v[3]
        })
        .unwrap_err();
        assert!(
            e.contains("index out of bounds") && e.contains("isolate.rs"),
            "{e}"
        );
        assert_eq!(isolated(|| 7), Ok(7));
    }
}
