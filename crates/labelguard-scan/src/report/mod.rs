//! The aggregate report of a scan, and its JSON schema.
//!
//! One type serves three purposes: the accumulator the parallel pipeline folds file results
//! into, the JSON document (`--format json`, schema `labelguard-scan-report` version
//! [`SCHEMA_VERSION`], described in `schema/scan-report.schema.json`), and the input of
//! `labelguard merge`. Everything that can be summed (files, histogram rows, counters) is
//! stored raw; everything derived (summary, per-rule counts, dataset-level findings, class
//! fractions, weight suggestions) is recomputed by [`ScanReport::finalize`]. So merging the
//! shards of a scan and finalizing gives exactly the report of the unsharded scan.
//!
//! [`model`] holds the model; the jobs done on it have a file each: [`fold`] (file results
//! and shard reports added in), [`finalize`] (everything derived; the dataset rules
//! LG609-LG611 and LG615 are decided by their checks in [`dataset_checks`], one file per
//! rule), [`parts`] (a scan of several datasets summed up), [`repair`] (the repair each finding
//! proposes) and [`merge`] (the shards of a scan into one report).

pub mod dataset_checks;
mod finalize;
mod finding;
mod fold;
mod merge;
mod model;
mod parts;
pub mod repair;

pub use finding::ScanFinding;
pub use merge::{merge, MergeError};
pub use model::{
    ClassRow, FileRecord, Histogram, RuleCount, ScanReport, Settings, SplitCount, Summary, Tool,
    Weights, MAX_OVERLAYS, SCHEMA_NAME, SCHEMA_VERSION,
};
