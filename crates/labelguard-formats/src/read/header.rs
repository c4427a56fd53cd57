//! Image headers: the size of a paired image (or an ImageFolder sample) and whether the file
//! is complete, read from its first and last bytes only.
//!
//! A full decode of every photo would cost more than the whole mask scan; the header gives the
//! size for LG607, and the end marker (PNG `IEND`, JPEG `EOI`) catches the usual truncation.

use super::magic::{describe_magic, PNG_END, PNG_MAGIC};
use super::mask::{is_tiff, png_dimensions};
use crate::checks::lg601_unreadable_file::io_problem;
use crate::checks::lg602_corrupt_file as lg602;
use crate::source::{ReadSeek, Source};
use labelguard_core::Finding;
use std::io::{Read, Seek, SeekFrom};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageHeader {
    pub format: &'static str,
    pub width: u64,
    pub height: u64,
}

const HEAD: usize = 64 * 1024;

/// Reads the size of an image file (PNG, JPEG, GIF, BMP, WebP, TIFF) and checks its end marker.
pub fn image_header(source: &Source) -> Result<ImageHeader, Finding> {
    let (mut file, len) = source.open(u64::MAX)?;
    let mut head = vec![0u8; HEAD.min(len as usize)];
    file.read_exact(&mut head)
        .map_err(|e| io_problem("cannot read", &e))?;
    let mut tail = [0u8; 16];
    let tail_len = (len as usize).min(16);
    file.seek(SeekFrom::End(-(tail_len as i64)))
        .and_then(|_| file.read_exact(&mut tail[..tail_len]))
        .map_err(|e| io_problem("cannot read", &e))?;
    let tail = &tail[..tail_len];
    if head.starts_with(PNG_MAGIC) {
        let (w, h) = png_dimensions(&head)?;
        if !tail.ends_with(PNG_END) {
            return Err(lg602::truncated_image("PNG", "IEND"));
        }
        return Ok(ImageHeader {
            format: "PNG",
            width: w as u64,
            height: h as u64,
        });
    }
    if head.starts_with(&[0xFF, 0xD8, 0xFF]) {
        let (w, h) = jpeg_dimensions(&mut file, len)?;
        // Some cameras append data after EOI; look for it near the end, not only at the end.
        let mut end = vec![0u8; (len as usize).min(4096)];
        file.seek(SeekFrom::End(-(end.len() as i64)))
            .and_then(|_| file.read_exact(&mut end))
            .map_err(|e| io_problem("cannot read", &e))?;
        if !end.windows(2).any(|w| w == [0xFF, 0xD9]) {
            return Err(lg602::truncated_image("JPEG", "EOI (FF D9)"));
        }
        return Ok(ImageHeader {
            format: "JPEG",
            width: w,
            height: h,
        });
    }
    if head.starts_with(b"GIF8") && head.len() >= 10 {
        let w = u16::from_le_bytes([head[6], head[7]]) as u64;
        let h = u16::from_le_bytes([head[8], head[9]]) as u64;
        return Ok(ImageHeader {
            format: "GIF",
            width: w,
            height: h,
        });
    }
    if head.starts_with(b"BM") && head.len() >= 26 {
        let w = i32::from_le_bytes(head[18..22].try_into().expect("4 bytes")).unsigned_abs() as u64;
        let h = i32::from_le_bytes(head[22..26].try_into().expect("4 bytes")).unsigned_abs() as u64;
        return Ok(ImageHeader {
            format: "BMP",
            width: w,
            height: h,
        });
    }
    if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        if let Some((w, h)) = webp_dimensions(&head) {
            return Ok(ImageHeader {
                format: "WebP",
                width: w,
                height: h,
            });
        }
        return Err(lg602::corrupt_webp());
    }
    if is_tiff(&head) {
        let reader = std::io::BufReader::new(file);
        let mut dec = tiff::decoder::Decoder::new(reader).map_err(lg602::corrupt_tiff_header)?;
        let (w, h) = dec.dimensions().map_err(lg602::corrupt_tiff_header)?;
        return Ok(ImageHeader {
            format: "TIFF",
            width: w as u64,
            height: h as u64,
        });
    }
    let (what, hint) = describe_magic(&head);
    Err(lg602::not_an_image(&what, hint))
}

