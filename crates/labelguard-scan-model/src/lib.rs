//! The model of a scan report: the data `labelguard scan` builds and `labelguard-report`
//! renders, in a crate of its own so that rendering a report compiles neither the readers
//! (`labelguard-formats`, Parquet, the image decoders) nor the scan.
//!
//! * [`model`]: the report ([`ScanReport`]) and its parts, the JSON document of schema
//!   [`SCHEMA_NAME`] version [`SCHEMA_VERSION`] (`schema/scan-report.schema.json`), and the
//!   questions renderers ask of it (its worst files, every finding, whether ids were checked);
//! * [`finding`]: one finding with its file and repair ([`ScanFinding`]), in the report's wire form;
//! * [`layout_kind`]: a dataset's layout kind, by the name its layout declares in the scan;
//! * [`parts`]: the small types the report holds whose work is the scan's: the kind of a file
//!   ([`FileKind`]), detection object counts ([`ObjectStats`]), a shard ([`Shard`]) and the
//!   weight methods ([`Method`], [`Suggestion`]).
//!
//! Building the report (folding file results, finalizing, merging shards) is the scan's
//! (`labelguard_scan::report`), which re-exports these types under their old paths.

pub mod finding;
pub mod layout_kind;
pub mod model;
pub mod parts;

pub use finding::ScanFinding;
pub use layout_kind::LayoutKind;
pub use model::{
    ClassRow, FileRecord, Histogram, RuleCount, ScanReport, Settings, SplitCount, Summary, Tool,
    Weights, MAX_OVERLAYS, SCHEMA_NAME, SCHEMA_VERSION,
};
pub use parts::{FileKind, Method, ObjectStats, Shard, Suggestion, TokenStats, Vocabulary};
