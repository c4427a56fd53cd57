//! The special tokens a model directory names, as transformers loads them, and the chat
//! template's own markers that the tokenizer does not know.
//!
//! Facts from transformers 5.23 (`tokenization_utils_tokenizers.py`,
//! `PreTrainedTokenizerFast.__init__`): every named special token of `tokenizer_config.json`
//! (`bos_token`, `eos_token`, ...) and every extra one (`extra_special_tokens`, formerly
//! `additional_special_tokens`) that is not already an added token of `tokenizer.json` is added
//! at load (`add_tokens` of a special `AddedToken`): it becomes one id whatever the vocabulary
//! holds. A marker the template writes literally (`'<|im_start|>'`) gets no such treatment: if it
//! is not an added token, the tokenizer splits its text into ordinary pieces.

use serde_json::Value;
use tokenizers::{AddedToken, Tokenizer};

/// A special token of `tokenizer_config.json`: a string, or an `AddedToken` object's `content`.
pub(super) fn token_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("content")?.as_str().map(str::to_string),
        _ => None,
    }
}

/// The extra special tokens `tokenizer_config.json` names (`extra_special_tokens`, a list or a
/// name -> token map; the older `additional_special_tokens` list).
fn extra_tokens(config: &Value) -> Vec<String> {
    ["extra_special_tokens", "additional_special_tokens"]
        .iter()
        .filter_map(|k| config.get(*k))
        .flat_map(|v| match v {
            Value::Array(list) => list.iter().filter_map(token_text).collect::<Vec<_>>(),
            Value::Object(map) => map.values().filter_map(token_text).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// Adds the special tokens of `config` that `tokenizer` does not hold as added tokens, as
/// transformers does at load. `named`: the named special tokens' texts.
pub(super) fn add_config_tokens(tokenizer: &mut Tokenizer, named: &[&str], config: &Value) {
    let held: std::collections::HashSet<String> = tokenizer
        .get_added_tokens_decoder()
        .into_values()
        .map(|t| t.content)
        .collect();
    let extra = extra_tokens(config);
    let mut missing: Vec<AddedToken> = Vec::new();
    for text in named
        .iter()
        .copied()
        .chain(extra.iter().map(String::as_str))
    {
        if !held.contains(text) && !missing.iter().any(|t| t.content == text) {
            missing.push(AddedToken::from(text, true));
        }
    }
    if !missing.is_empty() {
        tokenizer.add_special_tokens(&missing);
    }
}

/// The `<|name|>` markers a template writes literally (the shape of ChatML's `<|im_start|>`,
/// Llama 3's `<|eot_id|>`, Phi's `<|user|>`), each once, in order.
pub(super) fn template_markers(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("<|") {
        let tail = &rest[i + 2..];
        let end = tail.find("|>").filter(|&e| {
            e > 0
                && e <= 64
                && tail[..e]
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_-.:/ ".contains(c))
                && !tail[..e].trim().is_empty()
        });
        match end {
            Some(e) => {
                let marker = format!("<|{}|>", &tail[..e]);
                if !out.contains(&marker) {
                    out.push(marker);
                }
                rest = &tail[e + 2..];
            }
            None => rest = tail,
        }
    }
    out
}

/// A marker of the chat template that the tokenizer splits into several pieces.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitToken {
    pub text: String,
    /// The pieces' token strings, as `convert_ids_to_tokens` gives them.
    pub pieces: Vec<String>,
}

/// The markers of `template` that `tokenizer` does not encode as one id.
pub(super) fn split_markers(tokenizer: &Tokenizer, template: &str) -> Vec<SplitToken> {
    template_markers(template)
        .into_iter()
        .filter_map(|text| {
            let enc = tokenizer.encode(text.as_str(), false).ok()?;
            (enc.get_ids().len() != 1).then(|| SplitToken {
                pieces: enc.get_tokens().to_vec(),
                text,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_the_literal_pipe_tags_of_the_template() {
        let t = "{{ '<|im_start|>' + role }}<|{{ role }}|>{{ '<|im_end|>\\n' }}<|im_start|>< |x|><|a b|>";
        assert_eq!(
            template_markers(t),
            ["<|im_start|>", "<|im_end|>", "<|a b|>"]
        );
        assert!(template_markers("[INST] {{ x }} [/INST]").is_empty());
    }

    #[test]
    fn extra_tokens_come_as_lists_maps_or_added_token_objects() {
        let c = serde_json::json!({
            "additional_special_tokens": ["<a>", {"content": "<b>", "special": true}],
            "extra_special_tokens": {"image_token": "<img>"}
        });
        let mut got = extra_tokens(&c);
        got.sort();
        assert_eq!(got, ["<a>", "<b>", "<img>"]);
    }
}
