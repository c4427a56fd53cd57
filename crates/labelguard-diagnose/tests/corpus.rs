//! The fixture corpus: realistic logs of every era and style, each with its expected diagnosis
//! (tests/fixtures/logs/expected.toml).

use labelguard_diagnose::{diagnose_reader, Confidence, LogReport, Options, Outcome};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    file: String,
    op: Option<String>,
    code: Option<String>,
    confidence: Option<String>,
    outcome: String,
    #[serde(default)]
    also: Vec<String>,
    #[serde(default)]
    not: Vec<String>,
    user_frame: Option<String>,
    trusted: Option<bool>,
    count: Option<u64>,
    /// In a multi-process log: the rank that failed first, and the line that says so.
    first_rank: Option<u32>,
    first_line: Option<u64>,
}

#[derive(Deserialize)]
struct Expected {
    case: Vec<Case>,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/logs")
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(dir().join("expected.toml")).unwrap();
    toml::from_str::<Expected>(&text).unwrap().case
}

fn diagnose(file: &str) -> LogReport {
    let f = std::fs::File::open(dir().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    diagnose_reader(f, file, Options::default()).unwrap()
}

fn confidence(s: &str) -> Confidence {
    match s {
        "low" => Confidence::Low,
        "medium" => Confidence::Medium,
        "high" => Confidence::High,
        _ => panic!("confidence {s}"),
    }
}

fn outcome(s: &str) -> Outcome {
    match s {
        "no_error" => Outcome::NoError,
        "explained" => Outcome::Explained,
        "unexplained" => Outcome::Unexplained,
        _ => panic!("outcome {s}"),
    }
}

#[test]
fn every_fixture_has_an_expectation_and_there_are_enough() {
    let mut listed: Vec<String> = cases().into_iter().map(|c| c.file).collect();
    listed.sort();
    let mut logs: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".log"))
        .collect();
    logs.sort();
    assert_eq!(listed, logs);
    assert!(logs.len() >= 40, "{} fixtures", logs.len());
}

/// The judged numbers: at least 95% of (op, code) right, and no wrong answer given with
/// medium or high confidence.
#[test]
fn op_and_code_accuracy_with_no_confident_wrong_answer() {
    let cases = cases();
    let mut right = 0;
    let mut report = String::new();
    let mut confident_wrong = Vec::new();
    for c in &cases {
        let r = diagnose(&c.file);
        let first = r.findings.first();
        let got = first.map(|d| (d.op.as_str(), d.finding.code));
        let want = c.op.as_deref().zip(c.code.as_deref());
        if got == want {
            right += 1;
        } else {
            report += &format!("{}: want {want:?}, got {got:?}\n", c.file);
            if first.is_some_and(|d| d.confidence >= Confidence::Medium) {
                confident_wrong.push(c.file.clone());
            }
        }
    }
    let accuracy = right as f64 / cases.len() as f64;
    eprintln!(
        "corpus: {right}/{} right ({:.1}%)",
        cases.len(),
        100.0 * accuracy
    );
    assert!(
        confident_wrong.is_empty(),
        "confident wrong answers: {confident_wrong:?}\n{report}"
    );
    assert!(accuracy >= 0.95, "{report}");
    assert_eq!(right, cases.len(), "{report}");
}

#[test]
fn every_expectation_of_every_fixture_holds() {
    let mut failures = String::new();
    for c in cases() {
        let r = diagnose(&c.file);
        let mut fail = |what: String| failures += &format!("{}: {what}\n", c.file);
        if r.outcome != outcome(&c.outcome) {
            fail(format!("outcome {:?}, want {}", r.outcome, c.outcome));
        }
        let first = r.first_failure.as_ref();
        let first = (
            first.map(|f| f.rank),
            first.and_then(|f| f.evidence.as_ref()).map(|e| e.line),
        );
        if (c.first_rank, c.first_line) != (first.0, c.first_line.and(first.1)) {
            fail(format!(
                "first failure {first:?}, want rank {:?} at line {:?}",
                c.first_rank, c.first_line
            ));
        }
        let codes: Vec<&str> = r.findings.iter().map(|d| d.finding.code).collect();
        for a in &c.also {
            if !codes.contains(&a.as_str()) {
                fail(format!("no {a} among {codes:?}"));
            }
        }
        for n in &c.not {
            if codes.contains(&n.as_str()) {
                fail(format!("unexpected {n} among {codes:?}"));
            }
        }
        let Some(d) = r.findings.first() else {
            if c.op.is_some() {
                fail("no finding".into());
            }
            continue;
        };
        if let Some(want) = &c.confidence {
            if d.confidence != confidence(want) {
                fail(format!("confidence {:?}, want {want}", d.confidence));
            }
        }
        if let Some(want) = c.count {
            if d.count != want {
                fail(format!("count {}, want {want}", d.count));
            }
        }
        if let Some(want) = &c.user_frame {
            let got = d
                .user_frame
                .as_ref()
                .map(|u| format!("{}:{}", u.frame.file, u.frame.line.unwrap_or(0)));
            if got.as_deref() != Some(want.as_str()) {
                fail(format!("user frame {got:?}, want {want}"));
            }
        }
        if let Some(want) = c.trusted {
            let got = d.user_frame.as_ref().map(|u| u.trusted);
            if got != Some(want) {
                fail(format!("trusted {got:?}, want {want}"));
            }
        }
        if d.evidence.is_empty() {
            fail("no evidence".into());
        }
        for e in &d.evidence {
            if e.line == 0 || e.text.is_empty() {
                fail(format!("bad evidence {e:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "\n{failures}");
}
