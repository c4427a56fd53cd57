//! Chat JSONL (`messages`, ShareGPT `conversations`) scanned against a model directory with a
//! hand-written WordLevel `tokenizer.json` and a chat template: lengths after the template
//! (LG805), ids the embedding lacks (LG801), conversations the template refuses (LG816), and what
//! cannot be checked said (LG815) without failing a clean file. `tests/python/test_chat_templates.py`
//! compares the token counts with transformers' `apply_chat_template`.

#[allow(dead_code)]
mod common;

use common::{opts, scan};
use labelguard_core::Severity;
use labelguard_scan::config::Overrides;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Words of the vocabulary (ids 2..), after `<unk>` 0 and `<pad>` 1.
const WORDS: [&str; 6] = ["hi", "there", "sky", "blue", "user", "assistant"];

/// `<|im_start|>role content<|im_end|>` per message: 3 tokens plus the content's words.
const TEMPLATE: &str = "{% for m in messages %}{% if m.role not in ['user', 'assistant', 'system'] %}{{ raise_exception('Unknown role: ' + m.role) }}{% endif %}<|im_start|>{{ m.role }} {{ m.content | trim }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant{% endif %}";

/// A model directory: a WordLevel tokenizer (8 ids: 6 words, then the two ChatML tokens added as
/// special), `template` in `tokenizer_config.json` (none: no template), and a GPT-2 config of
/// `positions` positions and `vocab` rows.
fn model(dir: &Path, template: Option<&str>, positions: u64, vocab: u64) -> PathBuf {
    let m = dir.join(format!("model-{positions}-{vocab}-{}", template.is_some()));
    std::fs::create_dir(&m).expect("mkdir");
    let mut v: BTreeMap<&str, u64> = [("<unk>", 0), ("<pad>", 1)].into();
    for (i, w) in WORDS.iter().enumerate() {
        v.insert(w, i as u64 + 2);
    }
    let added = |id: u64, content: &str| {
        serde_json::json!({"id": id, "content": content, "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true})
    };
    let tokenizer = serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [added(0, "<unk>"), added(1, "<pad>"), added(8, "<|im_start|>"), added(9, "<|im_end|>")],
        "normalizer": null, "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null,
        "decoder": null, "model": {"type": "WordLevel", "vocab": v, "unk_token": "<unk>"}
    });
    std::fs::write(m.join("tokenizer.json"), tokenizer.to_string()).expect("tokenizer");
    let mut config = serde_json::json!({"tokenizer_class": "PreTrainedTokenizerFast",
        "unk_token": "<unk>", "pad_token": "<pad>", "eos_token": "<|im_end|>"});
    if let Some(t) = template {
        config["chat_template"] = t.into();
    }
    std::fs::write(m.join("tokenizer_config.json"), config.to_string()).expect("config");
    std::fs::write(
        m.join("config.json"),
        serde_json::json!({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
            "vocab_size": vocab, "n_positions": positions, "n_embd": 8, "n_layer": 1, "n_head": 2})
        .to_string(),
    )
    .expect("config");
    m
}

fn msg(role: &str, content: &str) -> serde_json::Value {
    serde_json::json!({"role": role, "content": content})
}

/// Rows: 0 is 2 + 3 + 3 + 2 = 10 tokens; 1 is 3 + 1 + 3 + 4 = 11; 2 is 3 + 5 = 8.
fn conversations() -> Vec<Vec<serde_json::Value>> {
    vec![
        vec![msg("user", "hi there"), msg("assistant", "  sky blue  ")],
        vec![msg("user", "hi"), msg("assistant", "sky blue is blue")],
        vec![msg("system", "hi there sky blue hi")],
    ]
}

fn write_rows(path: &Path, rows: &[serde_json::Value]) {
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, text).expect("write");
}

fn messages_file(dir: &Path, convs: &[Vec<serde_json::Value>]) -> PathBuf {
    let p = dir.join("chat.jsonl");
    let rows: Vec<serde_json::Value> = convs
        .iter()
        .map(|c| serde_json::json!({ "messages": c }))
        .collect();
    write_rows(&p, &rows);
    p
}

/// `code -> findings` of `scan data [--model model]`.
fn findings(data: &Path, model: Option<&Path>) -> BTreeMap<String, Vec<labelguard_core::Finding>> {
    let o = Overrides {
        model: model.map(Path::to_path_buf),
        ..Overrides::default()
    };
    let mut out: BTreeMap<String, Vec<labelguard_core::Finding>> = BTreeMap::new();
    for f in scan(data, &opts(o)).all_findings() {
        out.entry(f.finding.code.to_string())
            .or_default()
            .push(f.finding.clone());
    }
    out
}

fn rows_and_values(f: &labelguard_core::Finding) -> Vec<(usize, String)> {
    f.locations
        .iter()
        .map(|l| (l.index[0], l.value.clone()))
        .collect()
}

