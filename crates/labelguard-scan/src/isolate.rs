//! Isolation per file: a panic while one file is read or analysed (in labelguard or in a
//! decoder it calls) becomes an LG620 finding on that file, and the scan goes on.
//!
//! This is a safety net, not a fix: every panic found is also fixed where it happens. The
//! panic's message and location are captured by a hook (instead of being printed over the
//! progress bar) and put in the finding, bounded in length like every echoed value.

use crate::analyze::{analyze_item, finding_from_problem, Buffers, Ctx, FileKind, FileResult};
use crate::layout::Item;
use crate::walk::Problem;
use labelguard_core::rules::LG620;
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

/// LG620 for a panic met while reading a file.
pub fn internal_error(message: &str) -> Problem {
    Problem::new(
        &LG620,
        format!("internal error while reading: {message} (please report)"),
    )
    .hint("labelguard failed on this file, so it could not tell whether the file is fine")
    .fix("report it with the file to labelguard's issue tracker; meanwhile check the file by hand or exclude it")
}

/// [`analyze_item`] with a panic turned into an LG620 finding on the item. The thread's
/// buffers are replaced after a panic, since the panic may have left them half-updated.
pub fn analyze_item_isolated(item: &Item, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    match isolated(|| {
        labelguard_io::fault::panic_if_chosen(&item.display);
        analyze_item(item, ctx, bufs)
    }) {
        Ok(r) => r,
        Err(message) => {
            *bufs = Buffers::default();
            let mut r = FileResult::new(item, FileKind::Other);
            r.findings
                .push(finding_from_problem(internal_error(&message)));
            r
        }
    }
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
        let p = internal_error("x");
        assert_eq!(p.rule.code, "LG620");
        assert!(p.message.starts_with("internal error while reading: x"));
    }
}
