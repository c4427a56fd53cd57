//! The scan report as its JSON document (`--format json`, the input of `labelguard merge`):
//! schema `labelguard-scan-report`, described in `schema/scan-report.schema.json`.

use labelguard_scan_model::ScanReport;

/// The document for `--format json`.
pub fn json(r: &ScanReport) -> String {
    serde_json::to_string_pretty(r).expect("reports serialize") + "\n"
}
