//! The last net under every command: a panic that escapes a command (in `check`, `diagnose`,
//! the discovery phase of `scan`, ...) becomes an LG620 internal error, reported in one line
//! with "please report", and exit code 2, instead of an abort with exit 101 and a Rust
//! backtrace. The files of a scan have their own net (`labelguard_formats::isolate`), which turns
//! a panic on one file into a finding on that file and goes on with the others.

use labelguard_core::rules::LG620;
use std::process::ExitCode;

/// Runs `command`, turning a panic into an LG620 error (exit code 2).
pub fn guarded(command: impl FnOnce() -> anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    labelguard_formats::isolate::isolated(command).unwrap_or_else(|message| {
        Err(anyhow::anyhow!(
            "{} {}: internal error: {message} (please report it, with the command line and its input, to labelguard's issue tracker)",
            LG620.code,
            LG620.name
        ))
    })
}
