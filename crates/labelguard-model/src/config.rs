//! `config.json` (and a processor's configuration) into the numbers of a [`ModelSpec`].
//!
//! The field names and the defaults a `config.json` may leave out are transformers' own
//! (5.23.0, `models/*/configuration_*.py`); `save_pretrained` writes every field of the model's
//! configuration class, so the defaults serve only hand-written or trimmed files.

use crate::files::{read_json, CONFIG_LIMIT};
use crate::{ModelDirError, Problem};
use labelguard_core::clip::echo;
use labelguard_core::model::ModelSpec;
use serde_json::{Map, Value};
use std::path::Path;

/// Where a vision-language or encoder-decoder model keeps its language model's configuration:
/// `text_config` (LLaVA, Qwen2-VL, Gemma3, PaliGemma, Idefics, Mllama, BLIP-2, ...),
/// `language_config` / `llm_config` (DeepSeek-VL, InternVL's remote code), `decoder`
/// (`VisionEncoderDecoderConfig`: TrOCR, Donut).
const TEXT_CONFIGS: &[&str] = &["text_config", "language_config", "llm_config", "decoder"];

/// The names configurations give the same number, in the order they are tried.
const VOCAB_SIZE: &[&str] = &["vocab_size", "n_vocab", "padded_vocab_size"];
/// GPT-2, GPT-J and CodeGen: `n_positions` (`n_ctx` in old files); MPT: `max_seq_len`.
const MAX_POSITIONS: &[&str] = &[
    "max_position_embeddings",
    "n_positions",
    "n_ctx",
    "max_seq_len",
    "max_sequence_length",
];
/// LLaVA, Gemma3, PaliGemma, Mllama, Aya Vision, Mistral3: `image_token_index`; Qwen2-VL,
/// Idefics2/3, InternVL, Janus, Fuyu: `image_token_id`.
const IMAGE_TOKEN: &[&str] = &["image_token_index", "image_token_id"];
/// LLaVA, InternVL, GOT-OCR2: `image_seq_length`; Gemma3: `mm_tokens_per_image`; PaliGemma's
/// text config: `num_image_tokens`; Gemma3n: `vision_soft_tokens_per_image`; BLIP-2 and
/// InstructBLIP: `num_query_tokens`.
const TOKENS_PER_IMAGE: &[&str] = &[
    "image_seq_length",
    "mm_tokens_per_image",
    "num_image_tokens",
    "vision_soft_tokens_per_image",
    "num_query_tokens",
];

/// Models whose positions count from `padding_idx + 1` (transformers'
/// `create_position_ids_from_input_ids` over a learned table of `max_position_embeddings` rows).
const POSITIONS_FROM_PADDING: &[&str] = &[
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "camembert",
    "longformer",
    "data2vec-text",
    "roberta-prelayernorm",
    "ibert",
    "mpnet",
    "luke",
    "markuplm",
    "layoutlmv3",
    "lilt",
    "xmod",
    "esm",
];

/// Learned position tables: a longer sequence indexes past them.
const LEARNED_POSITIONS: &[&str] = &[
    "bert",
    "distilbert",
    "electra",
    "albert",
    "ernie",
    "megatron-bert",
    "layoutlm",
    "gpt2",
    "gpt_neo",
    "opt",
    "bart",
    "mbart",
    "blenderbot",
    "whisper",
    "biogpt",
    "clip_text_model",
];

/// Computed positions (relative buckets, ALiBi) for models whose configuration has no `rope_*`
/// field to say so.
const COMPUTED_POSITIONS: &[&str] = &["t5", "mt5", "umt5", "longt5", "bloom", "mpt"];

