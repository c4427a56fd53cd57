//! Reading a tensor file into memory, bounded by what its header claims.
//!
//! Files are read, not memory-mapped: a mapped file that another process truncates while it is
//! being scanned kills the reader with SIGBUS, and a dataset directory is exactly where files
//! change under a scan (an rsync, a preprocessing job). Each read is capped before it starts:
//! the header is read first (at most [`HEAD_BYTES`]), the size it claims is checked against
//! [`Limits`], and only then is the rest read, never more than the claim.

use crate::ReadError;
use std::io::Read;
use std::path::Path;

/// The most read before a header is parsed: numpy's own reader refuses headers over 10,000
/// bytes by default (`max_header_size`), so 1 MiB leaves room for any real file.
pub(crate) const HEAD_BYTES: u64 = 1 << 20;

/// Appends up to `cap - buf.len()` more bytes of `file` to `buf`; a file that shrank since it
/// was opened gives fewer bytes (the caller reports it as truncated), never a signal.
pub(crate) fn read_up_to(
    path: &Path,
    file: &mut std::fs::File,
    buf: &mut Vec<u8>,
    cap: u64,
) -> Result<(), ReadError> {
    let want = cap.saturating_sub(buf.len() as u64);
    buf.reserve(want.min(1 << 30) as usize);
    file.take(want)
        .read_to_end(buf)
        .map_err(|error| ReadError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    Ok(())
}
