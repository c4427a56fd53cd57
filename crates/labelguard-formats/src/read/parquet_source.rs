//! The bytes of a Parquet file as the `parquet` crate reads them, served so that a malformed
//! file cannot make it loop, hang or allocate what the file does not hold (issue 8).
//!
//! The crate reads through a [`ChunkReader`]: `get_bytes` for the footer and page data,
//! `get_read` for the footer's last 8 bytes and for each page header. Its own `File` reader
//! allocates the length it is asked for before reading, and returns 0 bytes again and again
//! at the end of the file, which its Thrift skipper took for data: a 1 KB file looped for 84 s.
//! Here:
//! - every range is checked against the file's length before anything is allocated, and read
//!   in full (`pread`, never a memory map) or refused;
//! - the footer and every page header are first walked by [`check_struct`], which refuses
//!   any count that the bytes cannot hold (a skipped list of 2^31 booleans was the other
//!   hang), and a page header's sizes are checked: compressed data inside the file, at most
//!   [`MAX_PAGE`] bytes once decompressed;
//! - a page header is handed over as exactly its own bytes, behind a reader that fails
//!   (instead of returning 0) when asked for more.

use super::thrift_check::check_struct;
use bytes::Bytes;
use parquet::errors::{ParquetError, Result};
use parquet::file::reader::{ChunkReader, Length};
use std::io::Read;

/// The largest page (or footer) read, compressed or not: 64 MiB (a label column's pages are a few MB at
/// most; writers default to 1 MiB). A larger claim is a corrupt file.
pub const MAX_PAGE: i64 = 64 << 20;

/// The longest page header (it holds sizes, counts and optional statistics): 1 MiB.
const MAX_PAGE_HEADER: u64 = 1 << 20;

/// The file's trailer: the footer's length (4 bytes, little-endian) and `PAR1` (Parquet format
/// spec, apache/parquet-format `README.md`, "File Format").
const TAIL: u64 = 8;

/// PageHeader's fields (parquet-format `parquet.thrift`): 2 uncompressed_page_size,
/// 3 compressed_page_size, both i32.
const UNCOMPRESSED_SIZE: i16 = 2;
const COMPRESSED_SIZE: i16 = 3;

pub struct ParquetSource {
    file: std::fs::File,
    len: u64,
}

fn corrupt(m: String) -> ParquetError {
    ParquetError::General(m)
}

impl ParquetSource {
    /// Checks the trailer and walks the footer; the crate then parses a footer known to be
    /// bounded by its own length.
    pub fn open(file: std::fs::File, len: u64) -> Result<ParquetSource> {
        let source = ParquetSource { file, len };
        if len < 4 + TAIL {
            return Err(corrupt(format!(
                "{len} bytes: too short for a Parquet file (its magic and footer take 12)"
            )));
        }
        let tail = source.read_range(len - TAIL, TAIL as usize)?;
        if &tail[4..] != b"PAR1" {
            return Err(corrupt(
                "the file does not end with PAR1: cut short, or not Parquet".into(),
            ));
        }
        let footer_len = u64::from(u32::from_le_bytes(tail[..4].try_into().expect("4 bytes")));
        if footer_len > len - 4 - TAIL || footer_len > MAX_PAGE as u64 {
            return Err(corrupt(format!(
                "the footer claims {footer_len} bytes but the file has {len}"
            )));
        }
        let footer = source.read_range(len - TAIL - footer_len, footer_len as usize)?;
        check_struct(&footer).map_err(|e| corrupt(format!("corrupt footer: {e}")))?;
        Ok(source)
    }

    /// `n` bytes at `start`, all of them, or an error; nothing is allocated for a range that
    /// is not inside the file.
    fn read_range(&self, start: u64, n: usize) -> Result<Vec<u8>> {
        let end = start.checked_add(n as u64).filter(|&e| e <= self.len);
        if end.is_none() {
            return Err(corrupt(format!(
                "a read of {n} bytes at byte {start} goes past the end of the file ({} bytes)",
                self.len
            )));
        }
        let mut buf = vec![0; n];
        labelguard_io::portable::read_exact_at(&self.file, &mut buf, start)
            .map_err(|e| corrupt(format!("cannot read {n} bytes at byte {start}: {e}")))?;
        Ok(buf)
    }

    /// The page header at `start`, walked and its sizes checked; its own bytes only.
    fn page_header(&self, start: u64) -> Result<Vec<u8>> {
        let n = self.len.saturating_sub(start).min(MAX_PAGE_HEADER);
        let mut buf = self.read_range(start, n as usize)?;
        let walked = check_struct(&buf)
            .map_err(|e| corrupt(format!("corrupt page header at byte {start}: {e}")))?;
        let size = |id| walked.ints.iter().find(|(f, _)| *f == id).map(|(_, v)| *v);
        let after = self.len - start - walked.len as u64;
        for (what, id, limit) in [
            ("compressed", COMPRESSED_SIZE, MAX_PAGE.min(after as i64)),
            ("uncompressed", UNCOMPRESSED_SIZE, MAX_PAGE),
        ] {
            match size(id) {
                Some(v) if (0..=limit).contains(&v) => {}
                Some(v) => {
                    return Err(corrupt(format!(
                        "the page header at byte {start} claims a {what} size of {v} bytes (at most {limit} can be read)"
                    )))
                }
                None => {
                    return Err(corrupt(format!(
                        "the page header at byte {start} has no {what} size"
                    )))
                }
            }
        }
        buf.truncate(walked.len);
        Ok(buf)
    }
}

impl Length for ParquetSource {
    fn len(&self) -> u64 {
        self.len
    }
}

/// A reader over bytes that fails, instead of returning 0, when asked to read past them.
pub struct Exact(std::io::Cursor<Vec<u8>>);

impl Read for Exact {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        if n == 0 && !buf.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a read past the end of a Parquet page header",
            ));
        }
        Ok(n)
    }
}

impl ChunkReader for ParquetSource {
    type T = Exact;

    fn get_read(&self, start: u64) -> Result<Exact> {
        let bytes = if start >= self.len.saturating_sub(TAIL) {
            // The trailer (footer length and magic), which `open` has checked.
            self.read_range(start, (self.len.saturating_sub(start)) as usize)?
        } else {
            self.page_header(start)?
        };
        Ok(Exact(std::io::Cursor::new(bytes)))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes> {
        if length as u64 > MAX_PAGE as u64 {
            return Err(corrupt(format!(
                "a read of {length} bytes at byte {start}: more than the {MAX_PAGE}-byte limit of one page"
            )));
        }
        Ok(Bytes::from(self.read_range(start, length)?))
    }
}
