//! A Hugging Face model directory read offline into a [`ModelSpec`]: `config.json` (and its
//! nested `text_config`), the tokenizer's files, the image processor's, and the rows of the
//! embedding from the weights' headers. Nothing is downloaded, no tensor is read, every file is
//! read up to a size limit, and a file that cannot be read is an error naming it.
//!
//! The tokenizer files are parsed with serde, not the `tokenizers` crate: only the vocabulary's
//! ids and the added tokens are needed, and `tokenizers` (73 crates, a C++ suffix-array library
//! among them) took 138 s of CPU for a clean release build even with `default-features = false,
//! features = ["fancy-regex"]` (2 cores: over a minute of wall time in CI, for one number).

mod config;
mod files;
mod pipeline;
mod tokenizer;
mod weights;

use labelguard_core::model::ModelSpec;
use std::fmt;
use std::path::{Path, PathBuf};

pub use files::{CONFIG_LIMIT, TOKENIZER_LIMIT};

/// What is wrong with a file of a model directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A required file is not there (`config.json`).
    Missing,
    /// It exists but cannot be read: permissions, not a regular file, an I/O error.
    Unreadable,
    /// It is empty (0 bytes).
    Empty,
    /// It is larger than labelguard reads for its kind.
    TooLarge,
    /// It is not what its name says: malformed JSON, a field of the wrong type, a bad header.
    Corrupt,
}

/// Why a model directory could not be read: the file, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelDirError {
    pub path: PathBuf,
    pub problem: Problem,
    pub message: String,
}

impl fmt::Display for ModelDirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ModelDirError {}

impl ModelDirError {
    pub(crate) fn new(path: &Path, problem: Problem, message: impl Into<String>) -> Self {
        ModelDirError {
            path: path.to_path_buf(),
            problem,
            message: message.into(),
        }
    }
}

/// Whether `dir` looks like a model directory: a `config.json` beside tokenizer files or weights.
pub fn is_model_dir(dir: &Path) -> bool {
    let names = std::fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| e.file_name().into_string().ok())
                .collect::<Vec<String>>()
        })
        .unwrap_or_default();
    marks_model_dir(names.iter().map(String::as_str))
}

/// Whether the file names of one folder make it a model directory: `config.json` beside a
/// tokenizer's files or a model's weights (a dataset's `config.json` alone does not).
pub fn marks_model_dir<'a>(names: impl IntoIterator<Item = &'a str>) -> bool {
    let (mut config, mut other) = (false, false);
    for name in names {
        config |= name == files::CONFIG;
        other |= tokenizer::FILES.contains(&name) || weights::FILES.contains(&name);
    }
    config && other
}

/// The description a configuration gives, from its JSON (`config.json`'s contents, or a live
/// model's `config.to_dict()`): the same parser for both, so that a live model and its saved
/// directory are described alike. `source` names it in messages.
pub fn read_config(value: &serde_json::Value, source: &str) -> Result<ModelSpec, ModelDirError> {
    let mut spec = config::read(Path::new(source), value)?;
    spec.source = source.to_string();
    Ok(spec)
}

/// Reads the model directory `dir`: `config.json` is required; the tokenizer (for a diffusers
/// pipeline's `text_encoder*/`, its `tokenizer*/` sibling's), the processor's configuration and
/// the weights are read where present. What is missing but not required is
/// recorded in [`ModelSpec::gaps`] (LG813), not an error.
pub fn read_model_dir(dir: &Path) -> Result<ModelSpec, ModelDirError> {
    let meta = std::fs::metadata(dir)
        .map_err(|e| ModelDirError::new(dir, Problem::Unreadable, e.to_string()))?;
    if !meta.is_dir() {
        return Err(ModelDirError::new(
            dir,
            Problem::Unreadable,
            "not a directory (a model directory holds config.json and the tokenizer's files)",
        ));
    }
    let config_path = dir.join(files::CONFIG);
    let config = files::read_json(&config_path, CONFIG_LIMIT)?.ok_or_else(|| {
        ModelDirError::new(
            &config_path,
            Problem::Missing,
            "missing: a model directory needs config.json (vocab_size, max_position_embeddings, ...)",
        )
    })?;
    let mut spec = config::read(&config_path, &config)?;
    spec.source = dir.display().to_string();
    weights::read(dir, &mut spec)?;
    spec.tokenizer = match tokenizer::read(dir, &mut spec.gaps)? {
        Some(t) => Some(t),
        // A pipeline's text encoder: its tokenizer is the sibling folder's.
        None => match pipeline::tokenizer_dir(dir) {
            Some(t) => tokenizer::read(&t, &mut spec.gaps)?,
            None => None,
        },
    };
    if spec.tokens_per_image.is_none() && spec.image_token_id.is_some() {
        spec.tokens_per_image =
            config::tokens_per_image_of_processor(dir, spec.model_type.as_deref())?
                .or(config::tokens_per_image_default(spec.model_type.as_deref()));
    }
    if spec.token_rows().is_none() {
        spec.gaps.push(format!(
            "{}: no vocab_size{}, and no input embedding in the weights",
            config_path.display(),
            spec.model_type
                .as_deref()
                .map(|t| format!(
                    " (model_type '{}' has no default labelguard knows)",
                    labelguard_core::clip::echo(t)
                ))
                .unwrap_or_default()
        ));
    }
    Ok(spec)
}

#[cfg(test)]
mod tests;
