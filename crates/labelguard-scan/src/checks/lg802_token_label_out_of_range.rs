//! LG802 token-label-out-of-range: labels beyond the classes of the model's loss (the
//! vocabulary of a language model, `num_labels` of a classifier).
//! Documentation: `labelguard_core::rules::lg802_token_label_out_of_range`.

use super::token_rows::Tally;
use labelguard_core::model::ModelSpec;
use labelguard_core::rules::LG802;
use labelguard_core::{Finding, Verdict};

/// What the labels of a dataset are compared with, decided by the model's head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelTarget {
    /// Token labels of a language model: `[0, V)`.
    Vocabulary(u64),
    /// Token labels of a token classifier: `[0, num_labels)`.
    TokenClasses(u64),
    /// One label per row of a sequence classifier: `[0, num_labels)`.
    SequenceClasses(u64),
}

impl LabelTarget {
    /// The target of `labels` for the model, when its size is known. `per_row`: the column
    /// holds one label per row (a sequence classification dataset).
    pub fn of(spec: &ModelSpec, per_row: bool) -> Option<LabelTarget> {
        let arch = spec.architecture.as_deref().unwrap_or("");
        if per_row || arch.ends_with("ForSequenceClassification") {
            return spec.num_labels.map(LabelTarget::SequenceClasses);
        }
        if arch.ends_with("ForTokenClassification") {
            return spec.num_labels.map(LabelTarget::TokenClasses);
        }
        spec.head_rows
            .or(spec.token_rows())
            .map(LabelTarget::Vocabulary)
    }

    pub fn size(self) -> u64 {
        match self {
            LabelTarget::Vocabulary(n)
            | LabelTarget::TokenClasses(n)
            | LabelTarget::SequenceClasses(n) => n,
        }
    }
}

/// The finding for the labels of `tally` outside `[0, target)`.
pub fn finding(t: &Tally, column: &str, target: LabelTarget, split: &str) -> Finding {
    let n = target.size();
    let top = t.max().unwrap_or(0);
    let (what, fix) = match target {
        LabelTarget::Vocabulary(_) => (
            format!("the {n} logits of the language-model head"),
            "model.resize_token_embeddings(len(tokenizer)) (it resizes the tied lm_head too), or build labels from input_ids made by the model's own tokenizer".to_string(),
        ),
        LabelTarget::TokenClasses(_) | LabelTarget::SequenceClasses(_) => (
            format!("the model's num_labels = {n}"),
            format!("load the model with num_labels covering every class (num_labels={}, with id2label), or map the labels to 0..{}", top + 1, n.saturating_sub(1)),
        ),
    };
    let negative = t.values.keys().next().is_some_and(|&v| v < 0);
    let message = format!(
        "{} of {column} {} outside [0, {n}) for {what} ({}): largest {top}",
        t.counted("label"),
        labelguard_core::finding::is_are(t.count),
        t.rows_text(split),
    );
    let f = Finding::new(&LG802, Verdict::DeviceAssert, message).fix(fix);
    let f = if negative {
        f.hint("a negative class label (datasets marks unlabeled rows, such as GLUE's test split, with -1): train only on labeled splits")
    } else {
        f
    };
    t.evidence(f)
}
