//! JUnit XML, for CI test reports: one test case per file with findings (failing on errors),
//! one for the dataset, and one standing for all clean files. Written with quick-xml, which
//! escapes every attribute value and text.

use super::sentence::full_text;
use crate::visible;
use labelguard_core::Finding;
use labelguard_core::Severity;
use labelguard_scan_model::{ScanFinding, ScanReport};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use quick_xml::Writer;

/// Text as XML 1.0 may hold it: input-derived text is made visible (no control characters)
/// and the two non-characters XML forbids are dropped.
fn xml_text(s: &str) -> String {
    visible(s)
        .chars()
        .filter(|c| !matches!(c, '\u{fffe}' | '\u{ffff}'))
        .collect()
}

/// One test case: a failure when the file has errors, its other findings as output.
struct Case {
    name: String,
    /// The first error's code and message, and every error as a line.
    failure: Option<(String, String, String)>,
    output: Option<String>,
}

impl Case {
    fn new(name: &str, findings: &[ScanFinding]) -> Case {
        let (errors, others): (Vec<&Finding>, Vec<&Finding>) = findings
            .iter()
            .map(|x| &x.finding)
            .partition(|f| f.severity == Severity::Error);
        let failure = errors.first().map(|first| {
            let body: Vec<String> = errors
                .iter()
                .map(|f| xml_text(&format!("{} {}: {}", f.code, f.rule, full_text(f))))
                .collect();
            (
                first.code.to_string(),
                xml_text(&first.message),
                body.join("\n"),
            )
        });
        let output: Vec<String> = others
            .iter()
            .map(|f| {
                let sev = f.severity.as_str();
                xml_text(&format!("{} {} ({sev}): {}", f.code, f.rule, full_text(f)))
            })
            .collect();
        Case {
            name: xml_text(name),
            failure,
            output: (!output.is_empty()).then(|| output.join("\n")),
        }
    }

    fn write(&self, w: &mut Writer<Vec<u8>>) -> std::io::Result<()> {
        let case = BytesStart::new("testcase").with_attributes([
            ("classname", "labelguard.scan"),
            ("name", self.name.as_str()),
        ]);
        w.write_event(Event::Start(case))?;
        if let Some((kind, message, body)) = &self.failure {
            w.create_element("failure")
                .with_attributes([("type", kind.as_str()), ("message", message.as_str())])
                .write_text_content(BytesText::new(body))?;
        }
        if let Some(out) = &self.output {
            w.create_element("system-out")
                .write_text_content(BytesText::new(out))?;
        }
        w.write_event(Event::End(BytesEnd::new("testcase")))
    }
}

/// JUnit XML: one test case per file with findings (failing on errors), one for the dataset,
/// and one standing for all clean files, so that CI dashboards count the whole scan.
pub fn junit(r: &ScanReport) -> String {
    let mut cases: Vec<Case> = r
        .files
        .iter()
        .map(|f| Case::new(&f.path, &f.findings))
        .collect();
    cases.push(Case::new("dataset", &r.dataset));
    let clean = r.summary.files_scanned.saturating_sub(r.files.len() as u64);
    cases.push(Case::new(&format!("{clean} files without findings"), &[]));
    let tests = cases.len().to_string();
    let failures = cases
        .iter()
        .filter(|c| c.failure.is_some())
        .count()
        .to_string();
    let counts = [
        ("tests", tests.as_str()),
        ("failures", failures.as_str()),
        ("errors", "0"),
    ];
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let written: std::io::Result<()> = (|| {
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
        let suites = BytesStart::new("testsuites")
            .with_attributes([("name", "labelguard scan")])
            .with_attributes(counts);
        w.write_event(Event::Start(suites))?;
        let suite = BytesStart::new("testsuite")
            .with_attributes([("name", "labelguard scan")])
            .with_attributes(counts)
            .with_attributes([("skipped", "0")]);
        w.write_event(Event::Start(suite))?;
        for case in &cases {
            case.write(&mut w)?;
        }
        w.write_event(Event::End(BytesEnd::new("testsuite")))?;
        w.write_event(Event::End(BytesEnd::new("testsuites")))
    })();
    written.expect("writing to memory does not fail");
    String::from_utf8(w.into_inner()).expect("the XML is built from strings") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_holds_only_what_xml_allows() {
        assert_eq!(xml_text("a<b\u{1}\u{fffe}\n"), "a<b\\x01\\n");
    }
}
