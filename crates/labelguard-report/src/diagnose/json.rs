//! Diagnoses as one JSON document.

use crate::SCHEMA_VERSION;
use labelguard_diagnose::{Diagnosis, FirstFailure, LogReport, Outcome, SourceSummary};
use serde::Serialize;

#[derive(Serialize)]
struct JsonDoc<'a> {
    schema_version: u32,
    outcome: Outcome,
    findings: Vec<&'a Diagnosis>,
    logs: Vec<JsonLog<'a>>,
}

#[derive(Serialize)]
struct JsonLog<'a> {
    outcome: Outcome,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pytorch: &'a [String],
    inputs: &'a [SourceSummary],
    #[serde(skip_serializing_if = "Option::is_none")]
    first_failure: Option<&'a FirstFailure>,
    findings: usize,
}

/// The diagnoses as one JSON document: `schema_version`, `outcome`, `findings` (of every log,
/// each evidence line naming its source), and `logs` (per log: its outcome, what the wording
/// says about the PyTorch build, the bytes and lines read, the rank that failed first in a
/// multi-process job, and how many findings it has).
pub fn json(reports: &[LogReport]) -> String {
    let doc = JsonDoc {
        schema_version: SCHEMA_VERSION,
        outcome: reports
            .iter()
            .map(|r| r.outcome)
            .max()
            .unwrap_or(Outcome::NoError),
        findings: reports.iter().flat_map(|r| &r.findings).collect(),
        logs: reports
            .iter()
            .map(|r| JsonLog {
                outcome: r.outcome,
                pytorch: &r.pytorch,
                inputs: &r.inputs,
                first_failure: r.first_failure.as_ref(),
                findings: r.findings.len(),
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc).expect("diagnoses serialize")
}
