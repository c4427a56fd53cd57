//! LG815 chat-not-checked: conversations that could not be rendered and tokenized, and why.
//! Documentation: `labelguard_core::rules::lg815_chat_not_checked`.

use super::token_rows::Tally;
use labelguard_core::rules::LG815;
use labelguard_core::{Finding, Verdict};

/// No conversation of the file was checked: `why` says what is missing.
pub fn whole_file(conversations: u64, why: &str) -> Finding {
    Finding::new(
        &LG815,
        Verdict::Ok,
        format!(
            "{} not checked: {}",
            labelguard_core::finding::count(conversations, "conversation"),
            labelguard_core::clip::echo(why)
        ),
    )
    .fix("pass the model directory the data is trained with (--model DIR, with its tokenizer.json and chat template)")
}

/// The conversations of `t` that labelguard's renderer could not render (the first error
/// `reason`): unchecked, the others were checked.
pub fn rows(t: &Tally, reason: &str, template: &str, split: &str) -> Finding {
    let message = format!(
        "{} not checked: labelguard could not render them with the chat template of {template} ({}): {}",
        labelguard_core::finding::count(t.rows, "conversation"),
        t.rows_text(split),
        labelguard_core::clip::echo(reason),
    );
    t.evidence(
        Finding::new(&LG815, Verdict::Ok, message)
            .fix("check these conversations with transformers' apply_chat_template; report the template construct to labelguard"),
    )
}
