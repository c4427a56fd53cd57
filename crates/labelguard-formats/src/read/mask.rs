//! Mask images: PNG (grey 1..16-bit, palette indices kept, grey+alpha, RGB/RGBA) and TIFF.
//!
//! The PNG header is parsed by hand first, so that a decompression bomb is refused from its
//! 33 header bytes before any decoder state or pixel buffer exists. Decoding uses the `png`
//! crate with `Transformations::IDENTITY`, the only Rust decoder that returns palette indices
//! rather than colours (see rust-ecosystem.md), into a buffer reused across files.

use super::inflate_bound::{can_hold, png_idat_bytes, DEFLATE_MAX_RATIO, TIFF_MAX_RATIO};
use super::magic::{not_a_mask, PNG_END, PNG_MAGIC};
use crate::checks::lg602_corrupt_file::{self as lg602, truncated};
use crate::checks::lg603_empty_file as lg603;
use crate::checks::lg604_decompression_bomb as lg604;
use labelguard_core::DType;
use labelguard_core::Finding;
use std::io::Cursor;

/// What was decoded into the caller's buffer: `height x width x channels` samples of `dtype`
/// (little-endian), row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskImage {
    pub format: &'static str,
    pub width: usize,
    pub height: usize,
    pub channels: usize,
    pub dtype: DType,
    /// For palette images: the colour of each index (the class ids are the indices).
    pub palette: Option<Vec<[u8; 3]>>,
}

impl MaskImage {
    pub fn shape(&self) -> Vec<usize> {
        if self.channels == 1 {
            vec![self.height, self.width]
        } else {
            vec![self.height, self.width, self.channels]
        }
    }
}

pub fn is_tiff(bytes: &[u8]) -> bool {
    bytes.starts_with(b"II*\0")
        || bytes.starts_with(b"MM\0*")
        || bytes.starts_with(b"II+\0")
        || bytes.starts_with(b"MM\0+")
}

/// Width and height from a PNG's `IHDR`, without decoding anything.
pub fn png_dimensions(bytes: &[u8]) -> Result<(u32, u32), Finding> {
    if bytes.len() < 33 {
        return Err(truncated("the file ends inside the PNG header"));
    }
    if &bytes[12..16] != b"IHDR" {
        return Err(lg602::png_without_ihdr());
    }
    let w = u32::from_be_bytes(bytes[16..20].try_into().expect("4 bytes"));
    let h = u32::from_be_bytes(bytes[20..24].try_into().expect("4 bytes"));
    Ok((w, h))
}

/// LG602 for a PNG whose pixels decoded but whose `IEND` chunk is missing or cut (a copy
/// interrupted in the last bytes): the `png` crate stops reading after the image data, so
/// this is checked on the bytes. Data appended after `IEND` is not flagged.
pub fn png_end_problem(bytes: &[u8]) -> Option<Finding> {
    let tail = &bytes[bytes.len().saturating_sub(4096)..];
    (!tail.windows(PNG_END.len()).any(|w| w == PNG_END)).then(|| {
        truncated(
            "the file does not end with its complete IEND chunk (the pixels before it decoded)",
        )
    })
}

/// LG603 for an image with no pixels, LG604 for one with too many; checked on header values.
pub fn check_pixels(
    format: &str,
    width: u64,
    height: u64,
    frames: u64,
    max_pixels: u64,
) -> Result<(), Finding> {
    if width == 0 || height == 0 || frames == 0 {
        return Err(lg603::image_without_pixels(format, width, height));
    }
    let pixels = width as u128 * height as u128 * frames as u128;
    if pixels > max_pixels as u128 {
        return Err(lg604::too_many_pixels(
            format,
            (width, height, frames),
            pixels,
            max_pixels,
        ));
    }
    Ok(())
}

