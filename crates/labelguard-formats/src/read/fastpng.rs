//! A fast path for the PNGs that label masks almost always are: 8-bit, one sample per pixel
//! (grey or palette indices), not interlaced.
//!
//! Why a second decoder: decoding is the scan's bound, and most of it is unfiltering. Pillow
//! writes grey masks with adaptive filters, mostly Paeth, whose bpp=1 form is a serial chain
//! (each pixel depends on its left neighbour), about 4-5 cycles per pixel in the `png` crate.
//! In a mask, though, almost every filtered byte is 0 inside a region whose row above has the
//! same id: the predictor is then exact and the output is just the left pixel repeated. This
//! decoder checks 32 bytes at a time for that case (residuals all zero, row above equal to the
//! left pixel) and fills them, falling back to the exact scalar filter elsewhere. Inflate is
//! zlib-rs, CRCs are checked with crc32fast as the `png` crate does.
//!
//! It returns `None` for anything outside that subset or anything malformed; the caller then
//! decodes with the `png` crate, which gives the authoritative result or error. So the fast
//! path can only change speed, never the outcome (the differential tests check the bytes).

use flate2::{Decompress, FlushDecompress, Status};

/// What the fast path decoded into `out`: `width * height` bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Fast {
    pub width: usize,
    pub height: usize,
    pub palette: Option<Vec<[u8; 3]>>,
}

