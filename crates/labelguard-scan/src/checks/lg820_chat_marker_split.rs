//! LG820 chat-marker-split: a marker of the chat template that the tokenizer splits into pieces.
//! Documentation: `labelguard_core::rules::lg820_chat_marker_split`.

use labelguard_core::rules::LG820;
use labelguard_core::{Finding, Verdict};
use labelguard_formats::read::chat_template::SplitToken;

/// The finding for the marker `t` of the chat template of `template`.
pub fn finding(t: &SplitToken, template: &str) -> Finding {
    let echo = labelguard_core::clip::echo;
    let pieces: Vec<String> = t.pieces.iter().map(|p| format!("'{}'", echo(p))).collect();
    Finding::new(
        &LG820,
        Verdict::Silent,
        format!(
            "the chat template of {template} writes '{}', which the tokenizer does not know as one token: it splits it into {} pieces ({})",
            echo(&t.text),
            t.pieces.len(),
            pieces.join(", ")
        ),
    )
    .hint("the token was never added to the tokenizer: the model trains on its pieces and cannot emit it as one token")
    .fix(format!(
        "tokenizer.add_special_tokens({{\"additional_special_tokens\": [\"{}\"]}}) then model.resize_token_embeddings(len(tokenizer)), and save both",
        echo(&t.text)
    ))
}
