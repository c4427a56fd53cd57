use crate::finding::{count, is_are};
use crate::ops::class_id_words::{drop_marked, ClassIdCause, ClassIdFacts, Words, NO_IGNORE};
use crate::rule::{declare_rule, RepairKind, RuleRepair};

declare_rule! {
    /// Padding value -1 with the default `ignore_index=-100`.
    ///
    /// ## What it checks
    /// Targets equal to -1 (the usual padding or "unknown" marker) while `ignore_index` is still PyTorch's
    /// default -100.
    ///
    /// ## Why it crashes
    /// -1 is not a class id: the CUDA loss kernel asserts and the CPU raises `IndexError: Target -1 is out of
    /// bounds.` Hugging Face models expect -100 for positions the loss must skip.
    ///
    /// ## Fix
    /// Pass `ignore_index=-1`, or pad the labels with -100 (`DataCollatorForTokenClassification(label_pad_token_id=-100)`).
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`words`] (in this file) words the finding; [`CAUSE`] ties it to the rule
    /// - [`crate::ops::ctc::value_checks`]
    /// - fixtures: `lg107_padding_minus_one`, `lg107_ctc_padding_minus_one` in `tests/rule_fixtures.rs`
    "LG107", "padding-value-not-ignored", Error;
    repair = RuleRepair::OfValues(RepairKind::VoidToIgnore, &[-1])
}

/// LG107's cause of out-of-range class ids, chosen by `crate::ops::class_ids::group_causes`.
pub(crate) const CAUSE: ClassIdCause = ClassIdCause {
    rule: &RULE,
    words,
};

/// -1 is padding: the fix is ignore_index=-1, or PyTorch's own -100; for a loss without an
/// ignore_index, the samples' removal.
fn words(f: &ClassIdFacts<'_>) -> Words {
    let (n, ignore, first) = (f.n, f.ignore, &f.first);
    if ignore == NO_IGNORE {
        return Words {
            message: format!("{} {} -1, and the loss has no ignore_index{first}", count(n, "target"), is_are(n)),
            hint: Some("-1 is a padding or 'unknown' marker".into()),
            fix: drop_marked(-1),
        };
    }
    Words {
        message: format!("{} {} -1, but ignore_index is {ignore}{first}", count(n, "target"), is_are(n)),
        hint: Some(format!("-1 is a padding or 'unknown' marker; PyTorch ignores only ignore_index ({ignore})")),
        fix: "pass ignore_index=-1, or pad the labels with -100 (PyTorch's and Hugging Face's ignore value)".into(),
    }
}
