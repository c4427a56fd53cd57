//! GitHub Actions workflow commands: `::error file=...,title=...::message`, one per finding.

use super::sentence::full_text;
use crate::visible;
use labelguard_core::Severity;
use labelguard_scan_model::ScanReport;

fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn gh_prop(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: `::error file=...,title=...::message`.
pub fn github(r: &ScanReport) -> String {
    let mut out = String::new();
    for x in r.all_findings() {
        let f = &x.finding;
        let cmd = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let file = x
            .path
            .as_ref()
            .map(|p| format!("file={},", gh_prop(&visible(p.trim_start_matches("./")))))
            .unwrap_or_default();
        out += &format!(
            "::{cmd} {file}title={}::{}\n",
            gh_prop(&format!("{} {}", f.code, f.rule)),
            gh_data(&visible(&full_text(f)))
        );
    }
    let s = &r.summary;
    out += &format!(
        "labelguard scan: {}: {} errors, {} warnings in {} of {} files\n",
        s.status,
        s.errors,
        s.warnings,
        r.files.len(),
        s.files_scanned
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_are_escaped() {
        assert_eq!(gh_prop("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
