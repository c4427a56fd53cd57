//! A model directory: read as a model (`labelguard_model::read_model_dir`), its tokenizer
//! checked against it (`labelguard_core::model::check_model`, LG809-LG813). A file of the
//! directory that cannot be read is the LG601-LG603 finding that names it.

use super::result::{FileKind, FileResult};
use crate::checks::{lg601_unreadable_file, lg602_corrupt_file, lg603_empty_file};
use crate::layout::Item;
use labelguard_model::{read_model_dir, ModelDirError, Problem};

/// The findings of the model directory whose `config.json` is `item`.
pub fn model_dir(item: &Item) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Other);
    let Some(config) = item.source.path() else {
        r.findings
            .push(lg601_unreadable_file::local_only("a model directory"));
        return r;
    };
    let dir = config.parent().unwrap_or(config);
    match read_model_dir(dir) {
        Ok(spec) => r.findings = labelguard_core::model::check_model(&spec),
        Err(e) => {
            // Shown as the file at fault, not as the config.json that stands for the directory.
            if e.path != config {
                r.display = e.path.to_string_lossy().into_owned();
            }
            r.findings.push(unusable(&e));
        }
    }
    r
}

/// The finding for a file of the model directory that cannot be used.
fn unusable(e: &ModelDirError) -> labelguard_core::Finding {
    let name = e
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match e.problem {
        Problem::Missing | Problem::Unreadable => {
            lg601_unreadable_file::io_problem(&name, &std::io::Error::other(e.message.clone()))
        }
        Problem::Empty => lg603_empty_file::empty_file(),
        Problem::TooLarge | Problem::Corrupt => lg602_corrupt_file::corrupt_text(&name, &e.message),
    }
}