#[test]
fn a_clean_chat_file_gives_no_finding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = messages_file(dir.path(), &conversations());
    let m = model(dir.path(), Some(TEMPLATE), 11, 10);
    let found = findings(&data, Some(&m));
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn conversations_are_counted_after_the_template() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = messages_file(dir.path(), &conversations());
    // One position: every conversation is too long, each location its row's length.
    let m = model(dir.path(), Some(TEMPLATE), 1, 10);
    let found = findings(&data, Some(&m));
    assert_eq!(found.keys().collect::<Vec<_>>(), ["LG805"], "{found:?}");
    assert_eq!(
        rows_and_values(&found["LG805"][0]),
        [(0, "10".into()), (1, "11".into()), (2, "8".into())]
    );
    // Ten positions: only row 1 (11 tokens) is too long.
    let m = model(dir.path(), Some(TEMPLATE), 10, 10);
    let found = findings(&data, Some(&m));
    let f = &found["LG805"][0];
    assert_eq!(rows_and_values(f), [(1, "11".into())]);
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("chat template"), "{}", f.message);
}

#[test]
fn sharegpt_conversations_are_read_like_messages() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("sharegpt.jsonl");
    let rows: Vec<serde_json::Value> = conversations()
        .iter()
        .map(|c| {
            let turns: Vec<serde_json::Value> = c
                .iter()
                .map(|m| {
                    let from = match m["role"].as_str() {
                        Some("user") => "human",
                        Some("assistant") => "gpt",
                        _ => "system",
                    };
                    serde_json::json!({"from": from, "value": m["content"]})
                })
                .collect();
            serde_json::json!({ "conversations": turns })
        })
        .collect();
    write_rows(&p, &rows);
    let m = model(dir.path(), Some(TEMPLATE), 1, 10);
    let found = findings(&p, Some(&m));
    assert_eq!(
        rows_and_values(&found["LG805"][0]),
        [(0, "10".into()), (1, "11".into()), (2, "8".into())]
    );
}

#[test]
fn template_tokens_beyond_the_embedding_are_lg801() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = messages_file(dir.path(), &conversations());
    // 8 rows: the ChatML tokens (8, 9) were added to the tokenizer, the embedding not resized.
    let m = model(dir.path(), Some(TEMPLATE), 64, 8);
    let found = findings(&data, Some(&m));
    let f = &found["LG801"][0];
    let rows: Vec<usize> = f.locations.iter().map(|l| l.index[0]).collect();
    assert_eq!(rows[0], 0);
    assert!(f.locations.iter().all(|l| l.value == "8" || l.value == "9"));
    assert!(f.message.contains("in 3 rows"), "{}", f.message);
}

#[test]
fn a_conversation_the_template_refuses_is_lg816() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut convs = conversations();
    convs.push(vec![msg("tool", "sky")]);
    let data = messages_file(dir.path(), &convs);
    let m = model(dir.path(), Some(TEMPLATE), 64, 10);
    let found = findings(&data, Some(&m));
    assert_eq!(found.keys().collect::<Vec<_>>(), ["LG816"], "{found:?}");
    let f = &found["LG816"][0];
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.locations[0].index, [3]);
    assert!(f.message.contains("Unknown role: tool"), "{}", f.message);
}

#[test]
fn what_cannot_be_rendered_is_said_as_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = messages_file(dir.path(), &conversations());
    // No model.
    let found = findings(&data, None);
    assert_eq!(found.keys().collect::<Vec<_>>(), ["LG815"], "{found:?}");
    assert_eq!(found["LG815"][0].severity, Severity::Warning);
    assert!(found["LG815"][0]
        .message
        .contains("3 conversations not checked"));
    // A model without a chat template.
    let m = model(dir.path(), None, 64, 10);
    let found = findings(&data, Some(&m));
    assert!(
        found["LG815"][0].message.contains("no chat template"),
        "{found:?}"
    );
    // A template construct the renderer lacks: those rows, the others still checked.
    let m = model(
        dir.path(),
        Some("{{ messages[0].content | nosuchfilter }}"),
        64,
        10,
    );
    let found = findings(&data, Some(&m));
    assert_eq!(found.keys().collect::<Vec<_>>(), ["LG815"], "{found:?}");
    assert_eq!(found["LG815"][0].severity, Severity::Warning);
}

#[test]
fn rows_that_hold_no_conversation_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("chat.jsonl");
    write_rows(
        &p,
        &[
            serde_json::json!({"messages": [msg("user", "hi")]}),
            serde_json::json!({"messages": "hi"}),
        ],
    );
    let m = model(dir.path(), Some(TEMPLATE), 64, 10);
    let found = findings(&p, Some(&m));
    assert_eq!(found.keys().collect::<Vec<_>>(), ["LG602"], "{found:?}");
    assert_eq!(found["LG602"][0].locations[0].index, [1]);
}

