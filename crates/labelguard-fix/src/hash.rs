//! File hashes for the manifest and the resume journal: XXH3-128 (xxHash's 128-bit hash,
//! https://github.com/Cyan4973/xxHash), written as 32 hex digits.

pub const ALGORITHM: &str = "xxh3-128";

pub fn hex(bytes: &[u8]) -> String {
    format!("{:032x}", twox_hash::XxHash3_128::oneshot(bytes))
}

/// A writer that hashes what goes through it: the hash of a streamed output without reading it
/// back.
pub struct Hashing<'a> {
    inner: &'a mut dyn std::io::Write,
    hasher: twox_hash::XxHash3_128,
}

impl<'a> Hashing<'a> {
    pub fn new(inner: &'a mut dyn std::io::Write) -> Hashing<'a> {
        Hashing {
            inner,
            hasher: twox_hash::XxHash3_128::new(),
        }
    }

    /// The hash of everything written, as [`hex`] writes it.
    pub fn hex(&self) -> String {
        format!("{:032x}", self.hasher.finish_128())
    }
}

impl std::io::Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.write(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hashes_are_stable_and_distinct() {
        assert_eq!(super::hex(b"abc"), super::hex(b"abc"));
        assert_ne!(super::hex(b"abc"), super::hex(b"abd"));
        assert_eq!(super::hex(b"").len(), 32);
        // Streamed in pieces: the same hash as the whole.
        let whole: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut sink = Vec::new();
        let mut h = super::Hashing::new(&mut sink);
        for piece in whole.chunks(777) {
            std::io::Write::write_all(&mut h, piece).unwrap();
        }
        assert_eq!(h.hex(), super::hex(&whole));
        assert_eq!(sink, whole);
    }
}
