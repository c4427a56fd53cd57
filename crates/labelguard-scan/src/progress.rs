//! Progress reporting: a bar on stderr for people, nothing for pipes and CI logs.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// What the pipeline tells about its progress. Implementations must be cheap: `inc` is
/// called once per file from every worker thread.
pub trait Progress: Sync {
    fn start(&self, _total: u64) {}
    fn inc(&self) {}
    fn finish(&self) {}
}

/// No progress output.
pub struct Silent;
impl Progress for Silent {}

/// An indicatif bar on stderr, drawn only when stderr is a terminal.
pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    /// A bar, or a hidden one when `quiet` or when stderr is not a terminal.
    pub fn stderr(quiet: bool) -> Bar {
        Bar::labelled(quiet, "scanning")
    }

    /// A bar whose line starts with `verb` (`scanning`, `fixing`).
    pub fn labelled(quiet: bool, verb: &str) -> Bar {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr_with_hz(10)
        };
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} {verb} {{pos}}/{{len}} files [{{bar:30}}] {{rate}} eta {{eta}}"
            ))
            .expect("valid template")
            // Whole files per second: indicatif's {per_sec} prints `35.9557/s`.
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} files/s", s.per_sec());
                },
            )
            .progress_chars("=> "),
        );
        Bar { bar }
    }
}

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.bar.set_length(total);
    }
    fn inc(&self) {
        self.bar.inc(1);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
