//! A checked call as a JSON document.

use crate::SCHEMA_VERSION;
use labelguard_core::Report;
use serde::Serialize;

#[derive(Serialize)]
struct JsonReport<'a> {
    schema_version: u32,
    #[serde(flatten)]
    report: &'a Report,
}

/// A report as a JSON document: `schema_version`, `op`, `verdict`, `findings`.
pub fn json(r: &Report) -> String {
    serde_json::to_string_pretty(&JsonReport {
        schema_version: SCHEMA_VERSION,
        report: r,
    })
    .expect("reports serialize")
}
