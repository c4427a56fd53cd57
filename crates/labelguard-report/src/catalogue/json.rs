//! The rules as JSON, for tools.

use labelguard_core::Rule;

/// The rules as JSON, for tools.
pub fn json(rules: &[Rule]) -> String {
    let list: Vec<serde_json::Value> = rules
        .iter()
        .map(|r| {
            serde_json::json!({
                "code": r.code, "name": r.name, "severity": r.severity,
                "summary": r.summary(), "documentation": r.documentation(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).expect("rules serialize")
}