/// Defaults of configuration classes for the fields a hand-written `config.json` may leave out:
/// `(model_type, vocab_size, max_position_embeddings, type_vocab_size, pad_token_id)`, from
/// `AutoConfig.for_model(model_type)` of transformers 5.23.0.
#[allow(clippy::type_complexity)]
const DEFAULTS: &[(&str, u64, Option<u64>, Option<u64>, Option<i64>)] = &[
    ("bert", 30522, Some(512), Some(2), Some(0)),
    ("roberta", 50265, Some(512), Some(2), Some(1)),
    ("xlm-roberta", 30522, Some(512), Some(2), Some(1)),
    ("camembert", 30522, Some(512), Some(2), Some(1)),
    ("longformer", 30522, Some(512), Some(2), Some(1)),
    ("distilbert", 30522, Some(512), None, Some(0)),
    ("electra", 30522, Some(512), Some(2), Some(0)),
    ("albert", 30000, Some(512), Some(2), Some(0)),
    ("gpt2", 50257, Some(1024), None, None),
    ("gpt_neo", 50257, Some(2048), None, None),
    ("opt", 50272, Some(2048), None, Some(1)),
    ("llama", 32000, Some(2048), None, None),
    ("mistral", 32000, Some(131072), None, None),
    ("qwen2", 151936, Some(32768), None, None),
    ("gemma", 256000, Some(8192), None, Some(0)),
    ("t5", 32128, None, None, Some(0)),
    ("bart", 50265, Some(1024), None, Some(1)),
];

/// LLaVA's defaults (`LlavaConfig`): `image_token_index=32000`, `image_seq_length=576`.
const LLAVA_DEFAULTS: (i64, u64) = (32000, 576);

/// The tokens per image a configuration class implies when neither the config nor the
/// processor states them.
pub(crate) fn tokens_per_image_default(model_type: Option<&str>) -> Option<u64> {
    (model_type == Some("llava")).then_some(LLAVA_DEFAULTS.1)
}

/// A configuration object, its language model's nested one (if any), and the file, for messages.
struct Config<'a> {
    path: &'a Path,
    top: &'a Map<String, Value>,
    text: Option<&'a Map<String, Value>>,
}

impl<'a> Config<'a> {
    /// The first of `keys` present (the text config first, then the top level), with its key.
    fn find<'k>(&self, keys: &[&'k str]) -> Option<(&'k str, &'a Value)> {
        self.text
            .into_iter()
            .chain([self.top])
            .find_map(|m| keys.iter().find_map(|k| m.get(*k).map(|v| (*k, v))))
    }

    /// As [`Config::find`], the top level first: the multimodal fields are the wrapper's.
    fn find_top_first<'k>(&self, keys: &[&'k str]) -> Option<(&'k str, &'a Value)> {
        [self.top]
            .into_iter()
            .chain(self.text)
            .find_map(|m| keys.iter().find_map(|k| m.get(*k).map(|v| (*k, v))))
    }

    fn bad(&self, key: &str, v: &Value, what: &str) -> ModelDirError {
        ModelDirError::new(
            self.path,
            Problem::Corrupt,
            format!("{key} is {}, not {what}", echo(&v.to_string())),
        )
    }

    /// A count (`vocab_size`): a whole number >= 0; `null` is "not stated".
    fn count(&self, found: Option<(&str, &Value)>) -> Result<Option<u64>, ModelDirError> {
        match found {
            None | Some((_, Value::Null)) => Ok(None),
            Some((k, v)) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.bad(k, v, "a whole number >= 0")),
        }
    }

    /// A token id: a whole number (negative ones are kept: LG810 reports them); `null` is none.
    fn id(&self, found: Option<(&str, &Value)>) -> Result<Option<i64>, ModelDirError> {
        match found {
            None | Some((_, Value::Null)) => Ok(None),
            Some((k, v)) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| self.bad(k, v, "a token id")),
        }
    }

    /// Token ids given as one id or a list of them (`eos_token_id: [128001, 128009]`).
    fn ids(&self, found: Option<(&str, &Value)>) -> Result<Vec<i64>, ModelDirError> {
        match found {
            Some((k, Value::Array(items))) => items
                .iter()
                .map(|v| v.as_i64().ok_or_else(|| self.bad(k, v, "a token id")))
                .collect(),
            other => Ok(self.id(other)?.into_iter().collect()),
        }
    }

    fn string(&self, found: Option<(&str, &Value)>) -> Option<String> {
        found.and_then(|(_, v)| v.as_str()).map(str::to_string)
    }

    fn has_any(&self, keys: &[&str]) -> bool {
        self.find(keys).is_some()
    }
}

