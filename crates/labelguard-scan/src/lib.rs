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
//! * `labelguard_formats` lists the files (its walker, without following loops or opening
//!   FIFOs), says where an item's bytes come from (its `Source`: a file, a member of a tar
//!   shard, an object in a bucket) and reads them (its readers: masks, arrays, label tables,
//!   image headers, annotations, tokens), with the hard limits checked before anything is
//!   allocated.
//! * [`layout`] recognises the dataset layouts (Cityscapes, Pascal VOC, COCO, YOLO, model
//!   folders, token data, WebDataset, ImageFolder and the others that `scan --help` lists), one
//!   file per layout, listed once in order of precedence (`LAYOUTS` in `layout/mod.rs`); a
//!   kind is the name its layout declares ([`layout_kind`], a leaf shared with [`config`]).
//! * [`analyze`] turns one decoded file into findings, a class histogram ([`hist`]) and, when
//!   asked, an overlay's pixels; one file per kind of input, reusing
//!   `labelguard_core::class_ids` for every class-id verdict.
//! * [`checks`] holds the checks of the rules about one file or path, one file per rule
//!   (`lg605_resize_artefacts.rs` beside `labelguard_core::rules::lg605_resize_artefacts`),
//!   called with plain data by the walker, the readers, the layouts and the analysis; a file
//!   the scan cannot use is a finding too (`labelguard_formats::problem`), so scan has one finding type,
//!   `labelguard_core::Finding`.
//! * [`pipeline`] runs the files in parallel over a bounded set of buffers (a panic becomes an
//!   LG620 finding through `labelguard_formats::isolate`); only files with findings are kept, so memory does not
//!   grow with clean files.
//! * [`report`] is the aggregate model: it folds the file results, runs the checks of the
//!   rules decided over the whole dataset (`report/dataset_checks/`, LG609-LG611 and LG615),
//!   proposes each finding's repair, serialises to the versioned JSON schema and merges shards
//!   back into exactly the report an unsharded scan gives; [`overlay`] is the picture it
//!   carries, and its PNG encoding.
//!
//! Imports run one way, down these layers: [`pipeline`]; [`report`]; [`analyze`]; [`layout`];
//! [`config`] and [`checks`]; then the leaves, which import no other module ([`hist`],
//! [`colours`], [`weights`], [`progress`], [`layout_kind`], [`overlay`], [`framework`], the
//! limits). A module uses only the layers below its own (`tests/module_layers.rs` holds this).

// Readers return their failure as the finding that reports it (one finding type, see
// `labelguard_formats::problem`); it is returned at most once per file, so its size (176 bytes) costs nothing.
#![allow(clippy::result_large_err)]

pub mod analyze;
pub mod checks;
pub mod colours;
pub mod config;
pub mod framework;
pub mod hist;
pub mod layout;
pub mod layout_kind;
mod limits;
pub mod overlay;
pub mod pipeline;
pub mod progress;
pub mod report;
pub mod weights;

pub use config::{ConfigFile, ScanOptions, Shard};
pub use labelguard_labels::{preset, Preset, PRESETS};
pub use pipeline::{scan, scan_roots};
pub use report::{merge, repair, ScanReport, SCHEMA_VERSION};
