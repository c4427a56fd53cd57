//! File hashes for the manifest and the resume journal: XXH3-128 (xxHash's 128-bit hash,
//! https://github.com/Cyan4973/xxHash), written as 32 hex digits.

pub const ALGORITHM: &str = "xxh3-128";

pub fn hex(bytes: &[u8]) -> String {
    format!("{:032x}", twox_hash::XxHash3_128::oneshot(bytes))
}

#[cfg(test)]
mod tests {
    #[test]
    fn hashes_are_stable_and_distinct() {
        assert_eq!(super::hex(b"abc"), super::hex(b"abc"));
        assert_ne!(super::hex(b"abc"), super::hex(b"abd"));
        assert_eq!(super::hex(b"").len(), 32);
    }
}
