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
    /// What the rule's verdict depends on: a check that `torch.compile` can run while it traces
    /// (shapes, dtypes and arguments are known then; values are not) needs `Metadata`.
    #[serde(skip)]
    pub decided_by: DecidedBy,
    #[serde(skip)]
    pub doc: &'static str,
}

/// What a rule's verdict depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecidedBy {
    /// The tensors' values (a class id, a probability, an index).
    Values,
    /// Only shapes, dtypes and the call's other arguments: PyTorch refuses such a call on the
    /// host, whatever the values, and a tracer sees it before any kernel exists. (The finding's
    /// wording may still read values: LG202 calls 0/1 rows one-hot.)
    Metadata,
}

impl Rule {
    /// The first line of the documentation.
    pub fn summary(&self) -> &'static str {
        self.doc.lines().next().unwrap_or("").trim()
    }

    /// The documentation with the one leading space of each doc-comment line removed, as users
    /// read it: without the `## Checked by` section, which points developers at the code that
    /// emits the rule (rustdoc shows it on the rule's `RULE`).
    pub fn documentation(&self) -> String {
        let mut out = String::new();
        let mut developers_only = false;
        for line in self.doc.lines() {
            let line = line.strip_prefix(' ').unwrap_or(line);
            if let Some(heading) = line.strip_prefix("## ") {
                developers_only = heading.trim() == CHECKED_BY;
            }
            if !developers_only {
                out.push_str(line);
                out.push('\n');
            }
        }
        out.trim_end().to_string() + "\n"
    }
}

/// The heading of a rule's developer section: the functions that emit it and its fixture tests.
const CHECKED_BY: &str = "Checked by";

/// Declares a rule whose documentation is its doc comment.
/// `Metadata` after the severity marks a rule decided by shapes, dtypes and arguments alone.
macro_rules! declare_rule {
    ($(#[doc = $doc:literal])* $code:literal, $name:literal, $severity:ident) => {
        $crate::rule::declare_rule! { $(#[doc = $doc])* $code, $name, $severity, Values }
    };
    ($(#[doc = $doc:literal])* $code:literal, $name:literal, $severity:ident, $decided_by:ident) => {
        $(#[doc = $doc])*
        pub const RULE: $crate::rule::Rule = $crate::rule::Rule {
            code: $code,
            name: $name,
            severity: $crate::severity::Severity::$severity,
            decided_by: $crate::rule::DecidedBy::$decided_by,
            doc: concat!($($doc, "\n"),*),
        };
    };
}
pub(crate) use declare_rule;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documentation_leaves_out_the_checked_by_section() {
        let rule = Rule {
            code: "LG000",
            name: "test",
            severity: Severity::Error,
            decided_by: DecidedBy::Values,
            doc:
                " Summary.\n\n ## Fix\n Do this.\n\n ## Checked by\n - [`f`]\n\n ## Example\n `x`\n",
        };
        assert_eq!(
            rule.documentation(),
            "Summary.\n\n## Fix\nDo this.\n\n## Example\n`x`\n"
        );
        let last = Rule {
            doc: " Summary.\n\n ## Checked by\n - [`f`]\n",
            ..rule
        };
        assert_eq!(last.documentation(), "Summary.\n");
    }

    #[test]
    fn every_contract_rule_names_its_checks() {
        for rule in crate::rules::ALL.iter().filter(|r| r.code < "LG600") {
            assert!(
                rule.doc.contains("## Checked by\n - [`"),
                "{} has no `## Checked by` section",
                rule.code
            );
            assert!(!rule.documentation().contains("Checked by"));
        }
    }
}