fn be32(b: &[u8]) -> u32 {
    u32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Decodes `bytes` into `out` (the raw, still-filtered rows go through `scratch`).
pub fn decode_u8(
    bytes: &[u8],
    max_pixels: u64,
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Option<Fast> {
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return None;
    }
    let mut pos = 8usize;
    let mut header: Option<(usize, usize, u8)> = None;
    let mut palette = None;
    let mut idat: Vec<&[u8]> = Vec::new();
    let mut idat_done = false;
    loop {
        let head = bytes.get(pos..pos + 8)?;
        let len = be32(head) as usize;
        let kind: [u8; 4] = head[4..8].try_into().ok()?;
        let end = pos.checked_add(12)?.checked_add(len)?;
        // Every slice is checked: a file cut anywhere (inside a chunk, its CRC, or between
        // chunks) is `None` and goes to the `png` crate for its exact error.
        let chunk = bytes.get(pos + 4..end - 4)?;
        let crc = be32(bytes.get(end - 4..end)?);
        if crc32fast::hash(chunk) != crc {
            return None;
        }
        let data = &chunk[4..];
        match &kind {
            b"IHDR" => {
                if header.is_some() || data.len() != 13 {
                    return None;
                }
                let (w, h) = (be32(&data[0..4]) as usize, be32(&data[4..8]) as usize);
                let (depth, colour, compression, filter, interlace) =
                    (data[8], data[9], data[10], data[11], data[12]);
                if depth != 8
                    || !(colour == 0 || colour == 3)
                    || compression != 0
                    || filter != 0
                    || interlace != 0
                {
                    return None;
                }
                if w == 0 || h == 0 || (w as u64).checked_mul(h as u64)? > max_pixels {
                    return None;
                }
                header = Some((w, h, colour));
            }
            b"PLTE" => {
                if data.is_empty() || data.len() % 3 != 0 || data.len() > 768 {
                    return None;
                }
                palette = Some(
                    data.chunks_exact(3)
                        .map(|c| [c[0], c[1], c[2]])
                        .collect::<Vec<[u8; 3]>>(),
                );
            }
            b"IDAT" => {
                if idat_done || header.is_none() {
                    return None;
                }
                idat.push(data);
            }
            b"IEND" => break,
            // APNG and any unknown critical chunk: leave it to the `png` crate.
            b"acTL" | b"fcTL" | b"fdAT" => return None,
            k if k[0] & 0x20 == 0 => return None,
            _ => {}
        }
        if kind != *b"IDAT" && !idat.is_empty() {
            idat_done = true;
        }
        pos = end;
    }
    let (w, h, colour) = header?;
    if idat.is_empty() || (colour == 3 && palette.is_none()) {
        return None;
    }
    let stride = w + 1;
    stride.checked_mul(h)?;
    // Inflate streams through a window of whole rows in `scratch` (about 256 KiB, at least
    // two rows); each complete row is unfiltered into `out` at once, so that only `out` grows
    // with the image and a file cut short allocates no more than the rows it holds.
    let window = (WINDOW / stride).max(2) * stride;
    scratch.clear();
    scratch.resize(window, 0);
    out.clear();
    out.reserve_exact(w * h);
    let zeros = vec![0u8; w];
    let mut z = Decompress::new(true);
    let mut filled = 0usize;
    let mut ended = false;
    for (i, part) in idat.iter().enumerate() {
        let last = i + 1 == idat.len();
        let flush = if last {
            FlushDecompress::Finish
        } else {
            FlushDecompress::None
        };
        let mut input = *part;
        while !ended && (last || !input.is_empty()) {
            let (in0, out0) = (z.total_in(), z.total_out());
            let status = z.decompress(input, &mut scratch[filled..], flush).ok()?;
            let used = (z.total_in() - in0) as usize;
            let made = (z.total_out() - out0) as usize;
            input = &input[used..];
            filled += made;
            if status == Status::StreamEnd {
                ended = true;
            } else if used == 0 && made == 0 {
                return None; // no progress: the data is cut or malformed
            }
            let rows = filled / stride;
            if out.len() / w + rows > h {
                return None; // more rows than the header claims
            }
            for r in 0..rows {
                let y = out.len() / w;
                out.resize(out.len() + w, 0);
                let (done, row) = out.split_at_mut(y * w);
                let prev: &[u8] = if y == 0 { &zeros } else { &done[(y - 1) * w..] };
                unfilter_row(&scratch[r * stride..(r + 1) * stride], prev, row)?;
            }
            scratch.copy_within(rows * stride..filled, 0);
            filled -= rows * stride;
        }
    }
    if !ended || filled != 0 || out.len() != w * h {
        return None;
    }
    Some(Fast {
        width: w,
        height: h,
        palette: if colour == 3 { palette } else { None },
    })
}

/// Bytes of filtered rows inflated at a time (rounded to whole rows).
const WINDOW: usize = 256 << 10;

/// Unfilters one row: `raw` is its filter byte and `row.len()` bytes, `prev` the row above.
fn unfilter_row(raw: &[u8], prev: &[u8], row: &mut [u8]) -> Option<()> {
    let cur = &raw[1..];
    match raw[0] {
        0 => row.copy_from_slice(cur),
        1 => sub(cur, row),
        2 => {
            for ((o, &c), &p) in row.iter_mut().zip(cur).zip(prev) {
                *o = c.wrapping_add(p);
            }
        }
        3 => avg(cur, prev, row),
        4 => paeth(cur, prev, row),
        _ => return None,
    }
    Some(())
}

/// Uniform stretches are checked 32 bytes at a time, then 8 at a time near region borders, so
/// that only the few pixels around each border go through the serial filter.
const BLOCK: usize = 32;
const SMALL: usize = 8;

/// Whether all of `s` is zero (an OR-fold, which vectorizes).
#[inline(always)]
fn all_zero(s: &[u8]) -> bool {
    s.iter().fold(0u8, |acc, &b| acc | b) == 0
}

/// Whether all of `s` equals `v`.
#[inline(always)]
fn all_eq(s: &[u8], v: u8) -> bool {
    s.iter().fold(0u8, |acc, &b| acc | (b ^ v)) == 0
}

fn sub(cur: &[u8], row: &mut [u8]) {
    let w = cur.len();
    let mut a = 0u8;
    let mut i = 0;
    while i < w {
        if i + BLOCK <= w && all_zero(&cur[i..i + BLOCK]) {
            row[i..i + BLOCK].fill(a);
            i += BLOCK;
            continue;
        }
        if i + SMALL <= w && all_zero(&cur[i..i + SMALL]) {
            row[i..i + SMALL].fill(a);
            i += SMALL;
            continue;
        }
        let end = (i + SMALL).min(w);
        for j in i..end {
            a = cur[j].wrapping_add(a);
            row[j] = a;
        }
        i = end;
    }
}

fn avg(cur: &[u8], prev: &[u8], row: &mut [u8]) {
    let w = cur.len();
    let mut a = 0u8;
    let mut i = 0;
    while i < w {
        // Zero residuals over a stretch where the row above equals the left pixel: the average
        // of two equal values is that value.
        if i + BLOCK <= w && all_zero(&cur[i..i + BLOCK]) && all_eq(&prev[i..i + BLOCK], a) {
            row[i..i + BLOCK].fill(a);
            i += BLOCK;
            continue;
        }
        if i + SMALL <= w && all_zero(&cur[i..i + SMALL]) && all_eq(&prev[i..i + SMALL], a) {
            row[i..i + SMALL].fill(a);
            i += SMALL;
            continue;
        }
        let end = (i + SMALL).min(w);
        for j in i..end {
            a = cur[j].wrapping_add(((a as u16 + prev[j] as u16) >> 1) as u8);
            row[j] = a;
        }
        i = end;
    }
}

/// The Paeth predictor in stb_image's branch-free form (as the `png` crate uses on x86).
#[inline(always)]
fn predict(a: i16, b: i16, c: i16) -> u8 {
    let thresh = c * 3 - (a + b);
    let lo = a.min(b);
    let hi = a.max(b);
    let t0 = if hi <= thresh { lo } else { c };
    let t1 = if thresh <= lo { hi } else { t0 };
    t1 as u8
}

fn paeth(cur: &[u8], prev: &[u8], row: &mut [u8]) {
    let w = cur.len();
    // The first pixel has no left neighbour: a = c = 0, so the predictor is the pixel above.
    let mut a = cur[0].wrapping_add(prev[0]);
    row[0] = a;
    let mut i = 1;
    while i < w {
        // a == b == c over the block (row above, one to the left, all equal to the left pixel)
        // and zero residuals: every predictor is `a`, so the block is `a`.
        if i + BLOCK <= w && all_zero(&cur[i..i + BLOCK]) && all_eq(&prev[i - 1..i + BLOCK], a) {
            row[i..i + BLOCK].fill(a);
            i += BLOCK;
            continue;
        }
        if i + SMALL <= w && all_zero(&cur[i..i + SMALL]) && all_eq(&prev[i - 1..i + SMALL], a) {
            row[i..i + SMALL].fill(a);
            i += SMALL;
            continue;
        }
        let end = (i + SMALL).min(w);
        let mut c = prev[i - 1] as i16;
        for j in i..end {
            let b = prev[j] as i16;
            a = cur[j].wrapping_add(predict(a as i16, b, c));
            row[j] = a;
            c = b;
        }
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(bytes: &[u8]) -> Vec<u8> {
        let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
        d.set_transformations(png::Transformations::IDENTITY);
        let mut r = d.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        r.next_frame(&mut buf).unwrap();
        buf
    }

    fn encode(
        w: u32,
        h: u32,
        data: &[u8],
        filter: png::Filter,
        palette: bool,
        compression: png::Compression,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut e = png::Encoder::new(&mut out, w, h);
            if palette {
                e.set_color(png::ColorType::Indexed);
                e.set_palette(vec![7u8; 768]);
            } else {
                e.set_color(png::ColorType::Grayscale);
            }
            e.set_depth(png::BitDepth::Eight);
            e.set_filter(filter);
            e.set_compression(compression);
            let mut wr = e.write_header().unwrap();
            wr.write_image_data(data).unwrap();
        }
        out
    }

    /// Masks with regions, borders, a gradient and noise, in every filter and several widths
    /// (narrower and wider than a block): the fast path gives the `png` crate's bytes exactly.
    #[test]
    fn fast_path_matches_the_png_crate_byte_for_byte() {
        let mut seed = 0x2545F4914F6CDD1Du64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for &(w, h) in &[
            (1usize, 1usize),
            (5, 3),
            (31, 7),
            (32, 4),
            (33, 9),
            (100, 40),
            (257, 33),
        ] {
            for kind in 0..4 {
                let data: Vec<u8> = (0..w * h)
                    .map(|i| {
                        let (x, y) = (i % w, i / w);
                        match kind {
                            0 => ((x * 3 / w.max(1)) * 40 + (y * 2 / h.max(1)) * 7) as u8,
                            1 => {
                                if (x + y) % 17 == 0 {
                                    255
                                } else {
                                    ((x / 9) % 5) as u8
                                }
                            }
                            2 => (rnd() % 256) as u8,
                            _ => (x + 2 * y) as u8,
                        }
                    })
                    .collect();
                for filter in [
                    png::Filter::NoFilter,
                    png::Filter::Sub,
                    png::Filter::Up,
                    png::Filter::Avg,
                    png::Filter::Paeth,
                    png::Filter::Adaptive,
                ] {
                    for palette in [false, true] {
                        let bytes = encode(
                            w as u32,
                            h as u32,
                            &data,
                            filter,
                            palette,
                            png::Compression::Balanced,
                        );
                        let (mut out, mut scratch) = (Vec::new(), Vec::new());
                        let fast = decode_u8(&bytes, 1 << 28, &mut out, &mut scratch)
                            .expect("fast path applies");
                        assert_eq!((fast.width, fast.height), (w, h));
                        assert_eq!(
                            out,
                            reference(&bytes),
                            "{w}x{h} kind {kind} {filter:?} palette {palette}"
                        );
                        assert_eq!(out, data);
                    }
                }
            }
        }
    }

    /// The `png` crate's outcome: the pixels, or `None` for any error.
    fn reference_result(bytes: &[u8]) -> Option<Vec<u8>> {
        let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
        d.set_transformations(png::Transformations::IDENTITY);
        let mut r = d.read_info().ok()?;
        let mut buf = vec![0; r.output_buffer_size()?];
        r.next_frame(&mut buf).ok()?;
        Some(buf)
    }

    /// Recomputes the CRC of every complete chunk, so that a mutation reaches the decoder
    /// instead of stopping at the checksum.
    fn fix_crcs(b: &mut [u8]) {
        let mut pos = 8usize;
        while pos + 12 <= b.len() {
            let len = be32(&b[pos..pos + 4]) as usize;
            let Some(end) = (pos + 12).checked_add(len).filter(|&e| e <= b.len()) else {
                return;
            };
            let crc = crc32fast::hash(&b[pos + 4..end - 4]);
            b[end - 4..end].copy_from_slice(&crc.to_be_bytes());
            pos = end;
        }
    }

    /// Every cut of a valid PNG (the last 1..4 bytes, inside the CRC of IEND, inside IDAT,
    /// inside the header) is `None`, never a panic.
    #[test]
    fn every_truncation_is_none() {
        let good = crate::fixtures::png_gray8(40, 20, &[5; 800]);
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        assert!(decode_u8(&good, 1 << 28, &mut out, &mut scratch).is_some());
        for cut in 0..good.len() {
            assert!(
                decode_u8(&good[..cut], 1 << 28, &mut out, &mut scratch).is_none(),
                "cut at {cut} of {}",
                good.len()
            );
        }
    }

    /// Differential property test against the `png` crate: random bit flips, byte changes,
    /// cuts, insertions and chunk-length rewrites of valid masks. Whenever the fast path
    /// decodes, the `png` crate decodes the same bytes to the same pixels; it never panics.
    #[test]
    fn mutated_pngs_agree_with_the_png_crate() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let data: Vec<u8> = (0..48 * 24).map(|i| ((i % 48) / 10) as u8).collect();
        let seeds = [
            crate::fixtures::png_gray8(48, 24, &data),
            crate::fixtures::png_palette(48, 24, &data, &[[1, 2, 3]; 8]),
            encode(
                48,
                24,
                &data,
                png::Filter::Paeth,
                false,
                png::Compression::Fast,
            ),
        ];
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        let (mut agreed, mut decoded) = (0, 0);
        for case in 0..6000 {
            let mut b = seeds[case % seeds.len()].clone();
            for _ in 0..1 + rnd() % 3 {
                let at = (rnd() as usize) % b.len();
                match rnd() % 6 {
                    0 => b[at] ^= 1 << (rnd() % 8),
                    1 => b[at] = rnd() as u8,
                    2 => b.truncate(at),
                    3 => b.insert(at, rnd() as u8),
                    4 => {
                        // Rewrite a chunk length field (chunk starts are 8, 33, ...).
                        if b.len() >= 12 {
                            let at = 8 + (at % (b.len() - 11));
                            b[at..at + 4].copy_from_slice(&(rnd() as u32 % 4096).to_be_bytes());
                        }
                    }
                    _ => b
                        .drain(at..(at + 1 + rnd() as usize % 8).min(b.len()))
                        .for_each(drop),
                }
                if b.is_empty() {
                    break;
                }
            }
            if case % 2 == 0 {
                fix_crcs(&mut b);
            }
            let fast = decode_u8(&b, 1 << 20, &mut out, &mut scratch).map(|_| out.clone());
            if let Some(pixels) = fast {
                decoded += 1;
                assert_eq!(Some(pixels), reference_result(&b), "case {case}");
            }
            agreed += 1;
        }
        assert_eq!(agreed, 6000);
        assert!(
            decoded > 50,
            "the mutations left too few decodable files: {decoded}"
        );
    }

    #[test]
    fn anything_unusual_falls_back() {
        let data = vec![3u8; 64 * 16];
        let good = encode(
            64,
            16,
            &data,
            png::Filter::Paeth,
            false,
            png::Compression::Fast,
        );
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        assert!(decode_u8(&good, 1 << 28, &mut out, &mut scratch).is_some());
        // Truncated, a damaged CRC, a pixel limit, a 16-bit image, no PLTE: all `None`.
        assert!(decode_u8(&good[..good.len() - 20], 1 << 28, &mut out, &mut scratch).is_none());
        let mut bad = good.clone();
        let n = bad.len();
        bad[n - 14] ^= 1;
        assert!(decode_u8(&bad, 1 << 28, &mut out, &mut scratch).is_none());
        assert!(decode_u8(&good, 1000, &mut out, &mut scratch).is_none());
        let sixteen = crate::fixtures::png_gray16(4, 4, &[1; 16]);
        assert!(decode_u8(&sixteen, 1 << 28, &mut out, &mut scratch).is_none());
        let no_plte = crate::fixtures::png_without_plte(4, 4, &[1; 16]);
        assert!(decode_u8(&no_plte, 1 << 28, &mut out, &mut scratch).is_none());
    }
}
