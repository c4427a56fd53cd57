use crate::finding::count;
use crate::ops::class_id_words::{ClassIdCause, ClassIdFacts, Words};
use crate::rule::{declare_rule, RuleRepair, RepairKind};

declare_rule! {
    /// One-based labels: the targets run from 1 to C instead of 0 to C-1.
    ///
    /// ## What it checks
    /// No target is 0, the smallest is at least 1 and the largest equals `C`: the labels were numbered from 1
    /// (MATLAB, R, a CSV exported by hand, `LabelEncoder` run on strings that start at "1").
    /// Named only on evidence: `C` must weigh as a class does (at least a quarter of the typical class's
    /// count, see `ops/id_weight.rs`); a stray `C` is LG101. The missing 0 must be evidence too: every id
    /// 1..C is present, or the labels are so many that a class 0 as common as the ids present would show
    /// but for a one-in-twenty chance (a batch of 4 labels 2, 3, 3, 3 lacks a 0 by chance: a label C
    /// there is LG101, or a class count one short). A scan weighs each file again on the whole
    /// dataset: the dataset is 1-based only when no file holds a 0, and then every mask is repaired, also
    /// those that hold no `C`.
    ///
    /// ## Why it crashes
    /// Class `C` does not exist, so the loss kernel asserts on CUDA and raises `IndexError: Target C is out
    /// of bounds.` on the CPU. Even when no sample of class C is in the batch, every class is shifted by one.
    ///
    /// ## Fix
    /// Subtract one: `target = target - 1`, once, where the labels are loaded.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`crate::ops::indexing::labels_cause`] (one_hot, scatter/gather, advanced indexing, class embeddings)
    /// - [`words`] (in this file) words the finding; [`CAUSE`] ties it to the rule
    /// - fixture: `lg104_one_based` in `tests/rule_fixtures.rs`
    "LG104", "one-based-labels", Error;
    category = DatasetConvention;
    repair = RuleRepair::Always(RepairKind::OneBased)
}

/// LG104's cause of out-of-range class ids, chosen by `crate::ops::class_ids::group_causes`.
pub(crate) const CAUSE: ClassIdCause = ClassIdCause {
    rule: &RULE,
    words,
};

/// Labels numbered from 1: the only bad id is C and no target is 0.
fn words(f: &ClassIdFacts<'_>) -> Words {
    let (n, c, min, max, first) = (f.n, f.c, f.min, f.max, &f.first);
    let equal = if n == 1 { "equals" } else { "equal" };
    Words {
        message: format!("targets run from {min} to {max} with {c} classes: the labels are 1-based, so {} {equal} {c}{first}", count(n, "target")),
        hint: Some(hint(c)),
        fix: FIX.into(),
    }
}

/// Why the ids look 1-based, for every path that takes class indices.
pub(crate) fn hint(c: i64) -> String {
    format!("no label is 0 and the largest is exactly C={c}: the labels are 1-based, numbered from 1")
}

/// The fix, for every path that takes class indices.
pub(crate) const FIX: &str = "subtract one where the labels are loaded: labels = labels - 1";
