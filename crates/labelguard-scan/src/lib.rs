//! `labelguard scan`: check a whole dataset on disk before training.
//!
//! Data flows one way, as everywhere in labelguard:
//!
//! ```text
//! paths ──walk──▶ entries ──layout──▶ items ──(rayon, per file)──▶ read ──▶ tensor view
//!   ──▶ core's class-id analysis + the LG6xx checks ──▶ FileResult ──fold──▶ Aggregate
//!   ──finalize──▶ ScanReport
//!   (rendered by labelguard-report: text, JSON, SARIF, JUnit, GitHub, HTML)
//! ```
//!
//! * [`walk`] lists files without following loops or opening FIFOs; [`layout`] recognises
//!   the dataset layouts (Cityscapes, Pascal VOC, COCO, YOLO, model folders, token data,
//!   WebDataset, ImageFolder and the others that `scan --help` lists), one file per layout,
//!   listed once in order of precedence (`layout/list.rs`); their kinds are the leaf
//!   [`layout_kind`], shared with [`config`].
//! * [`source`] is where an item's bytes come from: a file, a member of a tar shard (a slice
//!   of a local file) or an object in a bucket; every reader reads through it.
//! * [`read`] decodes masks (PNG with palette indices kept, TIFF), arrays (via
//!   `labelguard-io`), label tables (CSV/TSV, JSONL, Parquet), image headers and class-weight
//!   files, each with hard limits checked before anything is allocated.
//! * [`analyze`] turns one decoded file into findings, a class histogram ([`hist`]) and, when
//!   asked, an overlay's pixels; one file per kind of input, reusing
//!   `labelguard_core::class_ids` for every class-id verdict.
//! * [`checks`] holds the checks of the rules about one file or path, one file per rule
//!   (`lg605_resize_artefacts.rs` beside `labelguard_core::rules::lg605_resize_artefacts`),
//!   called with plain data by the walker, the readers, the layouts and the analysis; a file
//!   the scan cannot use is a finding too ([`problem`]), so scan has one finding type,
//!   `labelguard_core::Finding`.
//! * [`pipeline`] runs the files in parallel over a bounded set of buffers (a panic becomes an
//!   LG620 finding through [`isolate`]); only files with findings are kept, so memory does not
//!   grow with clean files.
//! * [`report`] is the aggregate model: it folds the file results, runs the checks of the
//!   rules decided over the whole dataset (`report/dataset_checks/`, LG609-LG611 and LG615),
//!   proposes each finding's repair, serialises to the versioned JSON schema and merges shards
//!   back into exactly the report an unsharded scan gives; [`overlay`] is the picture it
//!   carries, and its PNG encoding.
//!
//! Imports run one way, down these layers: [`pipeline`]; [`report`]; [`analyze`]; [`layout`];
//! [`walk`] and [`read`]; [`source`]; [`config`] and [`checks`]; then the leaves, which import no other
//! module ([`problem`], [`hist`], [`colours`], [`weights`], [`glob`], [`progress`],
//! [`layout_kind`], [`isolate`], [`overlay`], [`bad_cell`], the limits). A module uses only the
//! layers below its own (`tests/module_layers.rs` holds this).

// Readers return their failure as the finding that reports it (one finding type, see
// `problem`); it is returned at most once per file, so its size (176 bytes) costs nothing.
#![allow(clippy::result_large_err)]

pub mod analyze;
pub mod bad_cell;
pub mod brace;
pub mod checks;
pub mod colours;
pub mod config;
#[cfg(any(test, feature = "test-fixtures"))]
pub mod fixtures;
pub mod formats;
pub mod framework;
pub mod glob;
pub mod hist;
pub mod isolate;
pub mod layout;
pub mod layout_kind;
mod limits;
pub mod nonblock;
pub mod overlay;
pub mod pipeline;
pub mod problem;
pub mod progress;
pub mod read;
pub mod report;
pub mod source;
pub mod walk;
pub mod weights;

pub use config::{ConfigFile, ScanOptions, Shard};
pub use labelguard_labels::{preset, Preset, PRESETS};
pub use pipeline::{scan, scan_roots};
pub use report::{merge, repair, ScanReport, SCHEMA_VERSION};
