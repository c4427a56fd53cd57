//! Reading a [`Finding`] back (from a JSON report, a shard to merge, a cache).
//!
//! A finding names its rule by `&'static str`s that point into the catalogue, so reading one
//! back looks its `code` up in [`crate::rules::ALL`]: a code the catalogue does not hold, or a
//! `rule` name that is not that code's, is an error that says so. The impl lives here, not in
//! `finding.rs`, so that the finding module does not depend on the catalogue (whose rule files
//! build findings).

use crate::finding::{Fact, Finding, Location, ValueCount};
use crate::rule::Rule;
use crate::rules::ALL;
use crate::severity::{Severity, Verdict};
use serde::de::Error;
use serde::{Deserialize, Deserializer};

/// A finding as written, its rule still a string. `count` and `values` are optional because
/// [`Finding`]'s serialisation leaves them out when there is nothing to say.
#[derive(Deserialize)]
struct Written {
    code: String,
    rule: String,
    severity: Severity,
    verdict: Verdict,
    message: String,
    #[serde(default)]
    hint: Option<String>,
    fix: String,
    locations: Vec<Location>,
    #[serde(default)]
    count: Option<u64>,
    #[serde(default)]
    values: Vec<ValueCount>,
    #[serde(default)]
    fact: Option<Fact>,
}

/// The catalogue's rule for a written code and name.
fn catalogued(code: &str, name: &str) -> Result<&'static Rule, String> {
    let rule = ALL.iter().find(|r| r.code == code).ok_or_else(|| {
        format!("unknown rule code '{code}': labelguard's catalogue has no such rule (`labelguard rules` lists them)")
    })?;
    if rule.name != name {
        return Err(format!(
            "finding {code} names rule '{name}', but {code} is '{}'",
            rule.name
        ));
    }
    Ok(rule)
}

impl<'de> Deserialize<'de> for Finding {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Finding, D::Error> {
        let w = Written::deserialize(d)?;
        let rule = catalogued(&w.code, &w.rule).map_err(D::Error::custom)?;
        Ok(Finding {
            code: rule.code,
            rule: rule.name,
            severity: w.severity,
            verdict: w.verdict,
            message: w.message,
            hint: w.hint,
            fix: w.fix,
            locations: w.locations,
            count: w.count,
            values: w.values,
            fact: w.fact,
        })
    }
}
