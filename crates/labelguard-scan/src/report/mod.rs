//! The aggregate report of a scan, and its JSON schema.
//!
//! One type serves three purposes: the accumulator the parallel pipeline folds file results
//! into, the JSON document (`--format json`, schema `labelguard-scan-report` version
//! [`SCHEMA_VERSION`], described in `schema/scan-report.schema.json`), and the input of
//! `labelguard merge`. Everything that can be summed (files, histogram rows, counters) is
//! stored raw; everything derived (summary, per-rule counts, dataset-level findings, class
//! fractions, weight suggestions) is recomputed by [`finalize()`]. So merging the
//! shards of a scan and finalizing gives exactly the report of the unsharded scan.
//!
//! The model (the report's types and their JSON form) is the crate `labelguard-scan-model`,
//! re-exported here, so that rendering a report does not compile the scan; the jobs done on
//! it have a file each here: [`fold`] (file results and shard reports added in),
//! [`settings`] (the settings a report records, from the scan's options), [`finalize`]
//! (everything derived; the dataset rules
//! LG609-LG611 and LG615 are decided by their checks in [`dataset_checks`], one file per
//! rule), [`parts`] (a scan of several datasets summed up), [`repair`] (the repair each finding
//! proposes) and [`merge`] (the shards of a scan into one report).

mod background;
pub mod dataset_checks;
mod finalize;
mod fold;
mod merge;
mod parts;
pub mod repair;
pub mod settings;
mod summary;

pub use finalize::finalize;
pub use fold::{absorb, add_result};
pub use labelguard_scan_model::ScanFinding;
pub use labelguard_scan_model::{
    ClassRow, FileRecord, Histogram, RuleCount, ScanReport, Settings, SplitCount, Summary, Tool,
    Weights, MAX_OVERLAYS, SCHEMA_NAME, SCHEMA_VERSION,
};
pub use merge::{merge, MergeError};
pub use settings::settings_of;
