//! Every renderer of labelguard, in one place (as ripgrep's printer crate holds its printers).
//!
//! The models come from the crates below: a checked call ([`labelguard_core::Report`]), the rule
//! catalogue ([`labelguard_core::rules`]), a dataset scan ([`labelguard_scan_model`]) and the
//! diagnoses of logs ([`labelguard_diagnose`]). Each folder renders one model; each file in it
//! is one format. The renderers only read their model, and return the text to write: where it
//! goes (stdout, a file, atomically) is the CLI's business.
//!
//! | model | formats |
//! | --- | --- |
//! | [`call`] (`check`, `replay`) | text, JSON |
//! | [`catalogue`] (`rules`) | text, JSON, Markdown (docs/rules.md) |
//! | [`scan`] (`scan`, `merge`) | text, JSON, SARIF, JUnit, GitHub annotations, HTML |
//! | [`diagnose`] (`diagnose`, `run`) | text, JSON |
//!
//! The scan and diagnose renderers are features (on by default) so that a user of the call
//! renderers alone (the Python extension) does not link the scan pipeline.
//!
//! Shared by all: [`Style`] (colours, off for pipes and `NO_COLOR`), [`visible`] (control
//! characters of input-derived text escaped), [`finding_text`] (one finding as a text block) and
//! [`thousands`].

pub mod call;
pub mod catalogue;
#[cfg(feature = "diagnose")]
pub mod diagnose;
mod escape;
mod finding;
#[cfg(feature = "scan")]
pub mod scan;
mod style;

pub use escape::visible;
pub use finding::finding_text;
pub use labelguard_core::finding::thousands;
pub use style::{look, Style};

/// The version of the JSON documents of `check`, `replay` and `diagnose`; bumped on any
/// incompatible change. (The scan report has its own, `labelguard_scan_model::SCHEMA_VERSION`.)
pub const SCHEMA_VERSION: u32 = 1;
