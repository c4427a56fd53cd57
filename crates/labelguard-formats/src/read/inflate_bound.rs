//! What a file's compressed bytes can possibly decode to, so that a header's claim is checked
//! against the file's real size before any pixel buffer is allocated.
//!
//! Deflate cannot expand more than 1032:1 (a 258-byte match costs at least 2 bits: zlib's
//! documentation, "Maximum compression factor", and RFC 1951 section 3.2.5's length codes).
//! A 69-byte PNG that claims 16384x16384 16-bit RGBA (2 GiB) therefore cannot hold its pixels:
//! it is truncated, and saying so costs nothing, where decoding it first allocated 2 GiB.
//! TIFF's compressions expand at most 4096:1 here (LZW: one 9..12-bit code emits at most 4096
//! bytes; PackBits: 2 bytes emit at most 128; deflate 1032).

use super::magic::PNG_MAGIC;

/// Deflate's largest expansion factor.
pub const DEFLATE_MAX_RATIO: u64 = 1032;
/// The largest expansion factor of the TIFF compressions labelguard decodes.
pub const TIFF_MAX_RATIO: u64 = 4096;

/// The total length of the IDAT chunks actually present in a PNG (a chunk cut short by the
/// end of the file counts only its bytes present). Reads chunk headers only.
pub fn png_idat_bytes(bytes: &[u8]) -> u64 {
    if !bytes.starts_with(PNG_MAGIC) {
        return 0;
    }
    let mut pos = 8usize;
    let mut total = 0u64;
    while let Some(head) = bytes.get(pos..pos.saturating_add(8)) {
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let start = pos + 8;
        let present = len.min(bytes.len() - start);
        if &head[4..8] == b"IDAT" {
            total += present as u64;
        }
        if &head[4..8] == b"IEND" {
            break;
        }
        pos = start.saturating_add(len).saturating_add(4);
    }
    total
}

/// Whether `compressed` bytes expanding at most `ratio`:1 can hold `claimed` bytes (with a
/// little slack for the stream's own headers and a final partial block).
pub fn can_hold(compressed: u64, ratio: u64, claimed: u128) -> bool {
    (compressed as u128 + 64) * ratio as u128 >= claimed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idat_bytes_count_only_what_is_present() {
        let png = crate::fixtures::png_gray8(64, 64, &[3; 4096]);
        let n = png_idat_bytes(&png);
        assert!(n > 0 && n < png.len() as u64);
        // Cut inside IDAT: fewer bytes counted, no panic for any cut.
        for cut in 0..png.len() {
            assert!(png_idat_bytes(&png[..cut]) <= n);
        }
        assert!(can_hold(n, DEFLATE_MAX_RATIO, 64 * 65));
        assert!(!can_hold(10, DEFLATE_MAX_RATIO, 16384 * 16384 * 8));
    }
}
