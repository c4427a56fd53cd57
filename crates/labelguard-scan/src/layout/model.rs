//! A Hugging Face model directory: `config.json` beside the tokenizer's files or the weights.
//! One item, its `config.json`; the analysis reads the whole directory as a model
//! (`labelguard-model`) and checks the tokenizer against it.

use super::declare::{At, Found, Layout, Tree};
use super::item::{RootScan, Task};
use super::paths::{folders, Folders};
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::walk::Entry;

const CONFIG: &str = "config.json";

/// The model directories among `files`: each folder (relative path, `""` the root) whose file
/// names mark it as a model's, with the files directly in it, which the model owns (its
/// sub-folders are left to other layouts: checkpoints, a dataset kept beside it).
pub(crate) fn trees(folders: &Folders<'_>) -> Vec<(String, Vec<String>)> {
    folders
        .iter()
        .filter(|(_, names)| labelguard_model::marks_model_dir(names.iter().copied()))
        .map(|(dir, names)| (dir.clone(), names.iter().map(|n| n.to_string()).collect()))
        .collect()
}

/// One item for the model directory at the scan's root: its `config.json`; without one (a
/// folder scanned with `--layout model`), the LG601 finding that names it.
pub(crate) fn collect(scan: &mut RootScan<'_>) {
    // A diffusers pipeline or a folder of weights: read as models, never as labels.
    if super::pipeline::collect(scan) {
        return;
    }
    let item = match scan.files.iter().find(|e| e.rel == CONFIG) {
        Some(e) => scan.item(e, String::new(), Task::Model),
        None => {
            let missing = std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "missing: a model directory needs config.json",
            );
            let finding = crate::checks::lg601_unreadable_file::io_problem(CONFIG, &missing);
            scan.synthetic(CONFIG, String::new(), finding)
        }
    };
    scan.items.push(item);
}

/// The model layout's kind: `--layout model`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("model");

/// The model layout (see the module's doc).
pub(crate) struct Model;

impl Layout for Model {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["huggingface", "transformers"]
    }
    fn help(&self) -> &'static str {
        "config.json beside tokenizer.json / model.safetensors (Hugging Face)"
    }
    /// A diffusers pipeline before the models inside it (its text encoders); folders of
    /// weights after the language models (whose folders own their tokenizers too).
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        let folders = folders(files);
        [
            super::pipeline::trees(files, &folders),
            trees(&folders),
            super::pipeline::weight_folders(files, &folders),
        ]
        .concat()
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        collect(scan);
        Found::default()
    }
}
