use crate::finding::{count, is_are};
use crate::ops::class_id_words::{ClassIdCause, ClassIdFacts, Words};
use crate::rule::declare_rule;

declare_rule! {
    /// Negative class id: a class-index target is negative and is not `ignore_index`.
    ///
    /// ## What it checks
    /// Targets of `cross_entropy` / `nll_loss` below zero, other than the ignore value.
    ///
    /// ## Why it crashes
    /// The CUDA kernel asserts `t >= 0 && t < n_classes`; the CPU raises `IndexError: Target -3 is out of
    /// bounds.` PyTorch's default `ignore_index` is -100, so any other negative "unknown" marker crashes.
    ///
    /// ## Example
    /// `F.cross_entropy(logits, torch.tensor([2, -5, 0]))`.
    ///
    /// ## Fix
    /// Set `ignore_index` to the marker, or replace the marker with -100 (PyTorch's default ignore value).
    ///
    /// ## Checked by
    /// - [`crate::ops::class_ids::class_ids`]
    /// - [`crate::ops::class_ids::group_causes`]
    /// - [`words`] (in this file) words the finding; [`CAUSE`] ties it to the rule
    /// - fixture: `lg102_negative` in `tests/rule_fixtures.rs`
    "LG102", "negative-class-id", Error
}

/// LG102's cause of out-of-range class ids, chosen by `crate::ops::class_ids::group_causes`.
pub(crate) const CAUSE: ClassIdCause = ClassIdCause {
    rule: &RULE,
    words,
};

/// A negative marker other than -1: name the first one as the ignore_index to pass.
fn words(f: &ClassIdFacts<'_>) -> Words {
    let (n, ignore, first, values) = (f.n, f.ignore, &f.first, &f.values);
    let marker = f.located.values.keys().next().map(|v| v.to_string()).unwrap_or_default();
    Words {
        message: format!("{} {} negative and not ignore_index ({ignore}): {values}{first}", count(n, "target"), is_are(n)),
        hint: Some("a negative marker for unlabelled targets that is not the loss's ignore_index".into()),
        fix: format!("pass ignore_index={marker} if that value marks unlabelled targets, or replace it with -100"),
    }
}