/// Walks the JPEG marker segments to the first SOFn, seeking over large APPn segments.
fn jpeg_dimensions(file: &mut impl ReadSeek, len: u64) -> Result<(u64, u64), Finding> {
    let mut pos = 2u64;
    for _ in 0..4096 {
        let mut marker = [0u8; 4];
        file.seek(SeekFrom::Start(pos))
            .map_err(|e| io_problem("cannot read", &e))?;
        if pos + 4 > len || file.read_exact(&mut marker).is_err() {
            return Err(lg602::corrupt_jpeg(
                "the file ends before the frame header (SOF)",
            ));
        }
        if marker[0] != 0xFF {
            return Err(lg602::corrupt_jpeg("a marker segment is damaged"));
        }
        let kind = marker[1];
        if kind == 0xFF {
            pos += 1; // fill byte
            continue;
        }
        let seg_len = u16::from_be_bytes([marker[2], marker[3]]) as u64;
        let is_sof = (0xC0..=0xCF).contains(&kind) && !matches!(kind, 0xC4 | 0xC8 | 0xCC);
        if is_sof {
            let mut sof = [0u8; 5];
            file.read_exact(&mut sof)
                .map_err(|_| lg602::corrupt_jpeg("the frame header (SOF) is cut short"))?;
            let h = u16::from_be_bytes([sof[1], sof[2]]) as u64;
            let w = u16::from_be_bytes([sof[3], sof[4]]) as u64;
            return Ok((w, h));
        }
        if kind == 0xD9 || kind == 0xDA {
            return Err(lg602::corrupt_jpeg(
                "no frame header (SOF) before the image data",
            ));
        }
        if seg_len < 2 {
            return Err(lg602::corrupt_jpeg(
                "a marker segment has an invalid length",
            ));
        }
        pos += 2 + seg_len;
    }
    Err(lg602::corrupt_jpeg(
        "too many marker segments before the frame header",
    ))
}

fn webp_dimensions(h: &[u8]) -> Option<(u64, u64)> {
    let chunk = h.get(12..16)?;
    match chunk {
        b"VP8 " => {
            let b = h.get(26..30)?;
            Some((
                (u16::from_le_bytes([b[0], b[1]]) & 0x3fff) as u64,
                (u16::from_le_bytes([b[2], b[3]]) & 0x3fff) as u64,
            ))
        }
        b"VP8L" => {
            let b = h.get(21..25)?;
            let bits = u32::from_le_bytes(b.try_into().ok()?);
            Some((
                (bits & 0x3fff) as u64 + 1,
                ((bits >> 14) & 0x3fff) as u64 + 1,
            ))
        }
        b"VP8X" => {
            let b = h.get(24..30)?;
            let w = u32::from_le_bytes([b[0], b[1], b[2], 0]) as u64 + 1;
            let hh = u32::from_le_bytes([b[3], b[4], b[5], 0]) as u64 + 1;
            Some((w, hh))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest baseline JPEG header with an APP0 segment and an SOF0 frame of 640x480.
    fn jpeg_stub(with_eoi: bool) -> Vec<u8> {
        let mut v = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10];
        v.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        v.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03]);
        v.extend_from_slice(&[1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        v.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x02, 0x12, 0x34]);
        if with_eoi {
            v.extend_from_slice(&[0xFF, 0xD9]);
        }
        v
    }

    #[test]
    fn jpeg_and_png_headers_give_sizes_and_catch_truncation() {
        let dir = tempfile::tempdir().unwrap();
        let j = dir.path().join("a.jpg");
        std::fs::write(&j, jpeg_stub(true)).unwrap();
        assert_eq!(
            image_header(&Source::File(j.clone())).unwrap(),
            ImageHeader {
                format: "JPEG",
                width: 640,
                height: 480
            }
        );
        std::fs::write(&j, jpeg_stub(false)).unwrap();
        assert_eq!(
            image_header(&Source::File(j.clone())).unwrap_err().code,
            "LG602"
        );
        let p = dir.path().join("a.png");
        let png = super::super::mask::tests::png_bytes(
            5,
            3,
            png::ColorType::Rgb,
            png::BitDepth::Eight,
            &[0; 45],
            None,
        );
        std::fs::write(&p, &png).unwrap();
        assert_eq!(image_header(&Source::File(p.clone())).unwrap().width, 5);
        std::fs::write(&p, &png[..png.len() - 5]).unwrap();
        assert!(image_header(&Source::File(p.clone()))
            .unwrap_err()
            .message
            .contains("truncated"));
        std::fs::write(&p, b"").unwrap();
        assert_eq!(
            image_header(&Source::File(p.clone())).unwrap_err().code,
            "LG603"
        );
        std::fs::write(&p, b"<html>404</html>").unwrap();
        assert!(image_header(&Source::File(p.clone()))
            .unwrap_err()
            .message
            .contains("HTML"));
    }
}
