//! The tokenizer's files into a [`TokenizerSpec`]: what ids it can emit, its special tokens and
//! its padding token.
//!
//! `len(tokenizer)` is what transformers says: `get_vocab_size(with_added_tokens=True)` of the
//! `tokenizers` library, the number of distinct strings of the model's vocabulary and the added
//! tokens together (`TokenizerImpl::get_vocab_size` counts `get_vocab(true)`, a map by string).
//! Slow tokenizers (`vocab.txt`, `vocab.json`) count their vocabulary plus `added_tokens.json`.

use crate::files::{parse_json, read_bytes, read_json, CONFIG_LIMIT, TOKENIZER_LIMIT};
use crate::{ModelDirError, Problem};
use labelguard_core::model::TokenizerSpec;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

/// Files that make a folder a tokenizer's (or a model's with its tokenizer).
pub(crate) const FILES: &[&str] = &[
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "vocab.json",
    "tokenizer.model",
];

/// The parts of `tokenizer.json` that say which ids exist (the merges, normalizer, ... are
/// skipped unparsed).
#[derive(Deserialize)]
struct TokenizerJson {
    model: TokenizerModel,
    #[serde(default)]
    added_tokens: Vec<AddedToken>,
    #[serde(default)]
    padding: Option<Padding>,
}

#[derive(Deserialize)]
struct TokenizerModel {
    #[serde(default)]
    vocab: Option<Vocab>,
}

#[derive(Deserialize)]
struct AddedToken {
    id: u64,
    content: String,
    #[serde(default)]
    special: bool,
}

#[derive(Deserialize)]
struct Padding {
    pad_id: Option<u64>,
    pad_token: Option<String>,
}

/// A vocabulary as ids by token: BPE, WordPiece and WordLevel store a map `{token: id}`,
/// Unigram a list of `[piece, score]` whose index is the id (a repeated piece keeps its last
/// id, as the `tokenizers` library's map does).
struct Vocab(HashMap<String, u64>);

