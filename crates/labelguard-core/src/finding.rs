//! Findings: what every face of labelguard produces, and what every renderer prints.

use crate::kernels::Located;
use crate::rule::Rule;
use serde::Serialize;
use std::fmt;

/// What PyTorch does with a call. Ordered by precedence: a host error stops the call before
/// any kernel runs, a device assert stops it in the kernel, silent garbage lets it finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Accepted, and the result means something.
    Ok,
    /// Accepted, but the result is garbage (NaN loss, wrong gradients, out-of-bounds reads).
    Silent,
    /// On CUDA a kernel asserts (`device-side assert triggered`); on the CPU PyTorch raises.
    DeviceAssert,
    /// PyTorch raises on the host before any kernel runs.
    Error,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Silent => "silent",
            Verdict::DeviceAssert => "device_assert",
            Verdict::Error => "error",
        }
    }
    /// Whether PyTorch raises (on the CPU) for this verdict.
    pub fn raises(self) -> bool {
        matches!(self, Verdict::DeviceAssert | Verdict::Error)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One offending element: which tensor, its full index, its value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Location {
    pub tensor: String,
    pub index: Vec<usize>,
    pub value: String,
}

/// How often one offending value occurs.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
        }
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

    /// Attaches the detailed pass's evidence: locations, count, value histogram.
    pub fn located(mut self, tensor: &str, located: &Located) -> Finding {
        self.locations = located
            .first
            .iter()
            .take(MAX_LOCATIONS)
            .map(|(index, value)| Location {
                tensor: tensor.to_string(),
                index: index.clone(),
                value: value.clone(),
            })
            .collect();
        self.count = Some(located.total);
        let mut values: Vec<ValueCount> = located
            .values
            .iter()
            .map(|(v, &count)| ValueCount {
                value: v.to_string(),
                count,
            })
            .collect();
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
