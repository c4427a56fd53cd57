//! `labelguard fix`: repairs a dataset into a new directory from the scan's findings or a plan.
//!
//! ```text
//! scan findings / plan file / --map ──plan──▶ repairs per file
//! input tree ──walk──▶ (rayon, per file) read ──▶ rewrite (decode, map, encode) or copy
//!   ──▶ atomic write (temp + rename) ──▶ journal line ──▶ manifest ──▶ re-scan of the output
//! ```
//!
//! * [`plan`]: which repairs each file gets; the repair tables themselves are
//!   `labelguard_labels::repair`, shared with the scan report and the Python package.
//! * [`mapping`]: value tables composed, applied, and counted per value.
//! * [`rewrite`]: one file's repair (PNG with its bit depth and palette kept, `.npy` with its
//!   dtype kept); [`png_out`] writes PNGs; [`majority`] is the opt-in artefact fill.
//! * [`atomic`], [`journal`], [`hash`]: whole-file writes, resume, the manifest.
//! * [`run`] drives it with [`options`]; [`summary`] is what it reports.
//!
//! Detection labels ([`detection`]): a COCO file's category ids made contiguous by a byte-level
//! rewrite ([`coco`]), a YOLO tree's class ids remapped by a table ([`yolo`]), with the same
//! safety (new output, atomic writes, journal, read-back).
//!
//! The input is only ever opened for reading. Files that need no repair are copied (not
//! linked: a later in-place edit of the output must not reach the original).

pub mod atomic;
pub mod coco;
pub mod detection;
mod evidence;
pub mod hash;
pub mod journal;
pub mod majority;
pub mod mapping;
pub mod options;
pub mod plan;
pub mod png_out;
pub mod rewrite;
pub mod run;
pub mod summary;
pub mod yolo;

pub use detection::{run_detection, DetectionFix, DetectionOptions, DetectionReport};
pub use options::FixOptions;
pub use plan::{parse_map, Plan};
pub use run::{run, FixError};
pub use summary::FixReport;
