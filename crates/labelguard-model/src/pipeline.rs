//! A diffusers pipeline's text encoders and their tokenizers: `DiffusionPipeline.save_pretrained`
//! writes each component to its own folder beside `model_index.json`, the text encoder's
//! tokenizer in the sibling folder of the same suffix (`text_encoder` with `tokenizer`,
//! `text_encoder_2` with `tokenizer_2`, as Stable Diffusion XL and 3 name them).

use std::path::{Path, PathBuf};

/// The file that makes a folder a diffusers pipeline.
const INDEX: &str = "model_index.json";
const TEXT_ENCODER: &str = "text_encoder";
const TOKENIZER: &str = "tokenizer";

/// The tokenizer folder of the text encoder `dir` of a pipeline, when `dir` is one and its
/// sibling tokenizer folder exists.
pub(crate) fn tokenizer_dir(dir: &Path) -> Option<PathBuf> {
    let name = dir.file_name()?.to_str()?;
    let suffix = name.strip_prefix(TEXT_ENCODER)?;
    let parent = dir.parent()?;
    if !parent.join(INDEX).is_file() {
        return None;
    }
    let tokenizer = parent.join(format!("{TOKENIZER}{suffix}"));
    tokenizer.is_dir().then_some(tokenizer)
}
