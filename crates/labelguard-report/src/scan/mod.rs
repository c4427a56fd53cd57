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

/// Standard base64 (RFC 4648) with padding, for the pictures embedded in the HTML report.
pub fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
