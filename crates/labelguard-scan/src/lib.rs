//! `labelguard scan`: check a whole dataset on disk before training.
//!
//! Data flows one way, as everywhere in labelguard:
//!
//! ```text
//! paths ──walk──▶ entries ──layout──▶ items ──(rayon, per file)──▶ read ──▶ tensor view
//!   ──▶ core's class-id analysis + the LG6xx checks ──▶ FileResult ──fold──▶ Aggregate
//!   ──finalize──▶ ScanReport ──▶ renderers (text, JSON, SARIF, JUnit, GitHub, HTML)
//! ```
//!
//! * [`walk`] lists files without following loops or opening FIFOs; [`layout`] recognises
//!   Cityscapes, Pascal VOC, ADE20K, `images/` + `masks/`, ImageFolder and custom pairings.
//! * [`read`] decodes masks (PNG with palette indices kept, TIFF), arrays (via
//!   `labelguard-io`), label tables (CSV/TSV, JSONL, Parquet) and image headers, each with
//!   hard limits checked before anything is allocated.
//! * [`analyze`] turns one decoded file into findings and a class histogram, reusing
//!   `labelguard_core::class_ids` for every class-id verdict.
//! * [`pipeline`] runs the files in parallel over a bounded set of buffers; only files with
//!   findings are kept, so memory does not grow with clean files.
//! * [`report`] is the aggregate model: it serialises to the versioned JSON schema and merges
//!   shards back into exactly the report an unsharded scan gives.

pub mod analyze;
mod binary;
pub mod colours;
pub mod config;
mod datasets;
#[doc(hidden)]
pub mod fixtures;
pub mod glob;
pub mod hist;
pub mod isolate;
pub mod layout;
mod parts;
pub mod pipeline;
pub mod progress;
pub mod read;
pub mod render;
pub mod repair;
pub mod report;
pub mod walk;
pub mod weights;

pub use config::{ConfigFile, ScanOptions, Shard};
pub use labelguard_labels::{preset, Preset, PRESETS};
pub use pipeline::scan;
pub use report::{merge, ScanReport, SCHEMA_VERSION};
