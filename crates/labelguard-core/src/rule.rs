//! Rules: a stable code, a name, and documentation taken from the rule's doc comment; and what
//! the rule says about its own findings (its [`Category`], its [`RuleRepair`]), so that reports,
//! the scan and `labelguard fix` ask the rule instead of keeping lists of codes.

use crate::severity::Severity;
pub use labelguard_labels::repair::RepairKind;
use serde::{Deserialize, Serialize};

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
    /// How reports treat the rule's findings beside others.
    #[serde(skip)]
    pub category: Category,
    /// The repair of the label files that the rule's findings propose.
    #[serde(skip)]
    pub repair: RuleRepair,
    #[serde(skip)]
    pub doc: &'static str,
}

/// How reports treat a rule's findings beside the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// A finding that stands on its own.
    Plain,
    /// A convention of the dataset's masks (1-based ids, Cityscapes labelIds, 0 meaning ignore):
    /// its findings in several files are one problem, which the text report shows once.
    DatasetConvention,
    /// The file cannot be read at all (unreadable, corrupt, empty, a decompression bomb): it
    /// crashes the DataLoader whatever its labels, so reports list it first.
    Unreadable,
    /// A consequence of a failure elsewhere (an asynchronous report, a secondary CUDA error, a
    /// peer rank that died): never the first failure, and no failure of its own.
    Consequence,
}

/// The repair of the label files that a rule's findings propose (`labelguard scan` writes it in
/// its JSON report, `labelguard fix` applies it). Decided by the rule's declaration; where it
/// depends on the finding, by the finding's values or its [`Fact`], never by its wording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleRepair {
    /// No mechanical repair: the fix is a change of code, of settings or of the data's source.
    None,
    /// Every finding proposes this repair, for the values it found (artefact ids).
    Always(RepairKind),
    /// Every finding proposes this repair for these values (the void marker of LG103, LG107).
    OfValues(RepairKind, &'static [i64]),
    /// A 0/255 mask of a task with at most 2 classes (the only bad value is 255): 255 -> 1.
    BinaryMask,
    /// The finding's fact chooses: the repair paired with it, none for a finding without one.
    ByFact(&'static [(Fact, RepairKind)]),
}

impl RuleRepair {
    /// The repair a finding of this rule proposes, and the values it maps, from the finding's
    /// offending `values` and its `fact`, for a task of `num_classes` classes.
    pub fn propose(
        self,
        values: &[i64],
        fact: Option<Fact>,
        num_classes: Option<u32>,
    ) -> Option<(RepairKind, Vec<i64>)> {
        match self {
            RuleRepair::None => None,
            RuleRepair::Always(kind) => Some((kind, values.to_vec())),
            RuleRepair::OfValues(kind, marked) => Some((kind, marked.to_vec())),
            RuleRepair::BinaryMask => (num_classes.is_some_and(|c| c <= 2) && values == [255])
                .then(|| (RepairKind::Binary255, vec![255])),
            RuleRepair::ByFact(pairs) => {
                let fact = fact?;
                pairs
                    .iter()
                    .find(|(x, _)| *x == fact)
                    .map(|(_, kind)| (*kind, values.to_vec()))
            }
        }
    }
}

/// A fact about a finding that its rule's repair depends on ([`RuleRepair::ByFact`]), carried by
/// the finding (`Finding::fact`) and written in the JSON, so that a report read back (a merged
/// shard) proposes the same repair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fact {
    /// A colour mask whose every colour is in the palette (LG606): it maps to ids exactly.
    EveryColourKnown,
    /// A grey mask saved with equal colour channels (LG606): any one channel is the mask.
    EqualChannels,
    /// The out-of-range class ids are a few stray values, far rarer than the classes beside them
    /// (LG101): a data error in their samples, which no table repairs and no wider head fixes.
    StrayValues,
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
/// `Metadata` after the severity marks a rule decided by shapes, dtypes and arguments alone;
/// then, each optional and in this order, `; category = Category` ([`Category`], `Plain` when
/// left out) and `; repair = RuleRepair` ([`RuleRepair`], `None` when left out).
macro_rules! declare_rule {
    ($(#[doc = $doc:literal])* $code:literal, $name:literal, $severity:ident
        $(, $decided_by:ident)? $(; category = $category:ident)? $(; repair = $repair:expr)?) => {
        $(#[doc = $doc])*
        pub const RULE: $crate::rule::Rule = $crate::rule::Rule {
            code: $code,
            name: $name,
            severity: $crate::severity::Severity::$severity,
            decided_by: $crate::rule::declare_rule!(@decided_by $($decided_by)?),
            category: $crate::rule::declare_rule!(@category $($category)?),
            repair: $crate::rule::declare_rule!(@repair $($repair)?),
            doc: concat!($($doc, "\n"),*),
        };
    };
    (@decided_by) => { $crate::rule::DecidedBy::Values };
    (@decided_by $d:ident) => { $crate::rule::DecidedBy::$d };
    (@category) => { $crate::rule::Category::Plain };
    (@category $c:ident) => { $crate::rule::Category::$c };
    (@repair) => { $crate::rule::RuleRepair::None };
    (@repair $r:expr) => { $r };
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
            category: Category::Plain,
            repair: RuleRepair::None,
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

    #[test]
    fn reports_group_rules_by_their_declared_category() {
        use crate::rules::{category_of, ALL};
        let of = |c: Category| -> Vec<&str> {
            ALL.iter()
                .filter(|r| r.category == c)
                .map(|r| r.code)
                .collect()
        };
        // The lists the reports kept before the rules declared them (and LG618, an object of
        // a bucket that cannot be read, which is listed with the unreadable files).
        assert_eq!(of(Category::DatasetConvention), ["LG104", "LG105", "LG106"]);
        assert_eq!(
            of(Category::Unreadable),
            ["LG601", "LG602", "LG603", "LG604", "LG618"]
        );
        assert_eq!(of(Category::Consequence), ["LG902", "LG904", "LG909"]);
        assert_eq!(category_of("lg602"), Category::Unreadable);
        assert_eq!(category_of("LG999"), Category::Plain);
    }

    #[test]
    fn a_rule_proposes_its_repair_from_the_findings_values_and_fact() {
        use crate::rules::*;
        let of = |rule: &Rule, values: &[i64], fact: Option<Fact>, c: Option<u32>| {
            rule.repair.propose(values, fact, c)
        };
        assert_eq!(
            of(&LG105, &[26], None, Some(19)),
            Some((RepairKind::CityscapesTrainIds, vec![26]))
        );
        // The void marker is the rule's, whatever the finding counted.
        assert_eq!(
            of(&LG107, &[], None, Some(19)),
            Some((RepairKind::VoidToIgnore, vec![-1]))
        );
        // 0/255 is a binary mask only for a task of at most two classes.
        assert_eq!(
            of(&LG101, &[255], None, Some(2)),
            Some((RepairKind::Binary255, vec![255]))
        );
        assert_eq!(of(&LG101, &[255], None, Some(19)), None);
        assert_eq!(of(&LG101, &[255, 7], None, Some(2)), None);
        // LG606: the fact decides, not the message.
        assert_eq!(of(&LG606, &[], None, None), None);
        assert_eq!(
            of(&LG606, &[], Some(Fact::EveryColourKnown), None),
            Some((RepairKind::ColourToIndex, vec![]))
        );
        assert_eq!(
            of(&LG606, &[], Some(Fact::EqualChannels), None),
            Some((RepairKind::FirstChannel, vec![]))
        );
        assert_eq!(of(&LG201, &[26], None, Some(19)), None);
    }
}
