//! Models' trees that are not labels: a diffusers pipeline (`model_index.json` with a folder per
//! component) and the weight folders of models.
//!
//! A pipeline is read as models: each `text_encoder*/` is a language model, checked against its
//! `tokenizer*/` (`labelguard_model` pairs them); its other components (`unet/`, `vae/`,
//! `scheduler/`, ...) hold weights and configurations, never labels. A folder holding a model's
//! configuration (`config.json`, `adapter_config.json` with a model's keys: `model_type`,
//! `_class_name`, `peft_type`, ...) beside weight files (`*.safetensors`, `*.bin`, `*.pt`,
//! `*.pth`, `*.ckpt`) owns them too: a `unet/` saved on its own, a PEFT adapter, a checkpoint
//! whose weights are not named as a language model's. A dataset's `config.json` beside label
//! arrays in safetensors is no model's: its arrays are still scanned.

use super::item::{RootScan, Task};
use super::paths::{folders, has_ext, Folders};
use labelguard_formats::walk::Entry;
use std::collections::BTreeSet;

/// The file that makes a folder a diffusers pipeline (`DiffusionPipeline.save_pretrained`).
const INDEX: &str = "model_index.json";
/// Files that make a folder a model's (beside weights).
const CONFIGS: &[&str] = &["config.json", "adapter_config.json", INDEX];
/// The extensions of weight files: safetensors, PyTorch's pickles, Lightning's checkpoints.
pub(crate) const WEIGHT_EXTS: &[&str] = &["safetensors", "bin", "pt", "pth", "ckpt"];
/// A pipeline's text encoders (`text_encoder`, `text_encoder_2`, ...).
const TEXT_ENCODER: &str = "text_encoder";
const CONFIG: &str = "config.json";

/// The pipelines among `files`: each folder holding `model_index.json` (relative path, `""` the
/// root), with what it owns: every file and folder directly in it (its components).
/// (`folders`: the [`folders`] of `files`.)
pub(crate) fn trees(files: &[&Entry], folders: &Folders<'_>) -> Vec<(String, Vec<String>)> {
    let bases: Vec<String> = folders
        .iter()
        .filter(|(_, names)| names.contains(&INDEX))
        .map(|(dir, _)| dir.clone())
        .collect();
    bases
        .into_iter()
        .map(|base| {
            let owned: BTreeSet<String> = files
                .iter()
                .filter_map(|e| below(&e.rel, &base))
                .filter_map(|rest| rest.split('/').next())
                .map(str::to_string)
                .collect();
            (base, owned.into_iter().collect())
        })
        .collect()
}

/// `rel` relative to the folder `base` (`""` the root), when it is below it.
fn below<'r>(rel: &'r str, base: &str) -> Option<&'r str> {
    if base.is_empty() {
        return Some(rel);
    }
    rel.strip_prefix(base)?.strip_prefix('/')
}

/// The keys one of which a model's configuration holds: transformers' (`model_type`,
/// `architectures`, `transformers_version`), diffusers' (`_class_name`, `_diffusers_version`),
/// PEFT's (`peft_type`). A dataset's `config.json` beside label arrays in safetensors holds none.
const MODEL_KEYS: &[&str] = &[
    "model_type",
    "architectures",
    "transformers_version",
    "_class_name",
    "_diffusers_version",
    "peft_type",
];
/// The most read of a configuration to tell a model's from another (real ones are kilobytes).
const CONFIG_HEAD: u64 = 1 << 20;

/// Whether `e` is a model's configuration: a JSON object with one of [`MODEL_KEYS`].
fn is_model_config(e: &Entry) -> bool {
    let mut bytes = Vec::new();
    if e.source.read_head(CONFIG_HEAD, &mut bytes).is_err() {
        return false;
    }
    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&bytes)
        .is_ok_and(|m| MODEL_KEYS.iter().any(|k| m.contains_key(*k)))
}

/// The weight folders among `files`: each folder holding a model's configuration (its keys
/// say so) beside weight files, with its configuration and weight files (the folder's other
/// files are left to the other layouts).
pub(crate) fn weight_folders(
    files: &[&Entry],
    folders: &Folders<'_>,
) -> Vec<(String, Vec<String>)> {
    let configs: Vec<&Entry> = files
        .iter()
        .copied()
        .filter(|e| {
            let name = e.rel.rsplit('/').next().unwrap_or(&e.rel);
            CONFIGS.contains(&name)
        })
        .collect();
    folders
        .iter()
        .filter(|(dir, names)| {
            names.iter().any(|n| has_ext(n, WEIGHT_EXTS))
                && configs.iter().any(|e| {
                    let in_dir = match e.rel.rsplit_once('/') {
                        Some((d, _)) => d == dir.as_str(),
                        None => dir.is_empty(),
                    };
                    in_dir && is_model_config(e)
                })
        })
        .map(|(dir, names)| {
            let owned = names
                .iter()
                .filter(|n| CONFIGS.contains(n) || has_ext(n, WEIGHT_EXTS))
                .map(|n| n.to_string())
                .collect();
            (dir.clone(), owned)
        })
        .collect()
}

/// The items of a pipeline or weight folder at the scan's root, and whether it is one: one
/// model item per text encoder of a pipeline (its `config.json`), none for a weight folder
/// (weights are no labels). `false`: the root is neither, and is another kind of model folder.
pub(crate) fn collect(scan: &mut RootScan<'_>) -> bool {
    let at_root: Vec<&str> = scan
        .files
        .iter()
        .filter(|e| !e.rel.contains('/'))
        .map(|e| e.rel.as_str())
        .collect();
    if at_root.contains(&INDEX) {
        let files = scan.files.clone();
        for e in files {
            let is_encoder_config = e.rel.split_once('/').is_some_and(|(dir, name)| {
                name == CONFIG && dir.starts_with(TEXT_ENCODER) && !dir.contains('/')
            });
            if is_encoder_config {
                let item = scan.item(e, String::new(), Task::Model);
                scan.items.push(item);
            }
        }
        return true;
    }
    // A model folder of a language model (config.json beside its tokenizer or weights named
    // as transformers names them) is the model layout's.
    if labelguard_model::marks_model_dir(at_root.iter().copied()) {
        return false;
    }
    weight_folders(&scan.files, &folders(&scan.files))
        .iter()
        .any(|(dir, _)| dir.is_empty())
}