/// Decodes a PNG or TIFF mask into `out`; `scratch` holds intermediate data.
pub fn decode_mask(
    bytes: &[u8],
    max_pixels: u64,
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<MaskImage, Finding> {
    if bytes.starts_with(PNG_MAGIC) {
        let (w, h) = png_dimensions(bytes)?;
        check_pixels("PNG", w as u64, h as u64, 1, max_pixels)?;
        check_png_data(bytes, w, h)?;
        let (samples, depth) = png_samples(bytes);
        check_decoded_bytes("PNG", w as u64, h as u64, samples, depth, max_pixels)?;
        if let Some(f) = super::fastpng::decode_u8(bytes, max_pixels, out, scratch) {
            return Ok(MaskImage {
                format: "PNG",
                width: f.width,
                height: f.height,
                channels: 1,
                dtype: DType::U8,
                palette: f.palette,
            });
        }
        decode_png(bytes, max_pixels, out)
    } else if is_tiff(bytes) {
        decode_tiff(Cursor::new(bytes), bytes.len() as u64, max_pixels, out)
    } else {
        Err(not_a_mask(bytes))
    }
}

/// LG602 (truncated) when the compressed data present cannot hold the rows the header claims,
/// checked before anything is allocated (see `inflate_bound`).
fn check_png_data(bytes: &[u8], w: u32, h: u32) -> Result<(), Finding> {
    let (samples, depth) = png_samples(bytes);
    let row = (w as u128 * samples as u128 * depth as u128).div_ceil(8) + 1;
    let claimed = row * h as u128;
    let idat = png_idat_bytes(bytes);
    if can_hold(idat, DEFLATE_MAX_RATIO, claimed) {
        return Ok(());
    }
    Err(truncated(&format!(
        "its {idat} bytes of compressed pixel data cannot hold the {claimed} bytes of rows its {w}x{h} header claims (deflate expands at most {DEFLATE_MAX_RATIO}:1)"
    )))
}

/// Samples per pixel and bits per sample from a PNG's `IHDR` (at least 33 bytes, checked by
/// [`png_dimensions`]): colour type 2 is RGB, 4 grey + alpha, 6 RGBA, the others one sample.
fn png_samples(bytes: &[u8]) -> (u64, u64) {
    let samples = match bytes[25] {
        2 => 3,
        4 => 2,
        6 => 4,
        _ => 1,
    };
    (samples, bytes[24] as u64)
}

/// LG604 when an image's decoded samples would take more than `max_bytes` bytes, checked on
/// header values before anything is inflated. The limit is `--max-pixels` counted in bytes:
/// one byte per pixel, so that the largest grey or palette mask the pixel limit admits still
/// decodes while 16-bit and multi-channel images of that size, which need 2 to 8 times the
/// memory, are refused. Samples of 1 to 8 bits decode to one byte each.
pub fn check_decoded_bytes(
    format: &str,
    width: u64,
    height: u64,
    samples: u64,
    bits: u64,
    max_bytes: u64,
) -> Result<(), Finding> {
    let sample_bytes = bits.div_ceil(8).max(1);
    let bytes = width as u128 * height as u128 * samples as u128 * sample_bytes as u128;
    if bytes <= max_bytes as u128 {
        return Ok(());
    }
    Err(lg604::too_many_decoded_bytes(
        format,
        (width, height),
        (samples, bits),
        bytes,
        max_bytes,
    ))
}

fn png_error(e: png::DecodingError) -> Finding {
    match e {
        png::DecodingError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            truncated("the PNG data ends before the last row")
        }
        png::DecodingError::LimitsExceeded => lg604::decoder_limits("PNG"),
        other => lg602::corrupt_png(&other.to_string()),
    }
}

