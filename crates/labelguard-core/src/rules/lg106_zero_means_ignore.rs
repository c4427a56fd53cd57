use crate::finding::count;
use crate::ops::class_id_words::{ClassIdCause, ClassIdFacts, Words};
use crate::rule::{declare_rule, RuleRepair, RepairKind};

declare_rule! {
    /// Zero means "ignore" in this dataset: the targets run from 0 to C.
    ///
    /// ## What it checks
    /// The targets span `0..C` (C+1 values) with a C-class model: the ADE20K convention, where 0 is
    /// "other/unlabelled" and the classes are 1..C. mmsegmentation calls the remedy `reduce_zero_label`.
    /// Named only for class counts of 100 and more and on evidence: `C` must weigh as a class does; a stray
    /// patch of `C` (far rarer than the classes beside it) is LG101. A scan decides it on the whole dataset
    /// and then repairs every mask.
    ///
    /// ## Why it crashes
    /// Class id C does not exist; the CUDA loss kernel asserts and the CPU raises `IndexError: Target C is
    /// out of bounds.`
    ///
    /// ## Fix
    /// Map 0 to 255 and subtract one from the rest (`reduce_zero_label=True` in mmseg; by hand:
    /// `t = t.long() - 1; t[t == -1] = 255`), then pass `ignore_index=255`.
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`words`] (in this file) words the finding; [`CAUSE`] ties it to the rule
    /// - fixture: `lg106_zero_means_ignore` in `tests/rule_fixtures.rs`
    "LG106", "zero-means-ignore", Error;
    category = DatasetConvention;
    repair = RuleRepair::Always(RepairKind::ReduceZeroLabel)
}

/// LG106's cause of out-of-range class ids, chosen by `crate::ops::class_ids::group_causes`.
pub(crate) const CAUSE: ClassIdCause = ClassIdCause {
    rule: &RULE,
    words,
};

/// C+1 ids 0..C for C classes: 0 means "other", as in ADE20K.
fn words(f: &ClassIdFacts<'_>) -> Words {
    let (n, c, first) = (f.n, f.c, &f.first);
    let equal = if n == 1 { "equals" } else { "equal" };
    Words {
        message: format!("targets run from 0 to {c} with {c} classes: {} {equal} {c}{first}", count(n, "target")),
        hint: Some(format!("C+1 distinct ids 0..{c} for a {c}-class model: as in ADE20K, 0 probably means 'other/unlabelled' and the classes are 1..{c}")),
        fix: "reduce the zero label: t = t.long() - 1; t[t == -1] = 255; then pass ignore_index=255 (mmseg: reduce_zero_label=True)".into(),
    }
}
