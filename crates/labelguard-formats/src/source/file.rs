//! Opening and reading a label file: never blocking on a FIFO, never reading past a limit.

use crate::checks::lg601_unreadable_file::{io_problem, special_file_problem};
use crate::checks::lg602_corrupt_file;
use crate::checks::lg603_empty_file::empty_file;
use labelguard_core::Finding;
use std::io::Read;
use std::path::Path;

/// Opens a file for reading without ever blocking: `O_NONBLOCK` makes opening a FIFO return
/// at once (the walker reports FIFOs before this, but a path can change between the two),
/// and the opened file is checked to be a regular file before it is read.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, u64), Finding> {
    let (file, meta) =
        crate::nonblock::open_nonblocking(path).map_err(|e| io_problem("cannot open", &e))?;
    if meta.is_dir() {
        return Err(lg602_corrupt_file::directory());
    }
    if !meta.is_file() {
        return Err(special_file_problem(&meta.file_type()));
    }
    Ok((file, meta.len()))
}

/// Opens a regular file that is neither empty nor over `max_bytes`, with its length.
pub fn open_within(path: &Path, max_bytes: u64) -> Result<(std::fs::File, u64), Finding> {
    let (file, len) = open_regular(path)?;
    if len == 0 {
        return Err(empty_file());
    }
    if len > max_bytes {
        return Err(lg602_corrupt_file::over_file_limit(len, max_bytes));
    }
    Ok((file, len))
}

/// Reads a whole file into `buf` (whose capacity is reused across files).
pub fn read_file(path: &Path, max_bytes: u64, buf: &mut Vec<u8>) -> Result<(), Finding> {
    let (file, len) = open_within(path, max_bytes)?;
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
