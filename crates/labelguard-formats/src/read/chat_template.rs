//! A model directory's chat template and tokenizer, used as transformers'
//! `tokenizer.apply_chat_template(messages, tokenize=True)` uses them: the Jinja2 template
//! rendered with `messages`, `add_generation_prompt=False`, `tools=None`, `documents=None` and the
//! named special tokens as strings, then the text encoded by `tokenizer.json` without added
//! special tokens (and without the file's own truncation or padding).
//!
//! Facts from transformers 5.23 (`utils/chat_template_utils.py`, `_compile_jinja_template`,
//! `render_jinja_template`; `tokenization_utils_base.py`, `apply_chat_template`,
//! `special_tokens_map`, and the loading of `chat_template.jinja`): the environment has
//! `trim_blocks` and `lstrip_blocks`, loop controls, a `tojson` filter that is `json.dumps` (no
//! HTML escaping, `ensure_ascii=False`), `raise_exception(message)` and `strftime_now(format)`;
//! keys of a message whose value is `None` are dropped; `chat_template.jinja` is the template
//! when present, else `tokenizer_config.json`'s `chat_template` (a string, or a list of named
//! templates of which `default` is used); the `{% generation %}` tag marks assistant text and
//! renders its body as is. The named special tokens are added to the tokenizer as transformers
//! adds them at load ([`super::chat_specials`]).

pub use super::chat_specials::SplitToken;
use super::chat_specials::{add_config_tokens, split, template_markers, token_text};
use minijinja::value::{Kwargs, Value};
use minijinja::{Environment, Error, ErrorKind};
use std::collections::BTreeMap;
use std::path::Path;

/// The most bytes of `tokenizer.json` read (the largest vocabularies are tens of MiB).
const TOKENIZER_LIMIT: u64 = 256 << 20;
/// The most bytes of a configuration or template file read.
const CONFIG_LIMIT: u64 = 16 << 20;
/// Template instructions a conversation may take: a template that loops longer is refused
/// rather than hanging the scan.
const FUEL: u64 = 50_000_000;

/// The special-token names transformers passes to the template (`SPECIAL_TOKENS_ATTRIBUTES`).
const NAMED_TOKENS: [&str; 7] = [
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
];

/// The template and tokenizer of a model directory.
pub struct ChatTokenizer {
    env: Environment<'static>,
    tokenizer: tokenizers::Tokenizer,
    /// The named special tokens (`bos_token` -> `<s>`).
    specials: BTreeMap<&'static str, String>,
    /// Where the template came from, for messages.
    pub template_source: String,
    /// The template marks the assistant's text (`{% generation %}`): it is made for training on
    /// the assistant's tokens only (`return_assistant_tokens_mask`, TRL's `assistant_only_loss`).
    pub marks_assistant: bool,
    /// The markers the template writes literally ([`template_markers`]): checked as one token
    /// each when a rendered conversation holds them ([`ChatTokenizer::note_markers`]).
    markers: Vec<String>,
}

/// Why one conversation has no text.
#[derive(Clone, Debug, PartialEq)]
pub enum RenderError {
    /// The template raised (`raise_exception`): its words. Transformers raises the same.
    Refused(String),
    /// Anything else: a construct labelguard's renderer does not support, or one that fails in
    /// it; not a verdict on the conversation.
    Unsupported(String),
}

/// Marks the message of an error `raise_exception` raised, to tell it from the renderer's own.
const RAISED: &str = "\u{1}raise_exception: ";

/// Why a model directory's conversations cannot be rendered.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatSetupError {
    /// No `tokenizer.json` (a slow tokenizer's files are not read).
    NoTokenizer(String),
    /// No chat template in the directory.
    NoTemplate(String),
    /// A file that is there but cannot be used.
    Broken(String),
}

impl std::fmt::Display for ChatSetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChatSetupError::NoTokenizer(m)
            | ChatSetupError::NoTemplate(m)
            | ChatSetupError::Broken(m) => f.write_str(m),
        }
    }
}

/// The bytes of `path` (at most `limit`), `None` when it does not exist.
fn read_capped(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, ChatSetupError> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ChatSetupError::Broken(format!("{}: {e}", path.display()))),
    };
    let mut out = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| ChatSetupError::Broken(format!("{}: {e}", path.display())))?;
    if out.len() as u64 > limit {
        return Err(ChatSetupError::Broken(format!(
            "{} is larger than {} MiB",
            path.display(),
            limit >> 20
        )));
    }
    Ok(Some(out))
}