/// The model's description from `config.json` (`path`, parsed as `value`).
pub(crate) fn read(path: &Path, value: &Value) -> Result<ModelSpec, ModelDirError> {
    let top = value
        .as_object()
        .ok_or_else(|| ModelDirError::new(path, Problem::Corrupt, "not a JSON object"))?;
    let text = TEXT_CONFIGS
        .iter()
        .find_map(|k| top.get(*k).and_then(Value::as_object));
    let c = Config { path, top, text };

    let model_type = c.string(
        top.get_key_value("model_type")
            .map(|(k, v)| (k.as_str(), v)),
    );
    let text_type = text
        .and_then(|t| t.get("model_type"))
        .and_then(Value::as_str)
        .map(str::to_string);
    // The language model's type decides its defaults and positions (LLaVA's text model is a Llama).
    let lm_type = text_type.or(model_type.clone()).unwrap_or_default();
    let defaults = DEFAULTS.iter().find(|d| d.0 == lm_type);

    let architecture = match top.get("architectures") {
        Some(Value::Array(a)) => a.first().and_then(Value::as_str).map(str::to_string),
        _ => None,
    };
    let vocab_size = c.count(c.find(VOCAB_SIZE))?.or(defaults.map(|d| d.1));
    let stated = |keys: &[&str]| c.has_any(keys);
    let max_position_embeddings = match c.count(c.find(MAX_POSITIONS))? {
        Some(n) => Some(n),
        None if !stated(MAX_POSITIONS) => defaults.and_then(|d| d.2),
        None => None,
    };
    let type_vocab_size = match c.count(c.find(&["type_vocab_size"]))? {
        Some(n) => Some(n),
        None if !stated(&["type_vocab_size"]) => defaults.and_then(|d| d.3),
        None => None,
    };
    let pad_token_id = match c.id(c.find(&["pad_token_id"]))? {
        Some(id) => Some(id),
        None if !stated(&["pad_token_id"]) => defaults.and_then(|d| d.4),
        None => None,
    };
    let position_offset = if POSITIONS_FROM_PADDING.contains(&lm_type.as_str()) {
        pad_token_id.map_or(0, |p| p.max(0) as u64 + 1)
    } else {
        0
    };

    let llava = model_type.as_deref() == Some("llava");
    let image_token_id = c
        .id(c.find_top_first(IMAGE_TOKEN))?
        .or(llava.then_some(LLAVA_DEFAULTS.0));
    // LLaVA's default count serves after the processor's (see `tokens_per_image_default`).
    let tokens_per_image = c.count(c.find_top_first(TOKENS_PER_IMAGE))?;

    Ok(ModelSpec {
        source: String::new(),
        architecture: architecture.clone(),
        vocab_size,
        max_position_embeddings,
        learned_positions: learned_positions(&c, &lm_type, max_position_embeddings.is_some()),
        position_offset,
        is_encoder_decoder: top.get("is_encoder_decoder") == Some(&Value::Bool(true)),
        type_vocab_size,
        num_labels: num_labels(&c, architecture.as_deref())?,
        pad_token_id,
        bos_token_id: c.id(c.find(&["bos_token_id"]))?,
        eos_token_id: c.ids(c.find(&["eos_token_id"]))?,
        image_token_id,
        tokens_per_image,
        model_type,
        ..Default::default()
    })
}

/// Whether positions index a learned table: rotary, relative and ALiBi models compute theirs.
fn learned_positions(c: &Config, lm_type: &str, has_positions: bool) -> Option<bool> {
    let kind = c.string(c.find(&["position_embedding_type"]));
    let rotary = c.has_any(&[
        "rope_theta",
        "rope_scaling",
        "rope_parameters",
        "rotary_dim",
        "rotary_pct",
        "rotary_emb_base",
        "partial_rotary_factor",
    ]) || kind.as_deref() == Some("rotary")
        || c.find(&["alibi"])
            .is_some_and(|(_, v)| v == &Value::Bool(true));
    if rotary || COMPUTED_POSITIONS.contains(&lm_type) {
        Some(false)
    } else if kind.is_some()
        || LEARNED_POSITIONS.contains(&lm_type)
        || POSITIONS_FROM_PADDING.contains(&lm_type)
        || (has_positions && c.has_any(&["n_positions"]))
    {
        Some(true)
    } else {
        None
    }
}

