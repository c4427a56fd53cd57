//! The special tokens a model directory names, as transformers loads them, and the chat
//! template's own markers (`<|im_start|>`, `<start_of_turn>`, `[INST]`) that the tokenizer does
//! not know.
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

/// The shape of a chat marker: `<|name|>` (ChatML's `<|im_start|>`, Llama 3's `<|eot_id|>`),
/// `<name>` / `</name>` (Gemma's `<start_of_turn>`, `<s>`), `[NAME]` / `[/NAME]` (Llama 2's and
/// Mistral's `[INST]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Pipes,
    Angle,
    Square,
}

/// The longest marker name read.
const MAX_NAME: usize = 64;

/// The marker that starts `s` (at a `<` or `[`), and its shape.
fn marker_at(s: &str) -> Option<(&str, Shape)> {
    let name_ok = |n: &str, ok: &dyn Fn(char) -> bool| {
        !n.trim().is_empty() && n.len() <= MAX_NAME && n.chars().all(ok)
    };
    if let Some(tail) = s.strip_prefix("<|") {
        let e = tail.find("|>")?;
        let ok = |c: char| c.is_alphanumeric() || "_-.:/ ".contains(c);
        return name_ok(&tail[..e], &ok).then(|| (&s[..e + 4], Shape::Pipes));
    }
    let (close, shape, ok): (char, Shape, &dyn Fn(char) -> bool) = match s.as_bytes().first()? {
        b'<' => ('>', Shape::Angle, &|c: char| {
            c.is_ascii_alphanumeric() || "_-.".contains(c)
        }),
        b'[' => (']', Shape::Square, &|c: char| {
            c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'
        }),
        _ => return None,
    };
    let body = &s[1..];
    let name_from = usize::from(body.starts_with('/'));
    let e = body.find(close)?;
    let name = body.get(name_from..e)?;
    // A `[NAME]` has a letter (`messages[0]` is no marker).
    let lettered = shape != Shape::Square || name.chars().any(|c| c.is_ascii_uppercase());
    (name_ok(name, ok) && lettered).then(|| (&s[..e + 2], shape))
}

/// The markers of every shape in `text`, each once, in order.
fn markers_of(text: &str) -> Vec<(&str, Shape)> {
    let mut out: Vec<(&str, Shape)> = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find(['<', '[']) {
        let start = at + i;
        match marker_at(&text[start..]) {
            Some((m, shape)) => {
                if !out.iter().any(|(o, _)| *o == m) {
                    out.push((m, shape));
                }
                at = start + m.len();
            }
            None => at = start + 1,
        }
    }
    out
}

/// The markers a template writes literally that are chat markers for `tokenizer`: every
/// `<|name|>` (a shape no text takes by chance), and the `<name>` and `[NAME]` ones when the
/// tokenizer's own special or added tokens (`added`) take that shape: `[INST]` is a marker for
/// Mistral's tokenizers, whose `[INST]` is a control token, but plain text for Llama 2's, which
/// has no `[...]` token and was trained on `[INST]` in pieces.
pub(super) fn template_markers(template: &str, added: &[String]) -> Vec<String> {
    let shapes: Vec<Shape> = added
        .iter()
        .filter_map(|t| marker_at(t).filter(|(m, _)| m == t).map(|(_, s)| s))
        .collect();
    markers_of(template)
        .into_iter()
        .filter(|(_, s)| *s == Shape::Pipes || shapes.contains(s))
        .map(|(m, _)| m.to_string())
        .collect()
}

/// A marker of the chat template that the tokenizer splits into several pieces.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitToken {
    pub text: String,
    /// The pieces' token strings, as `convert_ids_to_tokens` gives them.
    pub pieces: Vec<String>,
}

/// `marker` as `tokenizer` encodes it, when that is more than one id.
pub(super) fn split(tokenizer: &Tokenizer, marker: &str) -> Option<SplitToken> {
    let enc = tokenizer.encode(marker, false).ok()?;
    (enc.get_ids().len() != 1).then(|| SplitToken {
        pieces: enc.get_tokens().to_vec(),
        text: marker.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_the_literal_tags_of_the_template_in_the_tokenizers_shapes() {
        let t = "{{ '<|im_start|>' + role }}<|{{ role }}|>{{ '<|im_end|>\\n' }}<|im_start|>< |x|><|a b|>";
        assert_eq!(
            template_markers(t, &[]),
            ["<|im_start|>", "<|im_end|>", "<|a b|>"]
        );
        // Llama 2 / Mistral and Gemma: checked only where the tokenizer has tokens of the shape.
        let t = "{{ bos_token }}{% for m in messages %}{% if m['role'] == 'user' %}{{ '<s>[INST] ' + m['content'] + ' [/INST]' }}{% else %}{{ '<start_of_turn>model' }}{{ messages[0] }}{% endif %}{% endfor %}";
        assert!(template_markers(t, &["<|endoftext|>".into()]).is_empty());
        assert_eq!(
            template_markers(t, &["<s>".into(), "</s>".into()]),
            ["<s>", "<start_of_turn>"]
        );
        assert_eq!(
            template_markers(t, &["[INST]".into(), "<unk>".into()]),
            ["<s>", "[INST]", "[/INST]", "<start_of_turn>"]
        );
        assert!(template_markers("[INST] {{ x }} [/INST]", &[]).is_empty());
        assert!(
            template_markers("a < b > c [x] [] <> </>", &["<s>".into(), "[A]".into()]).is_empty()
        );
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
