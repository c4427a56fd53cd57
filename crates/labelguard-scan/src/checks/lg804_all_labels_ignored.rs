//! LG804 all-labels-ignored: rows whose labels are all the ignore index.
//! Documentation: `labelguard_core::rules::lg804_all_labels_ignored`.

use super::token_rows::Col;
use super::token_rows::{all_equal, each_row, Tally};
use labelguard_core::rules::LG804;
use labelguard_core::{Finding, Verdict};

/// Adds the rows of `labels` (a list column) with no label other than `ignore`; `ignored`
/// is how many of the batch's labels are `ignore` (none, and no empty row: nothing to do).
pub fn scan(labels: &Col<'_>, first_row: u64, ignore: i64, ignored: u64, t: &mut Tally) {
    let Some(offsets) = &labels.offsets else {
        return;
    };
    if ignored == 0 && offsets.windows(2).all(|w| w[1] > w[0]) {
        return;
    }
    let view = labels.values.view();
    each_row(labels, |row, start, end| {
        if all_equal(&view, start, end, ignore) {
            t.add("labels", first_row + row as u64, None, (end - start) as i64);
        }
    });
}

pub fn finding(t: &Tally, ignore_index: i64, split: &str) -> Finding {
    let message = format!(
        "{} {} no label other than {ignore_index} ({}): they train nothing, and a batch of only such rows gives a NaN loss",
        labelguard_core::finding::count(t.rows, "row"),
        if t.rows == 1 { "has" } else { "have" },
        t.rows_text(split),
    );
    let mut f = t.evidence(
        Finding::new(&LG804, Verdict::Silent, message)
            .hint("truncation cut off the answer: the prompt, whose labels are masked, filled max_length")
            .fix(format!("drop the rows: ds.filter(lambda r: any(l != {ignore_index} for l in r['labels'])), or truncate the prompt rather than the answer (a larger max_length, truncation_side='left')")),
    );
    // The values are the rows' lengths: not offending values.
    f.values.clear();
    f
}

/// The conversations of `t` (a chat file) without an assistant turn, under a template that marks
/// the assistant's text for training on it alone: every label of them is the ignore index.
pub fn no_assistant_turn(t: &Tally, split: &str) -> Finding {
    let message = format!(
        "{} {} no assistant turn ({}): the chat template marks the assistant's text ({{% generation %}}) to train on it alone (return_assistant_tokens_mask, TRL's assistant_only_loss), so every label of {} is -100: {} nothing, and a batch of only such rows gives a NaN loss",
        labelguard_core::finding::count(t.rows, "conversation"),
        if t.rows == 1 { "has" } else { "have" },
        t.rows_text(split),
        if t.rows == 1 { "it" } else { "them" },
        if t.rows == 1 { "it trains" } else { "they train" },
    );
    let mut f = t.evidence(
        Finding::new(&LG804, Verdict::Silent, message)
            .hint("a conversation cut before its answer, or a prompt-only row in a chat file")
            .fix(
                "drop these rows, or give each conversation the assistant's answer it should learn",
            ),
    );
    f.values.clear();
    f
}
