//! What a language or vision-language model accepts as token data, as plain numbers.
//!
//! A [`ModelSpec`] is filled either offline from a model directory (`config.json`,
//! `tokenizer.json`, ...: the `labelguard-model` crate) or from a live model and tokenizer (the
//! Python `labelguard.check_model`). The checks of token data (scan's LG801-LG808) and of the
//! tokenizer against the model (LG809-LG813) read only this, so that both sources give the same
//! findings. `None` means "not known", never "zero": a check whose number is unknown is skipped.

use serde::{Deserialize, Serialize};

mod check;
pub use check::{check_head_labels, check_model};

/// The token-facing tables of one model, and its tokenizer where one was found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    /// Where the description came from (a directory, or `model` for a live one), for messages.
    pub source: String,
    /// `config.json`'s `model_type` (`llama`, `bert`, `llava`, ...).
    pub model_type: Option<String>,
    /// `config.json`'s `architectures[0]` (`LlamaForCausalLM`, ...).
    pub architecture: Option<String>,
    /// `vocab_size` of the text config: the rows the config promises the word table has.
    pub vocab_size: Option<u64>,
    /// Rows of the input embedding as stored (a weight file's header, or the live table). When
    /// known it is the truth for lookups; it differs from `vocab_size` after a resize.
    pub embedding_rows: Option<u64>,
    /// Rows of the output head (`lm_head`), when it is a separate table.
    pub head_rows: Option<u64>,
    /// `max_position_embeddings` as the config states it.
    pub max_position_embeddings: Option<u64>,
    /// Whether positions are rows of a learned table (BERT, GPT-2: a longer sequence indexes past
    /// it) rather than computed (rotary, relative, ALiBi: Llama, T5: no lookup, no crash);
    /// `None` when the architecture does not say.
    pub learned_positions: Option<bool>,
    /// Positions the model reserves before the first token: RoBERTa-style models count positions
    /// from `padding_idx + 1`, so a sequence may hold `max_position_embeddings - offset` tokens.
    pub position_offset: u64,
    /// Encoder-decoder models (T5, BART, ...: `is_encoder_decoder` in `config.json`): their
    /// `labels` are the decoder's targets, a sequence of its own length, not `input_ids`'.
    #[serde(default)]
    pub is_encoder_decoder: bool,
    /// `type_vocab_size` (2 for BERT); `None` for models without token types.
    pub type_vocab_size: Option<u64>,
    /// Classification heads: `num_labels` (from `id2label` or `num_labels`).
    pub num_labels: Option<u64>,
    /// Special token ids the config names.
    pub pad_token_id: Option<i64>,
    pub bos_token_id: Option<i64>,
    pub eos_token_id: Vec<i64>,
    /// Vision-language models: the placeholder id that marks where image features go
    /// (`image_token_index` / `image_token_id`).
    pub image_token_id: Option<i64>,
    /// How many placeholder tokens one image expands to, where the config or the processor says
    /// so (LLaVA: `image_seq_length`, PaliGemma: `num_image_tokens`, ...).
    pub tokens_per_image: Option<u64>,
    /// The tokenizer found beside the model, if any.
    pub tokenizer: Option<TokenizerSpec>,
    /// What the reader looked for and did not find (`config.json: no vocab_size ...`), each
    /// naming its file: the checks that need it cannot run (LG813 says so).
    pub gaps: Vec<String>,
    /// Where `embedding_rows` was read (`model.safetensors`, `get_input_embeddings()`), for messages.
    pub embedding_source: Option<String>,
}

/// What the tokenizer can emit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenizerSpec {
    /// Where it was read from (`tokenizer.json`, or `tokenizer` for a live one).
    pub source: String,
    /// `len(tokenizer)`: the base vocabulary plus added tokens.
    pub len: u64,
    /// The largest id the tokenizer can emit (usually `len - 1`).
    pub max_id: u64,
    /// Special tokens with their ids, in id order: the special added tokens and those the
    /// tokenizer's configuration names (pad, bos, eos, unk, ...).
    pub special_tokens: Vec<(String, i64)>,
    /// Added tokens that are not special (`tokenizer.add_tokens([...])`), in id order.
    pub added_tokens: Vec<(String, i64)>,
    /// The padding token's id, when the tokenizer has one.
    pub pad_token_id: Option<i64>,
    /// `model_max_length` of `tokenizer_config.json`, when it is a real bound (not 1e30).
    pub model_max_length: Option<u64>,
}

impl ModelSpec {
    /// The rows a token lookup may use: the stored table when known, else the config's count.
    pub fn token_rows(&self) -> Option<u64> {
        self.embedding_rows.or(self.vocab_size)
    }

    /// Where [`ModelSpec::token_rows`] comes from, for messages: `the input embedding's 32000 rows
    /// (model.safetensors)` or `vocab_size 32000 (config.json)`.
    pub fn token_rows_described(&self) -> Option<String> {
        use crate::finding::thousands;
        match (self.embedding_rows, self.vocab_size) {
            (Some(rows), _) => Some(format!(
                "the input embedding's {} rows ({})",
                thousands(rows),
                self.embedding_source.as_deref().unwrap_or(&self.source)
            )),
            (None, Some(v)) => Some(format!("vocab_size {} ({})", thousands(v), self.source)),
            (None, None) => None,
        }
    }

    /// The longest sequence the position table holds, after the offset of RoBERTa-style models.
    pub fn max_sequence_len(&self) -> Option<u64> {
        self.max_position_embeddings
            .map(|m| m.saturating_sub(self.position_offset))
    }
}