/// The template text of `tokenizer_config.json`'s `chat_template`: a string, or the `default` of
/// a list of `{name, template}`.
fn config_template(v: &serde_json::Value) -> Result<Option<String>, String> {
    match v {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(s) => Ok(Some(s.clone())),
        serde_json::Value::Array(list) => {
            let named = |want: &str| {
                list.iter().find_map(|t| {
                    (t.get("name")?.as_str()? == want)
                        .then(|| t.get("template")?.as_str().map(str::to_string))?
                })
            };
            match named("default") {
                Some(t) => Ok(Some(t)),
                None => Err(
                    "tokenizer_config.json has several chat templates and none named 'default'"
                        .into(),
                ),
            }
        }
        _ => Err("tokenizer_config.json's chat_template is neither a string nor a list".into()),
    }
}

/// `{% generation %}` / `{% endgeneration %}` (transformers' `AssistantTracker` tag, whose body
/// renders as is) as an always-true `if` block, so that whitespace control and `trim_blocks`
/// treat it as the block tag it is.
fn without_generation_tags(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find("{%") {
        out.push_str(&rest[..i]);
        let tag = &rest[i..];
        let Some(end) = tag.find("%}") else {
            out.push_str(tag);
            return out;
        };
        let inner = &tag[2..end];
        let (lead, body, trail) = split_control(inner);
        match body.trim() {
            "generation" => out.push_str(&format!("{{%{lead} if true {trail}%}}")),
            "endgeneration" => out.push_str(&format!("{{%{lead} endif {trail}%}}")),
            _ => out.push_str(&tag[..end + 2]),
        }
        rest = &tag[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A block tag's inside as its leading whitespace control (`-`, `+`), body and trailing one.
fn split_control(inner: &str) -> (&str, &str, &str) {
    let lead = if inner.starts_with(['-', '+']) {
        &inner[..1]
    } else {
        ""
    };
    let inner = &inner[lead.len()..];
    let trail = if inner.ends_with(['-', '+']) {
        &inner[inner.len() - 1..]
    } else {
        ""
    };
    (lead, &inner[..inner.len() - trail.len()], trail)
}

impl ChatTokenizer {
    /// The template and tokenizer of the model directory `dir`.
    pub fn load(dir: &Path) -> Result<ChatTokenizer, ChatSetupError> {
        let tokenizer_json = dir.join("tokenizer.json");
        let Some(bytes) = read_capped(&tokenizer_json, TOKENIZER_LIMIT)? else {
            return Err(ChatSetupError::NoTokenizer(format!(
                "{} has no tokenizer.json (only fast tokenizers' files are read)",
                dir.display()
            )));
        };
        let mut tokenizer = tokenizers::Tokenizer::from_bytes(&bytes)
            .map_err(|e| ChatSetupError::Broken(format!("{}: {e}", tokenizer_json.display())))?;
        // `apply_chat_template` tokenizes with truncation and padding off.
        tokenizer
            .with_truncation(None)
            .map_err(|e| ChatSetupError::Broken(e.to_string()))?;
        tokenizer.with_padding(None);

        let config_path = dir.join("tokenizer_config.json");
        let config: serde_json::Value = match read_capped(&config_path, CONFIG_LIMIT)? {
            Some(b) => serde_json::from_slice(&b)
                .map_err(|e| ChatSetupError::Broken(format!("{}: {e}", config_path.display())))?,
            None => serde_json::Value::Null,
        };
        let specials = NAMED_TOKENS
            .iter()
            .filter_map(|&name| Some((name, token_text(config.get(name)?)?)))
            .collect::<BTreeMap<_, _>>();
        let named: Vec<&str> = specials.values().map(String::as_str).collect();
        add_config_tokens(&mut tokenizer, &named, &config);
        let jinja_path = dir.join("chat_template.jinja");
        let (template, template_source) = match read_capped(&jinja_path, CONFIG_LIMIT)? {
            Some(b) => (
                String::from_utf8(b).map_err(|_| {
                    ChatSetupError::Broken(format!("{} is not UTF-8", jinja_path.display()))
                })?,
                jinja_path.display().to_string(),
            ),
            None => {
                let t = config_template(
                    config
                        .get("chat_template")
                        .unwrap_or(&serde_json::Value::Null),
                )
                .map_err(ChatSetupError::Broken)?;
                match t {
                    Some(t) => (t, config_path.display().to_string()),
                    None => {
                        return Err(ChatSetupError::NoTemplate(format!(
                            "{} has no chat template (no chat_template.jinja, no chat_template in tokenizer_config.json)",
                            dir.display()
                        )))
                    }
                }
            }
        };
        let added: Vec<String> = tokenizer
            .get_added_tokens_decoder()
            .into_values()
            .map(|t| t.content)
            .collect();
        let markers = template_markers(&template, &added);
        let plain = without_generation_tags(&template);
        let marks_assistant = plain != template;
        let env = environment(plain).map_err(|e| {
            ChatSetupError::Broken(format!("the chat template of {template_source}: {e}"))
        })?;
        Ok(ChatTokenizer {
            env,
            tokenizer,
            specials,
            template_source,
            marks_assistant,
            markers,
        })
    }

    /// Notes in `seen` (one flag per marker of the template) the markers that `text`, a
    /// rendered conversation, holds: a marker of a branch that never renders for the data
    /// (a tools branch of a dataset without tools) is never noted.
    pub fn note_markers(&self, text: &str, seen: &mut Vec<bool>) {
        seen.resize(self.markers.len(), false);
        for (m, s) in self.markers.iter().zip(seen.iter_mut()) {
            *s = *s || text.contains(m.as_str());
        }
    }

    /// The markers noted in `seen` that the tokenizer splits into pieces.
    pub fn split_markers(&self, seen: &[bool]) -> Vec<SplitToken> {
        self.markers
            .iter()
            .zip(seen)
            .filter(|(_, s)| **s)
            .filter_map(|(m, _)| split(&self.tokenizer, m))
            .collect()
    }

    /// The text of one conversation (`messages`: a list of message objects).
    pub fn render(&self, messages: &serde_json::Value) -> Result<String, RenderError> {
        let mut ctx: BTreeMap<&str, Value> = self
            .specials
            .iter()
            .map(|(k, v)| (*k, Value::from(v.as_str())))
            .collect();
        let messages = serde::Deserialize::deserialize(without_nulls(messages))
            .map_err(|e| RenderError::Unsupported(format!("the messages: {e}")))?;
        ctx.insert("messages", messages);
        ctx.insert("add_generation_prompt", Value::from(false));
        ctx.insert("tools", Value::from(()));
        ctx.insert("documents", Value::from(()));
        let t = self
            .env
            .get_template("chat")
            .map_err(|e| template_error(&e))?;
        t.render(Value::from_pairs(ctx))
            .map_err(|e| template_error(&e))
    }

    /// The token ids of a rendered conversation.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>, String> {
        self.tokenizer
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| format!("the tokenizer failed: {e}"))
    }
}

/// Messages with the keys whose value is `null` dropped, as transformers drops them.
fn without_nulls(messages: &serde_json::Value) -> serde_json::Value {
    match messages {
        serde_json::Value::Array(list) => list
            .iter()
            .map(|m| match m {
                serde_json::Value::Object(o) => serde_json::Value::Object(
                    o.iter()
                        .filter(|(_, v)| !v.is_null())
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                ),
                other => other.clone(),
            })
            .collect(),
        other => other.clone(),
    }
}

/// A template error: `raise_exception`'s message as the template wrote it, or the renderer's
/// error with the template's line.
fn template_error(e: &Error) -> RenderError {
    match e.detail().and_then(|d| d.strip_prefix(RAISED)) {
        Some(words) => RenderError::Refused(words.to_string()),
        None => RenderError::Unsupported(e.to_string()),
    }
}

/// The environment transformers compiles a chat template in, with the template as `chat`.
fn environment(template: String) -> Result<Environment<'static>, Error> {
    let mut env = Environment::new();
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()?,
    );
    env.set_fuel(Some(FUEL));
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_filter("tojson", tojson);
    env.add_function(
        "raise_exception",
        |message: String| -> Result<Value, Error> {
            Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("{RAISED}{message}"),
            ))
        },
    );
    env.add_function("strftime_now", |format: String| -> Result<Value, Error> {
        strftime_now(&format).map(Value::from)
    });
    env.add_template_owned("chat", template)?;
    Ok(env)
}

