//! LG816 chat-template-refused: conversations the model's chat template raises on.
//! Documentation: `labelguard_core::rules::lg816_chat_template_refused`.

use super::token_rows::Tally;
use labelguard_core::rules::LG816;
use labelguard_core::{Finding, Verdict};

/// The finding for the conversations of `t` (a row each), `reason` the template's words for the
/// first of them.
pub fn finding(t: &Tally, reason: &str, template: &str, split: &str) -> Finding {
    let message = format!(
        "the chat template of {template} refuses {} ({}): \"{}\"",
        labelguard_core::finding::count(t.rows, "conversation"),
        t.rows_text(split),
        labelguard_core::clip::echo(reason),
    );
    t.evidence(
        Finding::new(&LG816, Verdict::Error, message)
            .hint("tokenizer.apply_chat_template raises jinja2.exceptions.TemplateError on these conversations: preprocessing stops before training")
            .fix("repair or drop the conversations named (alternate user/assistant turns, use the roles the template knows), or train with a template that accepts them"),
    )
}
