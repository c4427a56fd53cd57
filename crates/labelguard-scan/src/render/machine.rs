//! SARIF 2.1.0 (code scanning), JUnit XML (CI test reports) and GitHub Actions workflow
//! annotations.

use crate::report::{FindingRecord, ScanReport};
use labelguard_core::finding::shape_str;
use labelguard_core::rules::by_code;
use labelguard_core::Severity;
use labelguard_report::visible;
use serde_json::json;
use std::collections::BTreeMap;

fn full_text(f: &FindingRecord) -> String {
    // "message. Hint: ... Fix: ...", without doubling the hint's own final punctuation.
    let sentence = |s: &str| {
        if s.ends_with(['.', '?', '!']) {
            s.to_string()
        } else {
            format!("{s}.")
        }
    };
    let mut s = sentence(&f.message);
    if let Some(h) = &f.hint {
        s += &format!(" Hint: {}", sentence(h));
    }
    if !f.fix.is_empty() {
        s += &format!(" Fix: {}", sentence(&f.fix));
    }
    s
}

/// Percent-encodes what a URI reference may not hold (spaces, `%`, `#`, `?`, non-ASCII).
pub fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.trim_start_matches("./").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out += &format!("%{b:02X}");
        }
    }
    out
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
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut rules = Vec::new();
    for f in r.all_findings() {
        if index.contains_key(&f.code) {
            continue;
        }
        index.insert(f.code.clone(), rules.len());
        let rule = by_code(&f.code);
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
        .map(|f| {
            let path = visible(f.path.as_ref().unwrap_or(&root)).into_owned();
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
                "ruleIndex": index[&f.code],
                "level": level(f.severity),
                "message": {"text": visible(&full_text(f))},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&path)}}}],
                "properties": {
                    "verdict": f.verdict,
                    "count": f.count,
                    "elements": locs,
                    "datasetLevel": f.path.is_none(),
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

/// XML-escapes text and attribute values; control characters XML 1.0 forbids are dropped.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&apos;",
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML: one test case per file with findings (failing on errors), one for the dataset,
/// and one standing for all clean files, so that CI dashboards count the whole scan.
pub fn junit(r: &ScanReport) -> String {
    let mut cases = String::new();
    let mut failures = 0usize;
    let mut tests = 0usize;
    let mut case = |name: &str, findings: &[&FindingRecord]| {
        tests += 1;
        let errors: Vec<&&FindingRecord> = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        cases += &format!(
            "    <testcase classname=\"labelguard.scan\" name=\"{}\">\n",
            xml(&visible(name))
        );
        if !errors.is_empty() {
            failures += 1;
            let body: Vec<String> = errors
                .iter()
                .map(|f| format!("{} {}: {}", f.code, f.rule, full_text(f)))
                .collect();
            cases += &format!(
                "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                xml(&errors[0].code),
                xml(&visible(&errors[0].message)),
                xml(&body
                    .iter()
                    .map(|b| visible(b))
                    .collect::<Vec<_>>()
                    .join("\n"))
            );
        }
        let others: Vec<String> = findings
            .iter()
            .filter(|f| f.severity != Severity::Error)
            .map(|f| {
                format!(
                    "{} {} ({}): {}",
                    f.code,
                    f.rule,
                    f.severity.as_str(),
                    full_text(f)
                )
            })
            .collect();
        if !others.is_empty() {
            cases += &format!(
                "      <system-out>{}</system-out>\n",
                xml(&others
                    .iter()
                    .map(|o| visible(o))
                    .collect::<Vec<_>>()
                    .join("\n"))
            );
        }
        cases += "    </testcase>\n";
    };
    for f in &r.files {
        let v: Vec<&FindingRecord> = f.findings.iter().collect();
        case(&f.path, &v);
    }
    let dataset: Vec<&FindingRecord> = r.dataset.iter().collect();
    case("dataset", &dataset);
    let clean = r.summary.files_scanned.saturating_sub(r.files.len() as u64);
    case(&format!("{clean} files without findings"), &[]);
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"labelguard scan\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n  <testsuite name=\"labelguard scan\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n{cases}  </testsuite>\n</testsuites>\n"
    )
}

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
    for f in r.all_findings() {
        let cmd = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let file = f
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
    fn escapes() {
        assert_eq!(uri("./a b/c#1.png"), "a%20b/c%231.png");
        assert_eq!(uri("é"), "%C3%A9");
        assert_eq!(xml("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(gh_prop("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