/// A classification head's class count: `id2label`'s size, else `num_labels`, else 2 (the
/// `PreTrainedConfig` default) for a `...Classification` architecture; `None` for an
/// architecture without such a head (a language model's `id2label` is the default's, unused).
fn num_labels(c: &Config, architecture: Option<&str>) -> Result<Option<u64>, ModelDirError> {
    if architecture.is_some_and(|a| !a.contains("Classification")) {
        return Ok(None);
    }
    if let Some(Value::Object(labels)) = c.top.get("id2label") {
        return Ok(Some(labels.len() as u64));
    }
    if let Some(n) = c.count(
        c.top
            .get_key_value("num_labels")
            .map(|(k, v)| (k.as_str(), v)),
    )? {
        return Ok(Some(n));
    }
    Ok(architecture
        .is_some_and(|a| a.ends_with("Classification"))
        .then_some(2))
}

/// How many placeholder tokens one image expands to, from the processor's configuration
/// (`processor_config.json`, whose `image_processor` transformers 5 nests in it, and
/// `preprocessor_config.json`): a count it states (Idefics3's `image_seq_len`, PaliGemma's
/// `image_seq_length`, `num_image_tokens`), else, for LLaVA, the count `LlavaProcessor`
/// computes: `(crop height // patch_size) * (crop width // patch_size)
/// + num_additional_image_tokens`, minus 1 when `vision_feature_select_strategy` is `default`.
pub(crate) fn tokens_per_image_of_processor(
    dir: &Path,
    model_type: Option<&str>,
) -> Result<Option<u64>, ModelDirError> {
    const KEYS: &[&str] = &["image_seq_length", "image_seq_len", "num_image_tokens"];
    let mut files = Vec::new();
    for name in ["processor_config.json", "preprocessor_config.json"] {
        let path = dir.join(name);
        if let Some(value) = read_json::<Value>(&path, CONFIG_LIMIT)? {
            if !value.is_object() {
                return Err(ModelDirError::new(
                    &path,
                    Problem::Corrupt,
                    "not a JSON object",
                ));
            }
            files.push((path, value));
        }
    }
    let configs: Vec<Config> = files
        .iter()
        .map(|(path, value)| {
            let top = value.as_object().expect("checked above");
            let nested = top.get("image_processor").and_then(Value::as_object);
            Config {
                path,
                top,
                text: nested,
            }
        })
        .collect();
    for c in &configs {
        if let Some(n) = c.count(c.find(KEYS))? {
            return Ok(Some(n));
        }
    }
    if model_type != Some("llava") {
        return Ok(None);
    }
    let first = |key: &'static str| configs.iter().find_map(|c| c.find(&[key]).map(|f| (c, f)));
    let Some((c, patch)) = first("patch_size") else {
        return Ok(None);
    };
    let Some(patch) = c.count(Some(patch))?.filter(|p| *p > 0) else {
        return Ok(None);
    };
    let side = |crop: &Value, key: &str| crop.get(key).and_then(Value::as_u64).or(crop.as_u64());
    let Some((h, w)) = first("crop_size")
        .and_then(|(_, (_, crop))| Some((side(crop, "height")?, side(crop, "width")?)))
    else {
        return Ok(None);
    };
    let additional = match first("num_additional_image_tokens") {
        Some((c, found)) => c.count(Some(found))?.unwrap_or(0),
        None => 0,
    };
    let drops_cls = first("vision_feature_select_strategy")
        .is_some_and(|(_, (_, v))| v.as_str() == Some("default"));
    Ok(((h / patch) * (w / patch) + additional).checked_sub(u64::from(drops_cls)))
}
