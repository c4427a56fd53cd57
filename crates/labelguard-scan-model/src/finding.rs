//! One finding of a scan: core's [`Finding`], with the file it is about and the repair
//! `labelguard fix` would apply (as diagnose's `Diagnosis` wraps a finding with its context).

use labelguard_core::finding::{Fact, ValueCount};
use labelguard_core::{Finding, Location, Severity, Verdict};
use labelguard_labels::repair::Repair;
use serde::{Deserialize, Serialize, Serializer};

/// One finding, self-contained (it repeats its file's path).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ScanFinding {
    /// The file, or `null` for a finding about the whole dataset.
    pub path: Option<String>,
    #[serde(flatten)]
    pub finding: Finding,
    /// The repair `labelguard fix` would apply, when the rule has one.
    #[serde(default)]
    pub repair: Option<Repair>,
}

impl ScanFinding {
    /// A finding about the file `path` (as the report shows it).
    pub fn in_file(path: &str, finding: Finding) -> ScanFinding {
        ScanFinding {
            path: Some(path.to_string()),
            finding,
            repair: None,
        }
    }

    /// A finding about the whole dataset.
    pub fn about_dataset(finding: Finding) -> ScanFinding {
        ScanFinding {
            path: None,
            finding,
            repair: None,
        }
    }
}

/// The scan report's wire form of a finding (schema `labelguard-scan-report` v1): the path
/// first, then the finding's fields with `count` and `values` always present (`null`, `[]`),
/// then the repair when there is one. A check's JSON leaves those two out when empty, so the
/// finding cannot simply be flattened in.
#[derive(Serialize)]
struct Written<'a> {
    path: &'a Option<String>,
    code: &'a str,
    rule: &'a str,
    severity: Severity,
    verdict: Verdict,
    message: &'a str,
    hint: &'a Option<String>,
    fix: &'a str,
    locations: &'a [Location],
    count: Option<u64>,
    values: &'a [ValueCount],
    #[serde(skip_serializing_if = "Option::is_none")]
    fact: Option<Fact>,
    #[serde(skip_serializing_if = "Option::is_none")]
    repair: &'a Option<Repair>,
}

impl Serialize for ScanFinding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = &self.finding;
        Written {
            path: &self.path,
            code: f.code,
            rule: f.rule,
            severity: f.severity,
            verdict: f.verdict,
            message: &f.message,
            hint: &f.hint,
            fix: &f.fix,
            locations: &f.locations,
            count: f.count,
            values: &f.values,
            fact: f.fact,
            repair: &self.repair,
        }
        .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use labelguard_core::rules::LG101;

    #[test]
    fn round_trips_in_the_scan_report_form() {
        let mut f = ScanFinding::in_file(
            "a.png",
            Finding::new(&LG101, Verdict::DeviceAssert, "id 255").at("target", vec![0, 1], "255"),
        );
        let json = serde_json::to_string(&f).unwrap();
        assert!(
            json.starts_with(r#"{"path":"a.png","code":"LG101","rule":"#),
            "{json}"
        );
        assert!(json.ends_with(r#""count":null,"values":[]}"#), "{json}");
        assert_eq!(serde_json::from_str::<ScanFinding>(&json).unwrap(), f);
        f.path = None;
        f.finding.count = Some(3);
        let json = serde_json::to_string(&f).unwrap();
        assert!(json.starts_with(r#"{"path":null,"#) && json.contains(r#""count":3"#));
        assert_eq!(serde_json::from_str::<ScanFinding>(&json).unwrap(), f);
    }

    #[test]
    fn an_unknown_rule_is_a_clear_error() {
        let json = r#"{"path":null,"code":"LG999","rule":"x","severity":"error","verdict":"error","message":"m","hint":null,"fix":"","locations":[],"count":null,"values":[]}"#;
        let e = serde_json::from_str::<ScanFinding>(json).unwrap_err();
        assert!(e.to_string().contains("unknown rule code 'LG999'"), "{e}");
    }

    #[test]
    fn the_fact_that_chooses_a_repair_survives_a_round_trip() {
        // A merged shard is read back and finalised again: LG606's repair must not be lost.
        use labelguard_core::finding::Fact;
        use labelguard_core::rules::LG606;
        let f = ScanFinding::in_file(
            "a.png",
            Finding::new(&LG606, Verdict::Error, "m").fact(Fact::EqualChannels),
        );
        let json = serde_json::to_string(&f).unwrap();
        assert!(json.contains(r#""fact":"equal_channels""#), "{json}");
        let back: ScanFinding = serde_json::from_str(&json).unwrap();
        assert_eq!(back.finding.fact, Some(Fact::EqualChannels));
        let plain = ScanFinding::in_file("a.png", Finding::new(&LG606, Verdict::Error, "m"));
        assert!(!serde_json::to_string(&plain).unwrap().contains("fact"));
    }
}
