//! `labelguard diagnose`: reads a PyTorch log or traceback and says what failed, in which op, why,
//! how to fix it, and where in the user's code.
//!
//! Data flows one way: bytes → [`Scanner`] (lines, one pass, bounded memory) → [`Analyzer`]
//! (matches the knowledge base in `knowledge.toml`, keeps grouped evidence in the observations of
//! `observed.rs`) → `conclude.rs` (the order of precedence; the log rules LG901–LG908 are checked
//! in `checks/`, one file per rule, on the helpers of `context.rs`) → [`LogReport`] (findings,
//! each a [`Diagnosis`] that wraps a core `Finding`), rendered by labelguard-report. The knowledge base is data: one
//! entry per assertion or message signature, each pointing at an explanation (op, rule code,
//! cause, fix).

mod analyze;
mod assertion;
mod checks;
mod clues;
mod compiled;
mod conclude;
mod context;
pub mod kb;
pub mod kernel_table;
mod model;
mod observed;
mod ranks;
mod repeat;
mod scan;
mod seen;
mod text;
mod traceback;

pub use analyze::Analyzer;
pub use checks::explained_by_other_logs;
pub use kb::{ops, LOG_ONLY_OPS, UNKNOWN_OP};
pub use model::{
    Confidence, Diagnosis, Evidence, FirstFailure, Frame, LogReport, Outcome, SourceSummary,
    UserFrame,
};
pub use observed::{Options, SourceId};
pub use scan::{Scanner, MAX_LINE};

use std::io::{self, Read};

/// How much is read at once.
pub const CHUNK: usize = 1 << 20;

/// Diagnoses one stream (a file, stdin) in a single pass with bounded memory.
pub fn diagnose_reader(mut reader: impl Read, name: &str, opts: Options) -> io::Result<LogReport> {
    let mut a = Analyzer::new(opts);
    let src = a.add_source(name);
    let mut scanner = Scanner::new(src);
    let mut buf = vec![0u8; CHUNK];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => scanner.feed(&buf[..n], &mut a),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    scanner.finish(&mut a);
    Ok(a.finish())
}

/// Diagnoses a log held in memory.
pub fn diagnose_bytes(log: &[u8], name: &str, opts: Options) -> LogReport {
    diagnose_reader(log, name, opts).expect("reading from memory does not fail")
}
