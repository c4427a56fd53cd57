//! Readers: bytes in, pixels or labels out, with hard limits checked before anything large is
//! allocated. Every failure is a [`Finding`] naming the rule (LG601 unreadable, LG602 corrupt,
//! LG603 empty, LG604 bomb), never a panic.

pub mod class_weights;
pub mod fastpng;
pub mod header;
pub mod inflate_bound;
pub mod line_cap;
pub mod mask;
#[cfg(feature = "parquet")]
pub mod parquet_columns;
#[cfg(feature = "parquet")]
pub mod parquet_source;
pub mod table;
pub mod thrift_check;

use crate::checks::lg601_unreadable_file::{io_problem, special_file_problem};
pub use crate::checks::lg603_empty_file::empty_file;
use crate::problem::problem;
use labelguard_core::rules::{LG602, LG604};
use labelguard_core::Finding;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Opens a file for reading without ever blocking: `O_NONBLOCK` makes opening a FIFO return
/// at once (the walker reports FIFOs before this, but a path can change between the two),
/// and the opened file is checked to be a regular file before it is read.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, u64), Finding> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| io_problem("cannot open", &e))?;
    let meta = file.metadata().map_err(|e| io_problem("cannot stat", &e))?;
    if meta.is_dir() {
        return Err(problem(&LG602, "is a directory, not a file"));
    }
    if !meta.is_file() {
        return Err(special_file_problem(&meta.file_type()));
    }
    Ok((file, meta.len()))
}

/// Reads a whole file into `buf` (whose capacity is reused across files).
pub fn read_file(path: &Path, max_bytes: u64, buf: &mut Vec<u8>) -> Result<(), Finding> {
    let (file, len) = open_regular(path)?;
    if len == 0 {
        return Err(empty_file());
    }
    if len > max_bytes {
        return Err(problem(
            &LG602,
            format!("is {len} bytes, more than the {max_bytes}-byte limit for one label file"),
        ));
    }
    buf.clear();
    buf.reserve(len as usize);
    file.take(max_bytes)
        .read_to_end(buf)
        .map_err(|e| io_problem("cannot read", &e))?;
    if buf.is_empty() {
        return Err(empty_file());
    }
    Ok(())
}

/// What a file's first bytes say it is, for the message of a file that is not a mask.
pub fn describe_magic(bytes: &[u8]) -> (String, Option<String>) {
    let start = &bytes[..bytes.len().min(64)];
    let text = String::from_utf8_lossy(start).to_ascii_lowercase();
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        (
            "is a JPEG".into(),
            Some("JPEG is lossy: the class ids of a JPEG mask are smeared at every border; masks must be PNG or TIFF".into()),
        )
    } else if text.starts_with("version https://git-lfs") {
        (
            "is a Git LFS pointer, not the file itself".into(),
            Some("the repository was cloned without the LFS objects: run `git lfs pull`".into()),
        )
    } else if text.contains("<html") || text.contains("<!doctype") || text.starts_with("<?xml") {
        (
            "is an HTML or XML document, not an image".into(),
            Some("a failed download saved under the mask's name?".into()),
        )
    } else if bytes.starts_with(b"GIF8")
        || bytes.starts_with(b"BM")
        || (bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP"))
    {
        (
            "is a GIF, BMP or WebP image, which labelguard does not read as a mask".into(),
            Some("convert it to a single-channel PNG".into()),
        )
    } else if bytes.starts_with(&[0x00, 0x05, 0x16, 0x07]) {
        (
            "is a macOS AppleDouble (._*) resource fork, not an image".into(),
            Some("copied from a Mac: delete the ._* files (dot_clean, or find . -name '._*' -delete)".into()),
        )
    } else {
        let hex: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        (
            format!("has an unknown format (first bytes {})", hex.join(" ")),
            None,
        )
    }
}

/// LG602 for a file whose magic bytes name no format labelguard reads as a mask.
pub fn not_a_mask(bytes: &[u8]) -> Finding {
    let (what, hint) = describe_magic(bytes);
    let p = problem(
        &LG602,
        format!("{what}: not a PNG, TIFF or array mask (wrong magic bytes)"),
    )
    .fix("replace it with the real mask, or exclude the file");
    match hint {
        Some(h) => p.hint(h),
        None => p,
    }
}

/// The finding for an array file `labelguard-io` could not read.
pub fn array_read_problem(e: labelguard_io::ReadError) -> Finding {
    use labelguard_io::ReadError as E;
    match e {
        E::Io { error, .. } => io_problem("cannot read", &error),
        E::UnknownFormat { .. } => problem(
            &LG602,
            "not a .npy, .npz or .safetensors file (wrong magic bytes)",
        )
        .fix("replace it with the real array, or exclude it"),
        E::TooLarge { message, .. } => problem(&LG604, format!("{message}; not read"))
            .fix("raise --max-pixels if this is a real label array"),
        E::Malformed { message, .. } => {
            if message.contains("empty") {
                empty_file()
            } else {
                problem(&LG602, format!("corrupt array file: {message}")).fix("regenerate the file")
            }
        }
    }
}