/// The general path: every PNG the `png` crate reads, and its exact errors.
fn decode_png(bytes: &[u8], max_pixels: u64, out: &mut Vec<u8>) -> Result<MaskImage, Finding> {
    let mut decoder = png::Decoder::new(Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::IDENTITY);
    // 8 bytes per pixel covers 16-bit RGBA; the header check above already bounds the size.
    decoder.set_limits(png::Limits {
        bytes: (max_pixels.saturating_mul(8)).min(usize::MAX as u64) as usize,
    });
    let mut reader = decoder.read_info().map_err(png_error)?;
    let info = reader.info();
    let (color, depth) = (info.color_type, info.bit_depth);
    let palette = info.palette.as_ref().map(|p| {
        p.chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect::<Vec<[u8; 3]>>()
    });
    if color == png::ColorType::Indexed && palette.is_none() {
        return Err(lg602::png_without_plte());
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(lg604::png_size_overflow)?;
    // Only a buffer that grows is zero-filled: a reused one already has the size.
    out.resize(size, 0);
    let frame = reader.next_frame(out).map_err(png_error)?;
    let channels = color.samples();
    let (width, height) = (frame.width as usize, frame.height as usize);
    let dtype = match depth {
        png::BitDepth::Sixteen => {
            for pair in out.chunks_exact_mut(2) {
                pair.swap(0, 1);
            }
            DType::U16
        }
        png::BitDepth::Eight => DType::U8,
        low => {
            unpack_low_bits(out, width, height, channels, low as usize, frame.line_size);
            DType::U8
        }
    };
    out.truncate(width * height * channels * dtype.size());
    Ok(MaskImage {
        format: "PNG",
        width,
        height,
        channels,
        dtype,
        palette,
    })
}

/// Expands 1-, 2- and 4-bit samples (packed, rows padded to bytes) to one byte each, in place
/// from the end so that no second buffer is needed.
fn unpack_low_bits(
    buf: &mut Vec<u8>,
    width: usize,
    height: usize,
    channels: usize,
    bits: usize,
    line: usize,
) {
    let per_row = width * channels;
    // Sample i of row y is written at y * per_row + i and read from the byte at
    // y * line + i * bits / 8, never after it (line <= per_row); going backwards, every byte
    // still to be read lies below every position already written.
    if buf.len() < per_row * height {
        buf.resize(per_row * height, 0);
    }
    let mask = (1u8 << bits) - 1;
    for y in (0..height).rev() {
        for i in (0..per_row).rev() {
            let bit = i * bits;
            let byte = buf[y * line + bit / 8];
            let shift = 8 - bits - (bit % 8);
            buf[y * per_row + i] = (byte >> shift) & mask;
        }
    }
    buf.truncate(per_row * height);
}

fn tiff_error(e: tiff::TiffError) -> Finding {
    match e {
        tiff::TiffError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            truncated("the TIFF data ends early")
        }
        tiff::TiffError::LimitsExceeded => lg604::decoder_limits("TIFF"),
        other => lg602::corrupt_tiff(other),
    }
}

/// Decodes a TIFF mask from an open file, reading its strips as they are needed: the file's
/// bytes are never all in memory beside the decoded pixels (an uncompressed 16-bit mask at the
/// decoded-byte limit would otherwise hold twice that limit).
pub fn decode_tiff_file(
    file: impl std::io::Read + std::io::Seek,
    len: u64,
    max_pixels: u64,
    out: &mut Vec<u8>,
) -> Result<MaskImage, Finding> {
    decode_tiff(std::io::BufReader::new(file), len, max_pixels, out)
}

