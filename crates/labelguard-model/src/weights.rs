//! The rows of the input embedding and of the output head, from the weights' headers only
//! (`labelguard-io` reads a safetensors header with its limits; no tensor is read).

use crate::files::{read_json, TOKENIZER_LIMIT};
use crate::{ModelDirError, Problem};
use labelguard_core::model::ModelSpec;
use labelguard_io::TensorShape;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Weight files that make a folder a model's.
pub(crate) const FILES: &[&str] = &[
    SINGLE,
    INDEX,
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
];
const SINGLE: &str = "model.safetensors";
const INDEX: &str = "model.safetensors.index.json";

/// The last components of an input embedding's name, under any prefix (`model.`,
/// `bert.embeddings.`, `language_model.model.`, ...), most specific first: Llama and most
/// decoders `embed_tokens`, BERT-likes `word_embeddings`, GPT-2 `wte`, T5/BART `shared`,
/// GPT-NeoX `embed_in`, InternLM `tok_embeddings`, CLIP's text model `token_embedding`.
const INPUT_EMBEDDINGS: &[&str] = &[
    "embed_tokens.weight",
    "word_embeddings.weight",
    "wte.weight",
    "embed_in.weight",
    "tok_embeddings.weight",
    "token_embedding.weight",
    "shared.weight",
];
/// The output head of a language model (`lm_head`; GPT-NeoX `embed_out`).
const OUTPUT_HEADS: &[&str] = &["lm_head.weight", "embed_out.weight"];

/// `model.safetensors.index.json`: which shard holds each tensor.
#[derive(Deserialize)]
struct Index {
    weight_map: BTreeMap<String, String>,
}

/// Fills `embedding_rows` and `head_rows` from `model.safetensors` or the shards that its index
/// names. `pytorch_model.bin` (a pickle) is not opened: the config's `vocab_size` serves then.
pub(crate) fn read(dir: &Path, spec: &mut ModelSpec) -> Result<(), ModelDirError> {
    let index_path = dir.join(INDEX);
    let names: Vec<(String, String)> =
        if let Some(index) = read_json::<Index>(&index_path, TOKENIZER_LIMIT)? {
            index.weight_map.into_iter().collect()
        } else if dir.join(SINGLE).exists() {
            vec![]
        } else {
            return Ok(());
        };
    let mut shards: BTreeMap<String, Vec<TensorShape>> = BTreeMap::new();
    let mut shapes_of = |file: &str| -> Result<Vec<TensorShape>, ModelDirError> {
        if let Some(s) = shards.get(file) {
            return Ok(s.clone());
        }
        // A shard name from the index must stay inside the directory.
        if file.contains('/') || file.contains('\\') || file == ".." {
            return Err(ModelDirError::new(
                &index_path,
                Problem::Corrupt,
                format!(
                    "shard name {} is not a file of this directory",
                    labelguard_core::clip::echo(file)
                ),
            ));
        }
        let path = dir.join(file);
        let shapes =
            labelguard_io::read_safetensors_shapes(&path).map_err(|e| io_error(&path, e))?;
        shards.insert(file.to_string(), shapes.clone());
        Ok(shapes)
    };
    let pick = |names: &mut dyn Iterator<Item = &str>, suffixes: &[&str]| -> Option<String> {
        let names: Vec<&str> = names.collect();
        suffixes.iter().find_map(|s| {
            names
                .iter()
                .filter(|n| {
                    n.ends_with(s) && (n.len() == s.len() || n[..n.len() - s.len()].ends_with('.'))
                })
                .min_by_key(|n| n.len())
                .map(|n| n.to_string())
        })
    };
    let rows = |shapes: &[TensorShape], name: &str| -> Option<u64> {
        shapes
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.shape.first().copied())
    };
    if names.is_empty() {
        let shapes = shapes_of(SINGLE)?;
        let all = || shapes.iter().map(|t| t.name.as_str());
        if let Some(name) = pick(&mut all(), INPUT_EMBEDDINGS) {
            spec.embedding_rows = rows(&shapes, &name);
            spec.embedding_source = Some(format!("{name} in {}", dir.join(SINGLE).display()));
        }
        spec.head_rows = pick(&mut all(), OUTPUT_HEADS).and_then(|n| rows(&shapes, &n));
    } else {
        let shard_of = |name: &str| {
            names
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, f)| f.clone())
        };
        if let Some(name) = pick(&mut names.iter().map(|(n, _)| n.as_str()), INPUT_EMBEDDINGS) {
            let file = shard_of(&name).expect("picked from the index");
            spec.embedding_rows = rows(&shapes_of(&file)?, &name);
            spec.embedding_source = Some(format!("{name} in {}", dir.join(&file).display()));
        }
        if let Some(name) = pick(&mut names.iter().map(|(n, _)| n.as_str()), OUTPUT_HEADS) {
            let file = shard_of(&name).expect("picked from the index");
            spec.head_rows = rows(&shapes_of(&file)?, &name);
        }
    }
    if spec.embedding_rows.is_none() {
        spec.gaps.push(format!(
            "{}: no input embedding labelguard recognises ({}) among the weights",
            dir.join(if names.is_empty() { SINGLE } else { INDEX })
                .display(),
            INPUT_EMBEDDINGS.join(", ")
        ));
    }
    Ok(())
}

fn io_error(path: &Path, e: labelguard_io::ReadError) -> ModelDirError {
    use labelguard_io::ReadError as E;
    let problem = match &e {
        E::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => Problem::Missing,
        E::Io { .. } => Problem::Unreadable,
        E::TooLarge { .. } => Problem::TooLarge,
        E::UnknownFormat { .. } | E::Malformed { .. } => Problem::Corrupt,
    };
    let message = match e {
        E::Io { error, .. } => error.to_string(),
        E::UnknownFormat { .. } => "not a safetensors file (no safetensors header)".to_string(),
        E::Malformed { message, .. } | E::TooLarge { message, .. } => message,
    };
    ModelDirError::new(path, problem, message)
}
