//! The report of a dataset scan (`labelguard scan`, `labelguard merge`): text for people, JSON /
//! SARIF / JUnit / GitHub annotations for machines, and a self-contained HTML page.

mod github;
mod html;
mod json;
mod junit;
mod sarif;
mod sentence;
mod text;

pub use github::github;
pub use html::html;
pub use json::json;
pub use junit::junit;
pub use sarif::sarif;
pub use text::text;

use labelguard_core::finding::ValueCount;
use labelguard_core::{Finding, Location};
use labelguard_scan::report::FindingRecord;

/// A record as a core finding, so that the shared text renderer prints it like `check` does.
pub(crate) fn to_finding(r: &FindingRecord) -> Finding {
    let (code, name) = match r.rule_info() {
        Some(rule) => (rule.code, rule.name),
        None => ("LG???", "unknown-rule"),
    };
    Finding {
        code,
        rule: name,
        severity: r.severity,
        verdict: r.verdict,
        message: r.message.clone(),
        hint: r.hint.clone(),
        fix: r.fix.clone(),
        locations: r
            .locations
            .iter()
            .map(|l| Location {
                tensor: l.tensor.clone(),
                index: l.index.clone(),
                value: l.value.clone(),
            })
            .collect(),
        count: r.count,
        values: r
            .values
            .iter()
            .map(|v| ValueCount {
                value: v.value.clone(),
                count: v.count,
            })
            .collect(),
    }
}
