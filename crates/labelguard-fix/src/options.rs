//! What one fix run is asked to do (read by the run and echoed in its report).

use crate::plan::Plan;
use labelguard_scan::config::ScanOptions;
use std::path::PathBuf;

/// Everything a run needs.
pub struct FixOptions {
    pub input: PathBuf,
    pub out: PathBuf,
    pub scan: ScanOptions,
    pub plan: Plan,
    pub dry_run: bool,
    pub fill_artefacts: bool,
    /// Exit 1 when the re-scan finds any error, not only one of the repaired kinds.
    pub strict: bool,
}
