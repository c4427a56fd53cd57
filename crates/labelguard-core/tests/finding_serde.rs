//! Findings read back: what `Finding`'s serialisation writes, its deserialisation reads into an
//! equal finding, for every rule of the catalogue and for findings with a detailed pass's
//! evidence; unknown rules are refused with a message that names them.

mod calls;

use calls::*;
use labelguard_core::finding::ValueCount;
use labelguard_core::{rules, Finding, Severity, Verdict};

fn round_trip(f: &Finding) -> Finding {
    let json = serde_json::to_string(f).unwrap();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json} did not read back: {e}"))
}

#[test]
fn every_rule_reads_back() {
    for rule in rules::ALL {
        let f = Finding::new(rule, Verdict::DeviceAssert, format!("{} fired", rule.code))
            .hint("a hint")
            .fix("a fix")
            .at("target", vec![1, 2], "255");
        assert_eq!(round_trip(&f), f);
    }
}

#[test]
fn findings_of_real_calls_read_back() {
    let input = f32s(&[6, 3], &[0.5; 18]);
    let target = i64s(&[6], &[0, 3, 255, 3, -1, 7]);
    let ce = run(
        "cross_entropy",
        &[("input", &input), ("target", &target)],
        &[],
    )
    .findings;
    let probs = f32s(&[2, 2], &[0.5, f64::NAN, 1.5, -0.25]);
    let half = f32s(&[2, 2], &[0.5; 4]);
    let bce = run(
        "binary_cross_entropy",
        &[("input", &probs), ("target", &half)],
        &[],
    )
    .findings;
    let findings: Vec<Finding> = ce.into_iter().chain(bce).collect();
    // The evidence is there to be carried: locations, counts and value histograms.
    assert!(findings
        .iter()
        .any(|f| f.count.is_some() && !f.values.is_empty()));
    assert!(findings.iter().any(|f| f.locations.len() > 1));
    for f in &findings {
        assert_eq!(&round_trip(f), f);
    }
    let json = serde_json::to_string(&findings).unwrap();
    assert_eq!(
        serde_json::from_str::<Vec<Finding>>(&json).unwrap(),
        findings
    );
}

#[test]
fn optional_fields_may_be_absent_or_null() {
    // `count` and `values` are left out when empty; `hint` is written as null.
    let json = r#"{"code":"LG101","rule":"class-id-out-of-range","severity":"error",
        "verdict":"device_assert","message":"m","fix":"f","locations":[]}"#;
    let f: Finding = serde_json::from_str(json).unwrap();
    assert_eq!(
        f,
        Finding::new(&rules::LG101, Verdict::DeviceAssert, "m").fix("f")
    );
    // A scan report's record writes every field, null or empty.
    let json = r#"{"code":"LG611","rule":"class-imbalance","severity":"info",
        "verdict":"silent","message":"m","hint":null,"fix":"","locations":[],
        "count":3,"values":[{"value":"7","count":3}]}"#;
    let f: Finding = serde_json::from_str(json).unwrap();
    assert_eq!(f.severity, Severity::Info);
    assert_eq!(f.count, Some(3));
    assert_eq!(
        f.values,
        vec![ValueCount {
            value: "7".into(),
            count: 3
        }]
    );
}

#[test]
fn severity_and_verdict_read_their_written_names() {
    for s in [Severity::Info, Severity::Warning, Severity::Error] {
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, format!("\"{}\"", s.as_str()));
        assert_eq!(serde_json::from_str::<Severity>(&json).unwrap(), s);
    }
    for v in [
        Verdict::Ok,
        Verdict::Silent,
        Verdict::DeviceAssert,
        Verdict::Error,
    ] {
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(json, format!("\"{}\"", v.as_str()));
        assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), v);
    }
    assert!(serde_json::from_str::<Severity>("\"fatal\"").is_err());
    assert!(serde_json::from_str::<Verdict>("\"deviceassert\"").is_err());
}

fn read_error(code: &str, rule: &str) -> String {
    let json = format!(
        r#"{{"code":"{code}","rule":"{rule}","severity":"error","verdict":"error",
        "message":"m","hint":null,"fix":"","locations":[]}}"#
    );
    serde_json::from_str::<Finding>(&json)
        .unwrap_err()
        .to_string()
}

#[test]
fn unknown_rules_are_refused_clearly() {
    let e = read_error("LG999", "no-such-rule");
    assert!(e.contains("unknown rule code 'LG999'"), "{e}");
    // Codes are written exactly; a lower-case code is not one.
    let e = read_error("lg101", "class-id-out-of-range");
    assert!(e.contains("unknown rule code 'lg101'"), "{e}");
    let e = read_error("LG101", "negative-class-id");
    assert!(
        e.contains(
            "finding LG101 names rule 'negative-class-id', but LG101 is 'class-id-out-of-range'"
        ),
        "{e}"
    );
}
