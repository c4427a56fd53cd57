//! labelguard's file formats: everything between a path and the values in the file, shared by
//! `labelguard-scan`, `labelguard-fix` and `labelguard-fuzz`. It knows nothing of layouts,
//! analyses or reports.
//!
//! * [`formats`] is the one table of the formats read (name, extensions, magic bytes, what a
//!   file holds, and its reader).
//! * [`source`] is where an item's bytes come from: a file, a member of a tar shard (a slice of
//!   a local file) or an object in a bucket; every reader reads through it.
//! * [`read`] holds the readers, one file per format: bytes in, pixels, labels, boxes or token
//!   ids out, each with hard limits checked before anything is allocated.
//! * [`walk`] lists files without following loops or opening FIFOs; [`brace`] expands the
//!   `{a,b}` and `{000..099}` patterns of shard lists; [`glob`] matches `--exclude` patterns.
//! * [`checks`] words the failures of a file that cannot be read at all (LG601 unreadable,
//!   LG602 corrupt, LG603 empty, LG604 bomb) as findings, with [`problem`] their builder; what a
//!   reader finds wrong inside a file it could read is its own plain data ([`read::tar::TarProblem`],
//!   [`read::tokens::ColumnProblem`], [`read::data_yaml::DataYamlProblem`]), worded by the scan.
//! * The leaves: [`isolate`] turns a reader's panic into a value, [`nonblock`] opens without
//!   blocking on a FIFO, [`bad_cell`] names a table cell that is not a label.
//!
//! Imports run one way, down these layers: [`walk`] and [`read`]; [`source`]; [`checks`] and
//! [`formats`]; then the leaves.

// Readers return their failure as the finding that reports it (one finding type,
// `labelguard_core::Finding`); it is returned at most once per file, so its size costs nothing.
#![allow(clippy::result_large_err)]

pub mod bad_cell;
pub mod brace;
pub mod checks;
#[cfg(any(test, feature = "test-fixtures"))]
pub mod fixtures;
pub mod formats;
pub mod glob;
pub mod isolate;
pub mod nonblock;
pub mod problem;
pub mod read;
pub mod source;
pub mod walk;

pub use source::Source;