/// `json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
fn tojson(value: Value, kwargs: Kwargs) -> Result<Value, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    let sort_keys: Option<bool> = kwargs.get("sort_keys")?;
    let separators: Option<Vec<String>> = kwargs.get("separators")?;
    let _ensure_ascii: Option<bool> = kwargs.get("ensure_ascii")?;
    kwargs.assert_all_used()?;
    let (item, key) = match separators.as_deref() {
        Some([item, key]) => (item.clone(), key.clone()),
        Some(_) => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "tojson: separators must be two strings",
            ))
        }
        // Python's defaults: ", " without an indent, "," with one.
        None if indent.is_some() => (",".to_string(), ": ".to_string()),
        None => (", ".to_string(), ": ".to_string()),
    };
    let json = serde_json::to_value(&value)
        .map_err(|e| Error::new(ErrorKind::BadSerialization, e.to_string()))?;
    let mut out = String::new();
    let style = PyJson {
        indent,
        item: &item,
        key: &key,
        sort_keys: sort_keys.unwrap_or(false),
    };
    style.write(&json, 0, &mut out);
    Ok(Value::from(out))
}

/// How Python's `json.dumps` lays a value out.
struct PyJson<'a> {
    indent: Option<usize>,
    item: &'a str,
    key: &'a str,
    sort_keys: bool,
}

