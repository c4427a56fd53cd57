//! Reading the directory's files: regular files only, each up to a size limit.

use crate::{ModelDirError, Problem};
use serde::de::DeserializeOwned;
use std::io::Read;
use std::path::Path;

pub(crate) const CONFIG: &str = "config.json";

/// The most read of a configuration file (`config.json`, `tokenizer_config.json`, ...): real
/// ones are kilobytes (a `tokenizer_config.json` listing 100k added tokens is a few MB).
pub const CONFIG_LIMIT: u64 = 32 << 20;

/// The most read of a `tokenizer.json` or vocabulary file: the largest real ones (Gemma's
/// 262k-token vocabulary, ~35 MB) with room to spare.
pub const TOKENIZER_LIMIT: u64 = 256 << 20;

/// The bytes of `path`, or `None` when it does not exist; an error naming the file when it is
/// not a regular file, cannot be read, is empty or is larger than `limit`.
pub(crate) fn read_bytes(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, ModelDirError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ModelDirError::new(path, Problem::Unreadable, e.to_string())),
    };
    if !meta.is_file() {
        return Err(ModelDirError::new(
            path,
            Problem::Unreadable,
            "not a regular file (a directory, FIFO, socket or device?)",
        ));
    }
    if meta.len() > limit {
        return Err(too_large(path, meta.len(), limit));
    }
    let file = std::fs::File::open(path)
        .map_err(|e| ModelDirError::new(path, Problem::Unreadable, e.to_string()))?;
    let mut bytes = Vec::new();
    // One byte past the limit tells a file that grew since `metadata` from one that did not.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ModelDirError::new(path, Problem::Unreadable, e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(path, bytes.len() as u64, limit));
    }
    if bytes.is_empty() {
        return Err(ModelDirError::new(path, Problem::Empty, "empty (0 bytes)"));
    }
    Ok(Some(bytes))
}

fn too_large(path: &Path, len: u64, limit: u64) -> ModelDirError {
    ModelDirError::new(
        path,
        Problem::TooLarge,
        format!("{len} bytes, over the limit of {limit} bytes labelguard reads for this file"),
    )
}

/// `path` parsed as JSON into `T` (a `serde_json::Value` or a typed view), `None` when absent.
pub(crate) fn read_json<T: DeserializeOwned>(
    path: &Path,
    limit: u64,
) -> Result<Option<T>, ModelDirError> {
    let Some(bytes) = read_bytes(path, limit)? else {
        return Ok(None);
    };
    parse_json(path, &bytes).map(Some)
}

/// `bytes` (the contents of `path`) parsed as JSON into `T`.
pub(crate) fn parse_json<T: DeserializeOwned>(
    path: &Path,
    bytes: &[u8],
) -> Result<T, ModelDirError> {
    serde_json::from_slice(bytes).map_err(|e| {
        ModelDirError::new(
            path,
            Problem::Corrupt,
            format!("not valid JSON of the expected shape: {e}"),
        )
    })
}
