//! Renderers of a scan report: text for people, JSON / SARIF / JUnit / GitHub annotations for
//! machines, and a self-contained HTML page. They only read the report.

pub mod html;
pub mod machine;
pub mod text;

use crate::report::{FindingRecord, ScanReport};
use labelguard_core::finding::ValueCount;
use labelguard_core::{Finding, Location};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
    Junit,
    Github,
}

/// The report in `format`.
pub fn render(report: &ScanReport, format: Format, style: labelguard_report::Style) -> String {
    match format {
        Format::Text => text::render(report, style),
        Format::Json => report.to_json(),
        Format::Sarif => machine::sarif(report),
        Format::Junit => machine::junit(report),
        Format::Github => machine::github(report),
    }
}

/// A record as a core finding, so that the shared text renderer prints it like `check` does.
pub fn to_finding(r: &FindingRecord) -> Finding {
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

pub use labelguard_report::thousands;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }
}
