//! Rules: a stable code, a name, and documentation taken from the rule's doc comment.

use crate::severity::Severity;
use serde::Serialize;

/// A rule of the catalogue. `doc` is the doc comment of the rule's declaration, so the
/// documentation printed by `labelguard rule CODE` and docs/rules.md is the source itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    #[serde(skip)]
    pub doc: &'static str,
}

impl Rule {
    /// The first line of the documentation.
    pub fn summary(&self) -> &'static str {
        self.doc.lines().next().unwrap_or("").trim()
    }

    /// The documentation with the one leading space of each doc-comment line removed.
    pub fn documentation(&self) -> String {
        let mut out = String::new();
        for line in self.doc.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out.trim_end().to_string() + "\n"
    }
}

/// Declares a rule whose documentation is its doc comment.
macro_rules! declare_rule {
    ($(#[doc = $doc:literal])* $code:literal, $name:literal, $severity:ident) => {
        $(#[doc = $doc])*
        pub const RULE: $crate::rule::Rule = $crate::rule::Rule {
            code: $code,
            name: $name,
            severity: $crate::severity::Severity::$severity,
            doc: concat!($($doc, "\n"),*),
        };
    };
}
pub(crate) use declare_rule;
