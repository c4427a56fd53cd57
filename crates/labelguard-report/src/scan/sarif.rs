//! SARIF 2.1.0, for code scanning: one result per finding; dataset findings are placed on the
//! scanned root.

use super::sentence::full_text;
use crate::visible;
use labelguard_core::finding::shape_str;
use labelguard_core::rules::by_code;
use labelguard_core::Severity;
use labelguard_scan_model::ScanReport;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::json;
use std::collections::BTreeMap;

/// What a SARIF `artifactLocation.uri` (a URI reference, RFC 3986) keeps as it is: the
/// unreserved characters, the sub-delimiters, `/`, `:` and `@`. Everything else (spaces, `%`,
/// `#`, `?`, non-ASCII bytes) is percent-encoded.
const URI_ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b':')
    .remove(b'@');

/// A path as a relative URI reference.
fn uri(path: &str) -> String {
    utf8_percent_encode(path.trim_start_matches("./"), URI_ESCAPED).to_string()
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// SARIF 2.1.0: one result per finding; dataset findings are placed on the scanned root.
pub fn sarif(r: &ScanReport) -> String {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rules = Vec::new();
    for f in r.all_findings().map(|x| &x.finding) {
        if index.contains_key(f.code) {
            continue;
        }
        index.insert(f.code, rules.len());
        let rule = by_code(f.code);
        let doc = rule.map(|r| r.documentation()).unwrap_or_default();
        rules.push(json!({
            "id": f.code,
            "name": f.rule,
            "shortDescription": {"text": rule.map(|r| r.summary()).unwrap_or("")},
            "fullDescription": {"text": doc},
            "help": {"text": doc, "markdown": doc},
            "defaultConfiguration": {"level": level(rule.map(|r| r.severity).unwrap_or(f.severity))},
            "properties": {"tags": ["labels", "pytorch"]},
        }));
    }
    let root = r
        .settings
        .roots
        .first()
        .cloned()
        .unwrap_or_else(|| ".".into());
    let results: Vec<serde_json::Value> = r
        .all_findings()
        .map(|x| {
            let f = &x.finding;
            let path = visible(x.path.as_ref().unwrap_or(&root)).into_owned();
            let locs: Vec<String> = f
                .locations
                .iter()
                .map(|l| {
                    let (tensor, value) = (visible(&l.tensor), visible(&l.value));
                    format!("{tensor}{} = {value}", shape_str(&l.index))
                })
                .collect();
            json!({
                "ruleId": f.code,
                "ruleIndex": index[f.code],
                "level": level(f.severity),
                "message": {"text": visible(&full_text(f))},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&path)}}}],
                "properties": {
                    "verdict": f.verdict,
                    "count": f.count,
                    "elements": locs,
                    "datasetLevel": x.path.is_none(),
                },
            })
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "labelguard",
                "version": r.tool.version,
                "informationUri": "https://example.invalid/labelguard",
                "rules": rules,
            }},
            "results": results,
            "properties": {"summary": r.summary},
        }],
    });
    serde_json::to_string_pretty(&doc).expect("SARIF serializes") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(uri("./a b/c#1.png"), "a%20b/c%231.png");
        assert_eq!(uri("é"), "%C3%A9");
        assert_eq!(uri("a%b?c[d]\"e"), "a%25b%3Fc%5Bd%5D%22e");
        assert_eq!(uri("-._~/!$&'()*+,;=:@"), "-._~/!$&'()*+,;=:@");
    }
}