impl<'de> Deserialize<'de> for Vocab {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Vocab;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of token to id, or a list of [piece, score]")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Vocab, A::Error> {
                let mut out = HashMap::with_capacity(m.size_hint().unwrap_or(0).min(1 << 20));
                while let Some((token, id)) = m.next_entry::<String, u64>()? {
                    out.insert(token, id);
                }
                Ok(Vocab(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Vocab, A::Error> {
                let mut out = HashMap::with_capacity(s.size_hint().unwrap_or(0).min(1 << 20));
                let mut id = 0u64;
                while let Some((piece, _score)) = s.next_element::<(String, IgnoredAny)>()? {
                    out.insert(piece, id);
                    id += 1;
                }
                Ok(Vocab(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// The token names a tokenizer's configuration gives its special roles.
const ROLES: &[&str] = &[
    "pad_token",
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "cls_token",
    "mask_token",
];
/// Lists of further special tokens: `additional_special_tokens` (transformers 4),
/// `extra_special_tokens` (5: a list, or a map of name to token).
const EXTRA_LISTS: &[&str] = &["additional_special_tokens", "extra_special_tokens"];

/// What was gathered from the files, before it becomes a [`TokenizerSpec`].
#[derive(Default)]
struct Gathered {
    /// The base vocabulary.
    vocab: HashMap<String, u64>,
    /// Added tokens by content: id and whether special.
    added: BTreeMap<String, (u64, bool)>,
    /// Special token names from the configurations (role, text), in the order found.
    named: Vec<(String, String)>,
    /// `tokenizer.json`'s padding, a fallback for the pad token.
    padding: Option<Padding>,
    model_max_length: Option<u64>,
    source: String,
}

impl Gathered {
    /// The id of a token text: an added token's first (the added vocabulary is looked up
    /// before the model's), then the vocabulary's.
    fn id_of(&self, text: &str) -> Option<u64> {
        self.added
            .get(text)
            .map(|(id, _)| *id)
            .or_else(|| self.vocab.get(text).copied())
    }
}

/// The tokenizer in `dir`, `None` when it has none. A tokenizer that exists only as a
/// SentencePiece `tokenizer.model` (not read) is a gap.
pub(crate) fn read(
    dir: &Path,
    gaps: &mut Vec<String>,
) -> Result<Option<TokenizerSpec>, ModelDirError> {
    let mut g = Gathered::default();
    let tokenizer_json = dir.join("tokenizer.json");
    if let Some(bytes) = read_bytes(&tokenizer_json, TOKENIZER_LIMIT)? {
        let t: TokenizerJson = parse_json(&tokenizer_json, &bytes)?;
        g.vocab = t.model.vocab.map(|v| v.0).unwrap_or_default();
        for a in t.added_tokens {
            g.added.insert(a.content, (a.id, a.special));
        }
        g.padding = t.padding;
        g.source = tokenizer_json.display().to_string();
    } else if let Some(bytes) = read_bytes(&dir.join("vocab.txt"), TOKENIZER_LIMIT)? {
        // WordPiece's vocab.txt: one token a line, the id is the line's index.
        let path = dir.join("vocab.txt");
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| ModelDirError::new(&path, Problem::Corrupt, format!("not UTF-8: {e}")))?;
        for (id, token) in text.lines().enumerate() {
            g.vocab.insert(token.to_string(), id as u64);
        }
        g.source = path.display().to_string();
    } else if let Some(vocab) =
        read_json::<HashMap<String, u64>>(&dir.join("vocab.json"), TOKENIZER_LIMIT)?
    {
        g.vocab = vocab;
        g.source = dir.join("vocab.json").display().to_string();
    } else if dir.join("tokenizer.model").is_file() {
        gaps.push(format!(
            "{}: a SentencePiece model, which labelguard does not read (no tokenizer.json beside it): the tokenizer is not checked",
            dir.join("tokenizer.model").display()
        ));
        return Ok(None);
    } else {
        return Ok(None);
    }

    // transformers 4's `added_tokens.json` of slow tokenizers: `{token: id}`.
    let added_json = dir.join("added_tokens.json");
    if let Some(added) = read_json::<HashMap<String, u64>>(&added_json, CONFIG_LIMIT)? {
        for (token, id) in added {
            g.added.entry(token).or_insert((id, false));
        }
    }
    for name in ["tokenizer_config.json", "special_tokens_map.json"] {
        let path = dir.join(name);
        if let Some(value) = read_json::<Value>(&path, CONFIG_LIMIT)? {
            read_config(&path, &value, &mut g)?;
        }
    }
    Ok(Some(finish(g)))
}

/// The text of a token as configurations write it: a string, or an `AddedToken` object
/// (`{"content": "<pad>", ...}`).
fn token_text(v: &Value) -> Option<&str> {
    v.as_str()
        .or_else(|| v.get("content").and_then(Value::as_str))
}

/// `tokenizer_config.json` or `special_tokens_map.json`: the special roles, the extra special
/// tokens, transformers 4's `added_tokens_decoder` and `model_max_length`.
fn read_config(path: &Path, value: &Value, g: &mut Gathered) -> Result<(), ModelDirError> {
    let top = value
        .as_object()
        .ok_or_else(|| ModelDirError::new(path, Problem::Corrupt, "not a JSON object"))?;
    if let Some(Value::Object(decoder)) = top.get("added_tokens_decoder") {
        for (id, token) in decoder {
            let (Ok(id), Some(text)) = (id.parse::<u64>(), token_text(token)) else {
                return Err(ModelDirError::new(
                    path,
                    Problem::Corrupt,
                    format!(
                        "added_tokens_decoder entry {} is not an id with a token's content",
                        labelguard_core::clip::echo(id)
                    ),
                ));
            };
            let special = token
                .get("special")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            g.added.entry(text.to_string()).or_insert((id, special));
        }
    }
    for role in ROLES {
        if let Some(text) = top.get(*role).and_then(token_text) {
            if !g.named.iter().any(|(r, _)| r == role) {
                g.named.push((role.to_string(), text.to_string()));
            }
        }
    }
    for list in EXTRA_LISTS {
        let items: Vec<&Value> = match top.get(*list) {
            Some(Value::Array(a)) => a.iter().collect(),
            Some(Value::Object(m)) => m.values().collect(),
            _ => continue,
        };
        for text in items.into_iter().filter_map(token_text) {
            g.named.push((list.to_string(), text.to_string()));
        }
    }
    // transformers writes 1e30 (`VERY_LARGE_INTEGER`) for "no limit".
    if g.model_max_length.is_none() {
        g.model_max_length = top
            .get("model_max_length")
            .and_then(Value::as_f64)
            .filter(|n| *n >= 1.0 && *n < 1e15)
            .map(|n| n as u64);
    }
    Ok(())
}

fn finish(g: Gathered) -> TokenizerSpec {
    let new_added = g.added.keys().filter(|t| !g.vocab.contains_key(*t)).count();
    let len = (g.vocab.len() + new_added) as u64;
    let max_id = g
        .vocab
        .values()
        .chain(g.added.values().map(|(id, _)| id))
        .copied()
        .max()
        .unwrap_or(0);
    let mut special: Vec<(String, i64)> = g
        .added
        .iter()
        .filter(|(_, (_, s))| *s)
        .map(|(t, (id, _))| (t.clone(), *id as i64))
        .collect();
    special.extend(
        g.named
            .iter()
            .filter_map(|(_, text)| g.id_of(text).map(|id| (text.clone(), id as i64))),
    );
    special.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0)));
    special.dedup();
    let mut added_tokens: Vec<(String, i64)> = g
        .added
        .iter()
        .filter(|(t, (_, s))| !s && !special.iter().any(|(x, _)| x == *t))
        .map(|(t, (id, _))| (t.clone(), *id as i64))
        .collect();
    added_tokens.sort_by_key(|(_, id)| *id);
    let pad_text = g
        .named
        .iter()
        .find(|(role, _)| role == "pad_token")
        .map(|(_, t)| t.as_str());
    let pad_token_id = match pad_text {
        Some(text) => g.id_of(text),
        None => g
            .padding
            .as_ref()
            .and_then(|p| p.pad_token.as_deref().and_then(|t| g.id_of(t)).or(p.pad_id)),
    };
    TokenizerSpec {
        source: g.source,
        len,
        max_id,
        special_tokens: special,
        added_tokens,
        pad_token_id: pad_token_id.map(|id| id as i64),
        model_max_length: g.model_max_length,
    }
}