/// Label masks: a template that marks the assistant's text (`{% generation %}`) trains on it
/// alone, so a conversation without an assistant turn has no label (LG804, a warning); the
/// same file under a template without the tag is trained on every token and is clean.
#[test]
fn a_conversation_without_an_answer_has_no_label_under_an_assistant_only_template() {
    let dir = tempfile::tempdir().expect("tmp");
    let marked = TEMPLATE.replace(
        "<|im_start|>{{ m.role }} {{ m.content | trim }}<|im_end|>",
        "<|im_start|>{{ m.role }} {% if m.role == 'assistant' %}{% generation %}{{ m.content | trim }}{% endgeneration %}{% else %}{{ m.content | trim }}{% endif %}<|im_end|>",
    );
    let data = messages_file(dir.path(), &conversations());
    let found = findings(&data, Some(&model(dir.path(), Some(&marked), 64, 10)));
    let lg804 = &found["LG804"];
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(lg804.len(), 1, "{lg804:?}");
    assert_eq!(lg804[0].severity, Severity::Warning);
    assert!(
        lg804[0]
            .message
            .contains("1 conversation has no assistant turn (row 2 "),
        "{}",
        lg804[0].message
    );
    let plain = findings(&data, Some(&model(dir.path(), Some(TEMPLATE), 65, 10)));
    assert!(plain.is_empty(), "{plain:?}");
}

#[test]
fn a_template_marker_the_tokenizer_splits_is_lg820_and_named_tokens_are_added_as_transformers_adds_them(
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = messages_file(dir.path(), &conversations());
    // `<|eot_id|>` is in no vocabulary: split into `<|`, `eot_id`, `|>` (three unknowns).
    let split = format!(
        "{{{{ bos_token }}}}{}",
        TEMPLATE.replace("<|im_end|>", "<|im_end|><|eot_id|>")
    );
    let m = model(dir.path(), Some(&split), 1, 10);
    // `bos_token` `<s>` is named in tokenizer_config.json but not in tokenizer.json: transformers
    // adds it at load, so it is one token (id 10) and no finding of its own.
    let config_path = m.join("tokenizer_config.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).expect("read")).expect("json");
    config["bos_token"] = "<s>".into();
    std::fs::write(&config_path, config.to_string()).expect("config");
    let found = findings(&data, Some(&m));
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        ["LG801", "LG805", "LG820"],
        "{found:?}"
    );
    let f = &found["LG820"][0];
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.message.contains("'<|eot_id|>'"), "{}", f.message);
    assert!(f.message.contains("3 pieces"), "{}", f.message);
    assert!(f.fix.contains("resize_token_embeddings"), "{f:?}");
    // Row 0: 10 tokens, 3 more per message for the split marker (2 messages), 1 for `<s>`.
    assert_eq!(rows_and_values(&found["LG805"][0])[0], (0, "17".into()));
    // `<s>` took id 10, past the 10-row embedding: LG801, as the model would hit it.
    assert!(
        found["LG801"][0].message.contains("10"),
        "{:?}",
        found["LG801"]
    );
}

#[test]
fn lg820_looks_at_the_markers_that_render_in_the_tokenizers_shapes_once_per_dataset() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Two files of one dataset (as the shards of a split), both rendering the same markers.
    let data = dir.path().join("data");
    std::fs::create_dir(&data).expect("mkdir");
    let rows: Vec<serde_json::Value> = conversations()
        .into_iter()
        .map(|c| serde_json::json!({ "messages": c }))
        .collect();
    write_rows(&data.join("train-00000.jsonl"), &rows);
    write_rows(&data.join("train-00001.jsonl"), &rows);
    // Gemma's `<start_of_turn>`, Llama 2's `[INST]`, and a tools branch that never renders for
    // this data (no conversation has tools).
    let template = "{% if tools %}<|tool_call|><tool_call>{% endif %}{% for m in messages %}<start_of_turn>{{ m.role }} [INST] {{ m.content }}<|im_end|>\n{% endfor %}";
    let m = model(dir.path(), Some(template), 64, 10);
    let found = findings(&data, Some(&m));
    // The tokenizer's own tokens are `<|...|>` (`<|im_start|>`) and `<...>` (`<unk>`, `<pad>`)
    // shaped: `<start_of_turn>` is a marker it lacks; `[INST]` is plain text to it (no `[...]`
    // token: Llama 2's design); `<|tool_call|>` and `<tool_call>` never rendered.
    let lg820 = &found["LG820"];
    assert_eq!(lg820.len(), 1, "{lg820:?}");
    assert!(
        lg820[0].message.contains("writes '<start_of_turn>'"),
        "{}",
        lg820[0].message
    );
    assert!(
        lg820[0].message.contains("3 pieces"),
        "{}",
        lg820[0].message
    );
    // A tokenizer with `[...]` control tokens (Mistral's): `[INST]` is a marker for it too.
    let config_path = m.join("tokenizer_config.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&config_path).expect("read")).expect("json");
    config["additional_special_tokens"] = serde_json::json!(["[AVAILABLE_TOOLS]"]);
    std::fs::write(&config_path, config.to_string()).expect("config");
    let found = findings(&data, Some(&m));
    let mut texts: Vec<&str> = found["LG820"]
        .iter()
        .map(|f| f.message.split('\'').nth(1).unwrap_or_default())
        .collect();
    texts.sort();
    assert_eq!(texts, ["<start_of_turn>", "[INST]"], "{:?}", found["LG820"]);
}