/// Decodes a TIFF of `len` bytes from `reader` into `out`.
fn decode_tiff<R: std::io::Read + std::io::Seek>(
    reader: R,
    len: u64,
    max_pixels: u64,
    out: &mut Vec<u8>,
) -> Result<MaskImage, Finding> {
    let mut limits = tiff::decoder::Limits::default();
    // The decoded bytes are limited like a PNG's (see `check_decoded_bytes`).
    let budget = max_pixels.min(usize::MAX as u64) as usize;
    limits.decoding_buffer_size = budget;
    limits.intermediate_buffer_size = budget;
    let mut decoder = tiff::decoder::Decoder::new(reader)
        .map_err(tiff_error)?
        .with_limits(limits);
    let (w, h) = decoder.dimensions().map_err(tiff_error)?;
    let color = decoder.colortype().map_err(tiff_error)?;
    let channels = match color {
        tiff::ColorType::Gray(_) | tiff::ColorType::Palette(_) => 1,
        tiff::ColorType::GrayA(_) => 2,
        tiff::ColorType::RGB(_) | tiff::ColorType::YCbCr(_) | tiff::ColorType::Lab(_) => 3,
        tiff::ColorType::RGBA(_) | tiff::ColorType::CMYK(_) => 4,
        tiff::ColorType::Multiband { num_samples, .. } => num_samples as usize,
        _ => 5,
    };
    check_pixels(
        "TIFF",
        w as u64,
        h as u64,
        1,
        max_pixels / channels.max(1) as u64,
    )?;
    let bits = color.bit_depth() as u64;
    check_decoded_bytes(
        "TIFF",
        w as u64,
        h as u64,
        channels as u64,
        bits,
        max_pixels,
    )?;
    // 8 bytes per sample at most; the file's own size bounds what its strips can decode to.
    let claimed = w as u128 * h as u128 * channels as u128;
    if !can_hold(len, TIFF_MAX_RATIO, claimed) {
        return Err(truncated(&format!(
            "its {len} bytes cannot hold the {claimed} samples its {w}x{h} header claims"
        )));
    }
    // Decoded straight into `out` (one buffer for the pixels, whatever their type): the decoder
    // writes samples in the machine's byte order, converted to the little-endian bytes of
    // `dtype` in place.
    let layout = decoder.image_buffer_layout().map_err(tiff_error)?;
    use tiff::decoder::DecodingSampleType as S;
    // The decoded sample's size, and the type it is kept as (u32 widens to i64, u64 clamps).
    let (size, dtype) = match layout.sample_type {
        Some(S::U8) => (1, DType::U8),
        Some(S::I8) => (1, DType::I8),
        Some(S::U16) => (2, DType::U16),
        Some(S::I16) => (2, DType::I16),
        Some(S::I32) => (4, DType::I32),
        Some(S::U32) => (4, DType::I64),
        Some(S::F32) => (4, DType::F32),
        Some(S::I64 | S::U64) => (8, DType::I64),
        Some(S::F64) => (8, DType::F64),
        // 16-bit float, or samples the decoder cannot describe: what decoding them says.
        _ => {
            return Err(match decoder.read_image() {
                Err(e) => tiff_error(e),
                Ok(_) => lg602::tiff_sample_format(),
            })
        }
    };
    // The samples of the first plane, limited as the decoder limits its own buffer.
    let samples = layout.len.div_ceil(size);
    if samples > budget / size {
        return Err(tiff_error(tiff::TiffError::LimitsExceeded));
    }
    out.clear();
    out.reserve_exact(samples * dtype.size());
    out.resize(samples * dtype.size(), 0);
    decoder
        .read_image_bytes(&mut out[..samples * size])
        .map_err(tiff_error)?;
    if cfg!(target_endian = "big") {
        out[..samples * size]
            .chunks_exact_mut(size)
            .for_each(<[u8]>::reverse);
    }
    match layout.sample_type {
        Some(S::U32) => {
            // Back to front: each 8-byte slot ends at or before the 4-byte samples not yet read.
            for i in (0..samples).rev() {
                let v = u32::from_le_bytes(out[4 * i..4 * i + 4].try_into().expect("4 bytes"));
                out[8 * i..8 * i + 8].copy_from_slice(&i64::from(v).to_le_bytes());
            }
        }
        Some(S::U64) => {
            for x in out.chunks_exact_mut(8) {
                let v = u64::from_le_bytes((&*x).try_into().expect("8 bytes"));
                x.copy_from_slice(&(v.min(i64::MAX as u64) as i64).to_le_bytes());
            }
        }
        _ => {}
    }
    let (width, height) = (w as usize, h as usize);
    if out.len() < width * height * channels * dtype.size() {
        return Err(truncated(
            "the TIFF holds fewer samples than its header claims",
        ));
    }
    out.truncate(width * height * channels * dtype.size());
    Ok(MaskImage {
        format: "TIFF",
        width,
        height,
        channels,
        dtype,
        palette: None,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Encodes a PNG with the `png` crate (the fixtures' encoder, under the name other modules'
    /// tests use).
    pub use crate::fixtures::png as png_bytes;

    fn tiff_image<C: tiff::encoder::colortype::ColorType>(
        w: u32,
        h: u32,
        data: &[C::Inner],
    ) -> Vec<u8>
    where
        [C::Inner]: tiff::encoder::TiffValue,
    {
        let mut out = Cursor::new(Vec::new());
        tiff::encoder::TiffEncoder::new(&mut out)
            .unwrap()
            .write_image::<C>(w, h, data)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn tiff_samples_of_every_width_decode_into_one_little_endian_buffer() {
        use tiff::encoder::colortype::{Gray16, Gray32, Gray32Float, Gray64, GrayI16};
        let (mut out, mut scratch) = (Vec::new(), Vec::new());
        let mut decode = |bytes: Vec<u8>| {
            let img = decode_mask(&bytes, 1 << 20, &mut out, &mut scratch).unwrap();
            assert_eq!((img.width, img.height, img.channels), (3, 2, 1));
            (img.dtype, out.clone())
        };
        let le = |v: &[i64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let u16s = [0u16, 1, 255, 65535, 7, 300];
        let want: Vec<u8> = u16s.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(
            decode(tiff_image::<Gray16>(3, 2, &u16s)),
            (DType::U16, want)
        );
        let i16s = [0i16, -1, 255, i16::MIN, 7, 300];
        let want: Vec<u8> = i16s.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(
            decode(tiff_image::<GrayI16>(3, 2, &i16s)),
            (DType::I16, want)
        );
        // Unsigned 32-bit samples widen to i64; 64-bit ones clamp at i64::MAX.
        let u32s = [0u32, 1, u32::MAX, 70_000, 5, 6];
        let want = le(&u32s.map(i64::from));
        assert_eq!(
            decode(tiff_image::<Gray32>(3, 2, &u32s)),
            (DType::I64, want)
        );
        let u64s = [0u64, u64::MAX, 1 << 40, 3, i64::MAX as u64 + 1, 5];
        let want = le(&[0, i64::MAX, 1 << 40, 3, i64::MAX, 5]);
        assert_eq!(
            decode(tiff_image::<Gray64>(3, 2, &u64s)),
            (DType::I64, want)
        );
        let f32s = [0.0f32, 1.5, -2.0, 3.0, 4.0, 5.0];
        let want: Vec<u8> = f32s.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(
            decode(tiff_image::<Gray32Float>(3, 2, &f32s)),
            (DType::F32, want)
        );
    }

    #[test]
    fn grey_palette_16_bit_and_low_bit_pngs_decode_to_ids() {
        let mut buf = Vec::new();
        let g = png_bytes(
            3,
            2,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[0, 1, 2, 3, 4, 255],
            None,
        );
        let m = decode_mask(&g, 1 << 28, &mut buf, &mut Vec::new()).unwrap();
        assert_eq!(
            (m.width, m.height, m.channels, m.dtype),
            (3, 2, 1, DType::U8)
        );
        assert_eq!(buf, vec![0, 1, 2, 3, 4, 255]);

        let p = png_bytes(
            2,
            1,
            png::ColorType::Indexed,
            png::BitDepth::Eight,
            &[5, 1],
            Some(&[0u8; 18]),
        );
        let m = decode_mask(&p, 1 << 28, &mut buf, &mut Vec::new()).unwrap();
        assert_eq!(buf, vec![5, 1]);
        assert_eq!(m.palette.unwrap().len(), 6);

        let s = png_bytes(
            2,
            1,
            png::ColorType::Grayscale,
            png::BitDepth::Sixteen,
            &[0x01, 0x02, 0xff, 0xfe],
            None,
        );
        let m = decode_mask(&s, 1 << 28, &mut buf, &mut Vec::new()).unwrap();
        assert_eq!(m.dtype, DType::U16);
        assert_eq!(
            buf,
            [0x0102u16.to_le_bytes(), 0xfffeu16.to_le_bytes()].concat()
        );

        // 2-bit palette, 5 pixels per row: 00 01 10 11 | 01 (padded)
        let lo = png_bytes(
            5,
            1,
            png::ColorType::Indexed,
            png::BitDepth::Two,
            &[0b0001_1011, 0b0100_0000],
            Some(&[0u8; 12]),
        );
        decode_mask(&lo, 1 << 28, &mut buf, &mut Vec::new()).unwrap();
        assert_eq!(buf, vec![0, 1, 2, 3, 1]);
    }

    /// 1-, 2- and 4-bit grey rows of several widths (rows padded to a byte) unpack in place to
    /// one byte a sample, every row and every sample where the packed bits say.
    #[test]
    fn low_bit_rows_unpack_in_place() {
        let mut seed = 7u32;
        for (bits, depth) in [
            (1, png::BitDepth::One),
            (2, png::BitDepth::Two),
            (4, png::BitDepth::Four),
        ] {
            for (w, h) in [(1usize, 1usize), (5, 3), (13, 7), (64, 4), (67, 9)] {
                let line = (w * bits).div_ceil(8);
                let packed: Vec<u8> = (0..line * h)
                    .map(|_| {
                        seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
                        (seed >> 24) as u8
                    })
                    .collect();
                let png = png_bytes(
                    w as u32,
                    h as u32,
                    png::ColorType::Grayscale,
                    depth,
                    &packed,
                    None,
                );
                let mut buf = Vec::new();
                decode_mask(&png, 1 << 28, &mut buf, &mut Vec::new()).unwrap();
                let expected: Vec<u8> = (0..h)
                    .flat_map(|y| {
                        let row = &packed[y * line..(y + 1) * line];
                        (0..w).map(move |i| {
                            let byte = row[i * bits / 8];
                            (byte >> (8 - bits - (i * bits) % 8)) & ((1u8 << bits) - 1)
                        })
                    })
                    .collect();
                assert_eq!(buf, expected, "{bits}-bit {w}x{h}");
            }
        }
    }

    #[test]
    fn bombs_are_refused_from_the_header() {
        let mut g = png_bytes(
            4,
            4,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[0; 16],
            None,
        );
        // Claim 100000 x 100000 in IHDR (and fix its CRC, so only the size is wrong).
        g[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        g[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let crc = crc32fast::hash(&g[12..29]);
        g[29..33].copy_from_slice(&crc.to_be_bytes());
        let mut buf = Vec::new();
        let e = decode_mask(&g, 1 << 28, &mut buf, &mut Vec::new()).unwrap_err();
        assert_eq!(e.code, "LG604");
        assert!(buf.capacity() == 0, "nothing allocated");
        let small = png_bytes(
            4,
            4,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[0; 16],
            None,
        );
        assert_eq!(
            decode_mask(&small, 15, &mut buf, &mut Vec::new())
                .unwrap_err()
                .code,
            "LG604"
        );
    }

    /// A 69-byte PNG claiming 16384x16384 16-bit RGBA (2 GiB of pixels, within the pixel
    /// limit) is truncated by arithmetic: nothing is allocated for its pixels.
    #[test]
    fn a_tiny_png_claiming_gigabytes_allocates_nothing() {
        for (depth, colour) in [(16u8, 6u8), (8, 0)] {
            let b = crate::fixtures::png_claim(16384, 16384, depth, colour);
            assert!(b.len() < 70);
            let (mut buf, mut aux) = (Vec::new(), Vec::new());
            let e = decode_mask(&b, 1 << 28, &mut buf, &mut aux).unwrap_err();
            assert_eq!(e.code, "LG602");
            assert!(e.message.contains("cannot hold"), "{}", e.message);
            assert_eq!((buf.capacity(), aux.capacity()), (0, 0));
        }
    }

    /// A PNG claiming 16384x16384 16-bit RGBA with enough compressed bytes to hold it (2 MiB,
    /// the size of such a file cut near its end) is an LG604 bomb from its header: 2 GiB
    /// decoded is over the byte limit, and nothing is allocated or inflated.
    #[test]
    fn wide_samples_over_the_decoded_byte_limit_are_refused_from_the_header() {
        let claim = crate::fixtures::png_claim(16384, 16384, 16, 6);
        let idat = vec![0u8; 2 << 20];
        let b = [
            &claim[..33],
            &crate::fixtures::chunk(b"IDAT", &idat),
            &crate::fixtures::chunk(b"IEND", b""),
        ]
        .concat();
        let (mut buf, mut aux) = (Vec::new(), Vec::new());
        let e = decode_mask(&b, 1 << 28, &mut buf, &mut aux).unwrap_err();
        assert_eq!(e.code, "LG604", "{}", e.message);
        assert!(
            e.message.contains("2147483648 bytes decoded")
                && e.message.contains("limit of 268435456 bytes")
                && e.message.contains("--max-pixels"),
            "{}",
            e.message
        );
        assert!(e.fix.contains("--max-pixels"));
        assert_eq!((buf.capacity(), aux.capacity()), (0, 0));
    }

    /// The byte limit admits the largest one-byte mask the pixel limit admits (16384x16384
    /// 8-bit grey, or 4-bit palette, unpacked to a byte) and refuses wider samples of that size.
    #[test]
    fn the_decoded_byte_limit_counts_samples_and_their_width() {
        let n = 16384;
        let limit = 1 << 28;
        assert!(check_decoded_bytes("PNG", n, n, 1, 8, limit).is_ok());
        assert!(check_decoded_bytes("PNG", n, n, 1, 4, limit).is_ok());
        for (samples, bits) in [(1, 16), (3, 8), (2, 8), (4, 16)] {
            let e = check_decoded_bytes("PNG", n, n, samples, bits, limit).unwrap_err();
            assert_eq!(e.code, "LG604");
        }
        assert!(check_decoded_bytes("TIFF", n, n / 2, 1, 16, limit).is_ok());
        assert!(check_decoded_bytes("TIFF", n, n / 2 + 1, 1, 16, limit).is_err());
    }

    #[test]
    fn broken_pngs_are_findings() {
        let good = png_bytes(
            64,
            64,
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[7; 4096],
            None,
        );
        let mut buf = Vec::new();
        let cut = &good[..good.len() - 20];
        assert_eq!(
            decode_mask(cut, 1 << 28, &mut buf, &mut Vec::new())
                .unwrap_err()
                .code,
            "LG602"
        );
        assert_eq!(
            decode_mask(&good[..20], 1 << 28, &mut buf, &mut Vec::new())
                .unwrap_err()
                .code,
            "LG602"
        );
        let mut bad_crc = good.clone();
        bad_crc[30] ^= 0xff;
        assert_eq!(
            decode_mask(&bad_crc, 1 << 28, &mut buf, &mut Vec::new())
                .unwrap_err()
                .code,
            "LG602"
        );
        let e = decode_mask(
            b"version https://git-lfs.github.com/spec/v1\n",
            1 << 28,
            &mut buf,
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(e.hint.unwrap().contains("git lfs pull"));
        // Indexed PNG without PLTE: drop the PLTE chunk from a valid file.
        let p = png_bytes(
            2,
            2,
            png::ColorType::Indexed,
            png::BitDepth::Eight,
            &[0, 1, 1, 0],
            Some(&[0u8; 6]),
        );
        let plte = p.windows(4).position(|w| w == b"PLTE").unwrap() - 4;
        let len = u32::from_be_bytes(p[plte..plte + 4].try_into().unwrap()) as usize;
        let no_plte = [&p[..plte], &p[plte + 12 + len..]].concat();
        let e = decode_mask(&no_plte, 1 << 28, &mut buf, &mut Vec::new()).unwrap_err();
        assert_eq!(e.code, "LG602");
        // Zero-sized header.
        let mut zero = good.clone();
        zero[16..20].copy_from_slice(&0u32.to_be_bytes());
        assert_eq!(
            decode_mask(&zero, 1 << 28, &mut buf, &mut Vec::new())
                .unwrap_err()
                .code,
            "LG603"
        );
    }
}
