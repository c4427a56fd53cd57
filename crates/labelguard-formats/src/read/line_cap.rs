//! A reader that fails on a line longer than a cap, so that a CSV parser (which has no field
//! limit of its own) never buffers an unbounded cell: a 300 MB cell once took 3.4 GB.

use std::io::{self, Read};

/// The longest line (and so the longest unquoted cell) of a CSV/TSV or JSONL table: 64 MiB.
pub const MAX_LINE: u64 = 64 << 20;

pub struct LineCap<R> {
    inner: R,
    since_newline: u64,
    cap: u64,
}

impl<R: Read> LineCap<R> {
    pub fn new(inner: R, cap: u64) -> LineCap<R> {
        LineCap {
            inner,
            since_newline: 0,
            cap,
        }
    }
}

impl<R: Read> Read for LineCap<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        for &b in &buf[..n] {
            self.since_newline = if b == b'\n' {
                0
            } else {
                self.since_newline + 1
            };
            if self.since_newline > self.cap {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "a line is longer than {} bytes (the limit of one table line)",
                        self.cap
                    ),
                ));
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_an_error_and_short_lines_pass() {
        let mut ok = String::new();
        LineCap::new("a,1\nb,2\n".as_bytes(), 4)
            .read_to_string(&mut ok)
            .unwrap();
        assert_eq!(ok, "a,1\nb,2\n");
        let long = format!("a,{}\n", "x".repeat(100));
        let e = LineCap::new(long.as_bytes(), 50)
            .read_to_end(&mut Vec::new())
            .unwrap_err();
        assert!(e.to_string().contains("longer than 50 bytes"));
    }
}
