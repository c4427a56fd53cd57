//! The summary of a finalized report: its totals, its status and how often each rule fired,
//! counted from its files and dataset findings.

use labelguard_core::rules::by_code;
use labelguard_core::Severity;
use labelguard_scan_model::{RuleCount, ScanReport};
use std::collections::{BTreeMap, BTreeSet};

/// Recounts the summary and the per-rule counts from the findings.
pub(crate) fn summarize(report: &mut ScanReport) {
    let unchecked = report.unchecked();
    let s = &mut report.summary;
    s.errors = 0;
    s.warnings = 0;
    s.infos = 0;
    s.files_with_errors = 0;
    s.files_with_warnings = 0;
    let mut rules: BTreeMap<String, (u64, BTreeSet<String>, Severity)> = BTreeMap::new();
    // Dataset findings name their dataset in `path` when a scan holds several: they are
    // still not files.
    let all = report
        .files
        .iter()
        .flat_map(|f| f.findings.iter().map(|x| (x, true)))
        .chain(report.dataset.iter().map(|x| (x, false)));
    for (x, in_file) in all {
        let f = &x.finding;
        match f.severity {
            Severity::Error => s.errors += 1,
            Severity::Warning => s.warnings += 1,
            Severity::Info => s.infos += 1,
        }
        let e = rules
            .entry(f.code.to_string())
            .or_insert((0, BTreeSet::new(), f.severity));
        e.0 += 1;
        e.2 = e.2.max(f.severity);
        if let (true, Some(p)) = (in_file, &x.path) {
            e.1.insert(p.clone());
        }
    }
    for f in &report.files {
        match f.worst() {
            Some(Severity::Error) => s.files_with_errors += 1,
            Some(Severity::Warning) => s.files_with_warnings += 1,
            _ => {}
        }
    }
    s.status = if s.errors > 0 {
        "errors"
    } else if unchecked {
        "unchecked"
    } else if s.warnings > 0 {
        "warnings"
    } else {
        "ok"
    }
    .to_string();
    report.rules = rules
        .into_iter()
        .map(|(code, (n, files, sev))| {
            let rule = by_code(&code);
            RuleCount {
                name: rule.map(|r| r.name.to_string()).unwrap_or_default(),
                summary: rule.map(|r| r.summary().to_string()).unwrap_or_default(),
                code,
                severity: sev,
                findings: n,
                files: files.len() as u64,
            }
        })
        .collect();
}
