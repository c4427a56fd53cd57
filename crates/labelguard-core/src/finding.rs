//! Findings: what every face of labelguard produces, and what every renderer prints.
//!
//! A finding serialises with serde's derive; it reads back through `finding_de.rs`, which looks
//! its rule up in the catalogue. Its severity and verdict are declared in [`crate::severity`].

pub use crate::rule::Fact;
use crate::rule::Rule;
use serde::{Deserialize, Serialize};

// Re-exported where they were first declared, so that `finding::Severity` keeps working.
pub use crate::severity::{Severity, Verdict};

/// One offending element: which tensor, its full index, its value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Location {
    pub tensor: String,
    pub index: Vec<usize>,
    pub value: String,
}

/// How often one offending value occurs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueCount {
    pub value: String,
    pub count: u64,
}

/// A problem found by a rule, with the evidence and the fix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub rule: &'static str,
    pub severity: Severity,
    /// What PyTorch does because of this problem.
    pub verdict: Verdict,
    pub message: String,
    /// The likely cause, inferred from the values.
    pub hint: Option<String>,
    /// How to fix it, in PyTorch terms.
    pub fix: String,
    /// The first offending elements, in PyTorch's iteration order.
    pub locations: Vec<Location>,
    /// How many elements offend, when counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// The offending values with their counts, most frequent first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<ValueCount>,
    /// A typed fact that a decision about the finding depends on (the repair its rule proposes,
    /// [`crate::rule::RuleRepair::ByFact`]), so that nothing matches its message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fact: Option<Fact>,
}

/// How many offending locations a finding lists.
pub const MAX_LOCATIONS: usize = 5;

impl Finding {
    pub fn new(rule: &Rule, verdict: Verdict, message: impl Into<String>) -> Finding {
        Finding {
            code: rule.code,
            rule: rule.name,
            severity: rule.severity,
            verdict,
            message: message.into(),
            hint: None,
            fix: String::new(),
            locations: Vec::new(),
            count: None,
            values: Vec::new(),
            fact: None,
        }
    }

    pub fn fact(mut self, fact: Fact) -> Finding {
        self.fact = Some(fact);
        self
    }

    pub fn fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = fix.into();
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Finding {
        self.hint = Some(hint.into());
        self
    }

    pub fn maybe_hint(mut self, hint: Option<String>) -> Finding {
        self.hint = hint;
        self
    }

    pub fn severity(mut self, severity: Severity) -> Finding {
        self.severity = severity;
        self
    }

    /// Attaches the evidence of a detailed pass: the first offending elements (at most
    /// [`MAX_LOCATIONS`] are kept), how many elements offend, and the offending values with their
    /// counts (sorted here, most frequent first; ties keep their order).
    pub fn evidence(
        mut self,
        locations: impl IntoIterator<Item = Location>,
        count: u64,
        mut values: Vec<ValueCount>,
    ) -> Finding {
        self.locations = locations.into_iter().take(MAX_LOCATIONS).collect();
        self.count = Some(count);
        values.sort_by_key(|v| std::cmp::Reverse(v.count));
        self.values = values;
        self
    }

    /// A single location, for findings about one element or one argument.
    pub fn at(mut self, tensor: &str, index: Vec<usize>, value: impl Into<String>) -> Finding {
        self.locations.push(Location {
            tensor: tensor.to_string(),
            index,
            value: value.into(),
        });
        self
    }
}

/// The outcome of checking one call.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub op: &'static str,
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn new(op: &'static str, findings: Vec<Finding>) -> Report {
        let verdict = findings
            .iter()
            .map(|f| f.verdict)
            .max()
            .unwrap_or(Verdict::Ok);
        Report {
            op,
            verdict,
            findings,
        }
    }
}

/// Formats a shape the way PyTorch prints it: `[2, 3]`.
pub fn shape_str(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// "is" or "are", agreeing with a count (`1 target is`, `3 targets are`).
pub fn is_are(n: u64) -> &'static str {
    if n == 1 {
        "is"
    } else {
        "are"
    }
}

/// A count and its noun: `1 target`, `3 targets` (the plural is the noun plus "s").
pub fn count(n: u64, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// `1234567` as `1,234,567`, for counts that people read (in messages and reports alike).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Formats the offending values compactly: `255 (1,024x), 19 (3x)`.
pub fn values_str(values: &[ValueCount], max: usize) -> String {
    let mut parts: Vec<String> = values
        .iter()
        .take(max)
        .map(|v| format!("{} ({}x)", v.value, v.count))
        .collect();
    if values.len() > max {
        parts.push(format!("and {} more", values.len() - max));
    }
    parts.join(", ")
}
