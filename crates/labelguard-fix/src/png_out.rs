//! Writing a repaired PNG that keeps what training code depends on: the same size, colour
//! type and bit depth, and for palette PNGs the very same `PLTE` (and `tRNS`) chunk.
//!
//! The pixels are encoded with the `png` crate; then the file is assembled from the new
//! `IHDR` and `IDAT` chunks and every other chunk of the original, byte for byte and in its
//! original place (before or after the image data). Chunk layout per the PNG specification
//! (ISO/IEC 15948, section 5.3: length, type, data, CRC).

use std::io::Write;

/// The PNG signature (PNG specification, section 5.2).
pub const SIGNATURE: &[u8; 8] = b"\x89PNG\r\n\x1a\n";

/// The `IHDR` fields that decide how samples are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub width: u32,
    pub height: u32,
    pub depth: u8,
    /// 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA.
    pub colour: u8,
}

pub fn header(bytes: &[u8]) -> Option<Header> {
    (bytes.len() >= 33 && bytes.starts_with(SIGNATURE) && &bytes[12..16] == b"IHDR").then(|| {
        Header {
            width: u32::from_be_bytes(bytes[16..20].try_into().expect("4 bytes")),
            height: u32::from_be_bytes(bytes[20..24].try_into().expect("4 bytes")),
            depth: bytes[24],
            colour: bytes[25],
        }
    })
}

/// One chunk: its type and its whole bytes (length, type, data, CRC).
struct Chunk<'a> {
    kind: [u8; 4],
    raw: &'a [u8],
}

/// The chunks of a PNG up to `IEND` (anything after it is dropped, as every decoder does).
fn chunks(bytes: &[u8]) -> Result<Vec<Chunk<'_>>, String> {
    let mut out = Vec::new();
    let mut at = SIGNATURE.len();
    while at + 12 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes")) as usize;
        let end = at
            .checked_add(12 + len)
            .filter(|&e| e <= bytes.len())
            .ok_or("a PNG chunk runs past the end of the file")?;
        let kind: [u8; 4] = bytes[at + 4..at + 8].try_into().expect("4 bytes");
        out.push(Chunk {
            kind,
            raw: &bytes[at..end],
        });
        at = end;
        if &kind == b"IEND" {
            break;
        }
    }
    Ok(out)
}

/// Chunks whose layout depends on the colour type: dropped when the colour type changes
/// (a colour mask that becomes an index mask).
const COLOUR_CHUNKS: &[&[u8; 4]] = &[
    b"PLTE", b"tRNS", b"bKGD", b"sBIT", b"hIST", b"cHRM", b"gAMA", b"iCCP", b"sRGB", b"sPLT",
];

/// Packs one-byte samples of `bits` (1, 2 or 4) into PNG rows (each padded to a byte).
fn pack(samples: &[u8], width: usize, bits: usize) -> Vec<u8> {
    if bits >= 8 {
        return samples.to_vec();
    }
    let per_byte = 8 / bits;
    let row_bytes = width.div_ceil(per_byte);
    let mut out = Vec::with_capacity(row_bytes * samples.len() / width.max(1));
    for row in samples.chunks_exact(width.max(1)) {
        for group in row.chunks(per_byte) {
            let mut b = 0u8;
            for (i, &s) in group.iter().enumerate() {
                b |= s << (8 - bits * (i + 1));
            }
            out.push(b);
        }
    }
    out
}

/// What the new file holds.
pub struct Image<'a> {
    pub width: u32,
    pub height: u32,
    pub colour: png::ColorType,
    pub depth: png::BitDepth,
    /// One byte per sample for depths up to 8; big-endian pairs for 16.
    pub samples: &'a [u8],
}

/// Encodes `img` and assembles it with the chunks of `original`.
pub fn write(img: &Image<'_>, original: &[u8]) -> Result<Vec<u8>, String> {
    let old = chunks(original)?;
    let same_colour = header(original).is_some_and(|h| h.colour == img.colour as u8);
    let mut fresh = Vec::with_capacity(img.samples.len() / 2 + 1024);
    {
        let mut enc = png::Encoder::new(&mut fresh, img.width, img.height);
        enc.set_color(img.colour);
        enc.set_depth(img.depth);
        enc.set_compression(png::Compression::Fast);
        if img.colour == png::ColorType::Indexed {
            // Needed by the encoder's checks only: the original PLTE chunk is kept below.
            let plte = old
                .iter()
                .find(|c| &c.kind == b"PLTE")
                .ok_or("a palette PNG without its PLTE chunk")?;
            enc.set_palette(plte.raw[8..plte.raw.len() - 4].to_vec());
        }
        let mut w = enc.write_header().map_err(|e| e.to_string())?;
        let bits = img.depth as usize;
        let data = pack(img.samples, img.width as usize, bits);
        w.write_image_data(&data).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| e.to_string())?;
    }
    let new = chunks(&fresh)?;
    let mut out = Vec::with_capacity(fresh.len() + original.len() / 8);
    out.extend_from_slice(SIGNATURE);
    let pick = |kind: &'static [u8; 4]| new.iter().filter(move |c| &c.kind == kind);
    for c in pick(b"IHDR") {
        out.extend_from_slice(c.raw);
    }
    let keep = |c: &&Chunk<'_>| {
        !matches!(&c.kind, b"IHDR" | b"IDAT" | b"IEND")
            && (same_colour || !COLOUR_CHUNKS.contains(&&c.kind))
    };
    let first_idat = old
        .iter()
        .position(|c| &c.kind == b"IDAT")
        .unwrap_or(old.len());
    for c in old[..first_idat].iter().filter(keep) {
        out.extend_from_slice(c.raw);
    }
    for c in pick(b"IDAT") {
        out.extend_from_slice(c.raw);
    }
    for c in old[first_idat..].iter().filter(keep) {
        out.extend_from_slice(c.raw);
    }
    for c in pick(b"IEND") {
        out.write_all(c.raw).expect("writing to memory");
    }
    Ok(out)
}

/// The `png` crate's colour type and depth from `IHDR` bytes.
pub fn png_format(h: &Header) -> Option<(png::ColorType, png::BitDepth)> {
    let colour = png::ColorType::from_u8(h.colour)?;
    let depth = png::BitDepth::from_u8(h.depth)?;
    Some((colour, depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_bit_samples_pack_msb_first_with_padded_rows() {
        assert_eq!(pack(&[0, 1, 2, 3, 1], 5, 2), [0b0001_1011, 0b0100_0000]);
        assert_eq!(pack(&[1, 0, 1, 1, 0, 1], 3, 1), [0b1010_0000, 0b1010_0000]);
    }
}
