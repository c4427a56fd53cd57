//! Readers: files in, named tensors out. Every reader validates sizes before it allocates,
//! never panics on malformed input, and reports a message that names the file and the fault.

pub mod fault;
mod load;
mod npy;
pub mod output;
pub mod portable;
mod replay;
mod safetensors;
mod size;

use labelguard_core::Tensor;
use std::path::{Path, PathBuf};

pub use npy::{parse_npy, NpyHeader};
pub use replay::{replay, ReplayError, ARGS_KEY, OP_KEY};
pub use safetensors::write as write_safetensors;

/// Hard limits that bound what a reader may allocate.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Largest decompressed size of one tensor, in bytes.
    pub max_tensor_bytes: u64,
    /// Largest number of tensors in one file.
    pub max_tensors: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tensor_bytes: 16 << 30,
            max_tensors: 4096,
        }
    }
}

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The I/O error is part of the message, not a `source`: a chain printer (anyhow's
    /// `{:#}`) would print it twice.
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}: not a tensor file labelguard reads (expected .npy, .npz or .safetensors)")]
    UnknownFormat { path: PathBuf },
    #[error("{path}: {message}")]
    Malformed { path: PathBuf, message: String },
    #[error("{path}: {message}")]
    TooLarge { path: PathBuf, message: String },
}

impl ReadError {
    fn malformed(path: &Path, message: impl Into<String>) -> ReadError {
        ReadError::Malformed {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

/// A tensor with the name it has in its file.
#[derive(Debug, Clone)]
pub struct NamedTensor {
    pub name: String,
    pub tensor: Tensor,
}

/// Reads every tensor of a `.npz`, `.npy` or `.safetensors` file, in file order. The format
/// is recognised by its magic bytes, not its extension. The file is read (never mapped) and
/// never beyond the size its header claims and the limits allow. A lone `.npy` yields one tensor named
/// after the file stem.
pub fn read_tensors(path: &Path, limits: &Limits) -> Result<Vec<NamedTensor>, ReadError> {
    let io = |error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(ReadError::malformed(
            path,
            "is a directory, not a tensor file",
        ));
    }
    if !meta.is_file() {
        return Err(ReadError::malformed(
            path,
            "is not a regular file (a FIFO, socket or device?)",
        ));
    }
    let mut file = std::fs::File::open(path).map_err(io)?;
    if meta.len() == 0 {
        return Err(ReadError::malformed(path, "is empty (0 bytes)"));
    }
    let mut bytes = Vec::new();
    load::read_up_to(path, &mut file, &mut bytes, load::HEAD_BYTES)?;
    if bytes.starts_with(b"\x93NUMPY") {
        // The header fits in the first read; the data is read only up to the claimed size.
        if let Ok(h) = npy::parse_npy(&bytes) {
            if let Ok(needed) = size::tensor_bytes(&h.shape, h.dtype, limits) {
                let total = (h.data_offset as u128 + needed).min(u64::MAX as u128) as u64;
                load::read_up_to(path, &mut file, &mut bytes, total)?;
            }
        }
        return npy_tensor(path, bytes, limits);
    }
    if is_zip(&bytes) {
        return npy::read_npz(path, file_reader(path)?, limits);
    }
    if safetensors::looks_like(&bytes) {
        let cap = safetensors_cap(path, &bytes, meta.len(), limits)?;
        load::read_up_to(path, &mut file, &mut bytes, cap)?;
        return safetensors::read(path, bytes, limits);
    }
    Err(ReadError::UnknownFormat {
        path: path.to_path_buf(),
    })
}

/// [`read_tensors`] of a file's bytes already read, under a byte limit, by the caller (a
/// member of a tar shard, an object in a bucket); `path` names it in tensors and messages.
pub fn read_tensors_from_bytes(
    path: &Path,
    bytes: Vec<u8>,
    limits: &Limits,
) -> Result<Vec<NamedTensor>, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::malformed(path, "is empty (0 bytes)"));
    }
    if bytes.starts_with(b"\x93NUMPY") {
        return npy_tensor(path, bytes, limits);
    }
    if is_zip(&bytes) {
        return npy::read_npz(path, std::io::Cursor::new(bytes), limits);
    }
    if safetensors::looks_like(&bytes) {
        safetensors_cap(path, &bytes, bytes.len() as u64, limits)?;
        return safetensors::read(path, bytes, limits);
    }
    Err(ReadError::UnknownFormat {
        path: path.to_path_buf(),
    })
}

fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// A lone `.npy`: one tensor named after the file stem.
fn npy_tensor(path: &Path, bytes: Vec<u8>, limits: &Limits) -> Result<Vec<NamedTensor>, ReadError> {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "array".into());
    let tensor = npy::tensor_from_npy(std::sync::Arc::new(bytes), path, limits)?;
    Ok(vec![NamedTensor { name, tensor }])
}

/// The most bytes a `.safetensors` file of `len` bytes may be read up to: its header and the
/// tensor limit; a larger file is refused before it is read.
fn safetensors_cap(path: &Path, head: &[u8], len: u64, limits: &Limits) -> Result<u64, ReadError> {
    let cap = safetensors::file_cap(head, limits);
    if len > cap {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            message: format!(
                "the file is {len} bytes, its tensors more than the limit of {} bytes",
                limits.max_tensor_bytes
            ),
        });
    }
    Ok(cap)
}

fn file_reader(path: &Path) -> Result<std::io::BufReader<std::fs::File>, ReadError> {
    std::fs::File::open(path)
        .map(std::io::BufReader::new)
        .map_err(|error| ReadError::Io {
            path: path.to_path_buf(),
            error,
        })
}

/// Metadata stored beside the tensors (safetensors' `__metadata__`), empty for NumPy files.
pub fn read_metadata(path: &Path) -> Result<Vec<(String, String)>, ReadError> {
    match safetensors_header_bytes(path)? {
        Some(bytes) => safetensors::metadata(path, &bytes),
        None => Ok(Vec::new()),
    }
}

/// The name, dtype and shape of every tensor of a `.safetensors` file, from its header alone:
/// the tensors' data is never read (a model's weights are gigabytes; its header is kilobytes).
pub fn read_safetensors_shapes(path: &Path) -> Result<Vec<TensorShape>, ReadError> {
    let bytes = safetensors_header_bytes(path)?.ok_or_else(|| ReadError::UnknownFormat {
        path: path.to_path_buf(),
    })?;
    safetensors::shapes(path, &bytes)
}

/// A tensor as a safetensors header describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorShape {
    pub name: String,
    pub dtype: String,
    pub shape: Vec<u64>,
}

/// The first bytes of a `.safetensors` file up to the end of its header (the length prefix
/// bounds it, and the format's own 100 MB limit), or `None` for a file of another format.
fn safetensors_header_bytes(path: &Path) -> Result<Option<Vec<u8>>, ReadError> {
    let mut file = std::fs::File::open(path).map_err(|error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let mut bytes = Vec::new();
    load::read_up_to(path, &mut file, &mut bytes, load::HEAD_BYTES)?;
    if !safetensors::looks_like(&bytes) {
        return Ok(None);
    }
    let n = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    load::read_up_to(path, &mut file, &mut bytes, 8 + n)?;
    Ok(Some(bytes))
}
