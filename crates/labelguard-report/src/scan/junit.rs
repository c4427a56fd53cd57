//! JUnit XML, for CI test reports: one test case per file with findings (failing on errors),
//! one for the dataset, and one standing for all clean files.

use super::sentence::full_text;
use crate::visible;
use labelguard_core::Severity;
use labelguard_scan::report::{FindingRecord, ScanReport};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_is_escaped() {
        assert_eq!(xml("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