impl PyJson<'_> {
    fn newline(&self, depth: usize, out: &mut String) {
        if let Some(n) = self.indent {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', n * depth));
        }
    }

    fn write(&self, v: &serde_json::Value, depth: usize, out: &mut String) {
        use serde_json::Value as J;
        match v {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Number(n) => out.push_str(&n.to_string()),
            J::String(s) => py_string(s, out),
            J::Array(a) if a.is_empty() => out.push_str("[]"),
            J::Object(o) if o.is_empty() => out.push_str("{}"),
            J::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(self.item);
                    }
                    self.newline(depth + 1, out);
                    self.write(x, depth + 1, out);
                }
                self.newline(depth, out);
                out.push(']');
            }
            J::Object(o) => {
                let mut entries: Vec<(&String, &J)> = o.iter().collect();
                if self.sort_keys {
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                }
                out.push('{');
                for (i, (k, x)) in entries.into_iter().enumerate() {
                    if i > 0 {
                        out.push_str(self.item);
                    }
                    self.newline(depth + 1, out);
                    py_string(k, out);
                    out.push_str(self.key);
                    self.write(x, depth + 1, out);
                }
                self.newline(depth, out);
                out.push('}');
            }
        }
    }
}

/// A JSON string as Python writes it with `ensure_ascii=False`.
fn py_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `datetime.now().strftime(format)` (UTC) for the directives chat templates use; another
/// directive is an error rather than a guess.
fn strftime_now(format: &str) -> Result<String, Error> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_date((secs / 86_400) as i64);
    let (hh, mm, ss) = (secs % 86_400 / 3600, secs % 3600 / 60, secs % 60);
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let month = MONTHS[(m - 1) as usize];
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('Y') => out.push_str(&y.to_string()),
            Some('y') => out.push_str(&format!("{:02}", y % 100)),
            Some('m') => out.push_str(&format!("{m:02}")),
            Some('d') => out.push_str(&format!("{d:02}")),
            Some('B') => out.push_str(month),
            Some('b') => out.push_str(&month[..3]),
            Some('H') => out.push_str(&format!("{hh:02}")),
            Some('M') => out.push_str(&format!("{mm:02}")),
            Some('S') => out.push_str(&format!("{ss:02}")),
            Some('%') => out.push('%'),
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "strftime_now: the directive %{} is not supported",
                        other.map(String::from).unwrap_or_default()
                    ),
                ))
            }
        }
    }
    Ok(out)
}

/// Year, month, day of a day count since 1970-01-01 (the proleptic Gregorian calendar).
fn civil_date(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_tags_become_plain_blocks() {
        assert_eq!(
            without_generation_tags("a{% generation %}b{%- endgeneration -%}c{{ x }}"),
            "a{% if true %}b{%- endif -%}c{{ x }}"
        );
        assert_eq!(without_generation_tags("{% if x %}"), "{% if x %}");
    }

    #[test]
    fn tojson_writes_what_python_json_dumps_writes() {
        let env = environment("{{ x | tojson }}|{{ x | tojson(indent=2) }}".into()).unwrap();
        let x = serde_json::json!({"b": [1, "é<\"\n"], "a": {}});
        let s = env
            .get_template("chat")
            .unwrap()
            .render(
                minijinja::context! { x => <Value as serde::Deserialize>::deserialize(x).unwrap() },
            )
            .unwrap();
        // json.dumps({"a": {}, "b": [1, 'é<"\n']}) (serde_json's map is sorted: a before b).
        assert_eq!(
            s,
            "{\"a\": {}, \"b\": [1, \"é<\\\"\\n\"]}|{\n  \"a\": {},\n  \"b\": [\n    1,\n    \"é<\\\"\\n\"\n  ]\n}"
        );
    }

    #[test]
    fn raise_exception_is_an_error_with_the_templates_words() {
        let env = environment("{{ raise_exception('roles must alternate') }}".into()).unwrap();
        let e = env.get_template("chat").unwrap().render(()).unwrap_err();
        assert_eq!(
            template_error(&e),
            RenderError::Refused("roles must alternate".into())
        );
        let env = environment("{{ x.y.z }}".into()).unwrap();
        let e = env.get_template("chat").unwrap().render(()).unwrap_err();
        assert!(matches!(template_error(&e), RenderError::Unsupported(_)));
    }

    #[test]
    fn civil_dates_are_right() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        // 2024-02-29 is day 19782.
        assert_eq!(civil_date(19_782), (2024, 2, 29));
        assert!(strftime_now("%d %b %Y").is_ok());
        assert!(strftime_now("%j").is_err());
    }
}
