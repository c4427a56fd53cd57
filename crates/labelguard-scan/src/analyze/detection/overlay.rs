//! The overlay of a detection file: its image, downscaled, with the objects' boxes drawn on it
//! (green where the object is fine, red where a finding is about it). Any format's analysis
//! calls [`boxes_overlay`] with the image's path and its boxes in pixels; an image that cannot
//! be decoded (missing, corrupt, a format without a decoder here, larger than `max_pixels`)
//! gives a grey canvas of the size the annotation records instead.

use crate::overlay::Overlay;
use labelguard_formats::source::Source;

/// The longest side of an overlay, in pixels.
pub const MAX_SIDE: u64 = 512;
const GREEN: [u8; 3] = [0, 220, 0];
const RED: [u8; 3] = [255, 0, 0];
const CANVAS: [u8; 3] = [96, 96, 96];

/// One box to draw, in the image's pixels: `(x0, y0)` its top-left corner, `(x1, y1)` its
/// bottom-right one (0-based; VOC's 1-based corners minus one), `bad` when a finding is
/// about its object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxMark {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
    pub bad: bool,
}

/// The image at `image` (JPEG or PNG) with `boxes` drawn as 2-pixel rectangles, downscaled to
/// at most [`MAX_SIDE`] pixels on its long side. `size` (width, height) is the size the
/// annotation records, for the grey canvas when the image cannot be decoded; `None` when
/// neither gives a size.
pub fn boxes_overlay(
    image: Option<&Source>,
    size: Option<(u64, u64)>,
    boxes: &[BoxMark],
    max_pixels: u64,
) -> Option<Overlay> {
    let decoded = image.and_then(|p| decode_rgb(p, max_pixels));
    let (w, h) = match &decoded {
        Some((w, h, _)) => (*w as u64, *h as u64),
        None => size.filter(|(w, h)| *w > 0 && *h > 0)?,
    };
    let scale = w.max(h).div_ceil(MAX_SIDE).max(1);
    let (ow, oh) = (w.div_ceil(scale) as usize, h.div_ceil(scale) as usize);
    let mut rgb = Vec::with_capacity(ow * oh * 3);
    match &decoded {
        Some((dw, _, px)) => {
            for oy in 0..oh {
                let row = oy * scale as usize * dw;
                for ox in 0..ow {
                    let i = (row + ox * scale as usize) * 3;
                    rgb.extend_from_slice(&px[i..i + 3]);
                }
            }
        }
        None => {
            for _ in 0..ow * oh {
                rgb.extend_from_slice(&CANVAS);
            }
        }
    }
    let mut o = Overlay {
        width: ow,
        height: oh,
        rgb,
    };
    // Bad boxes last, so that they are on top.
    for b in boxes
        .iter()
        .filter(|b| !b.bad)
        .chain(boxes.iter().filter(|b| b.bad))
    {
        draw_rect(&mut o, b, scale as f64);
    }
    Some(o)
}

/// A 2-pixel outline of `b` (in image pixels, divided by `scale`), clamped to the canvas so
/// that a box outside the image shows at its edge.
fn draw_rect(o: &mut Overlay, b: &BoxMark, scale: f64) {
    if ![b.x0, b.y0, b.x1, b.y1].iter().all(|v| v.is_finite()) {
        return;
    }
    let clamp =
        |v: f64, max: usize| -> usize { (v / scale).floor().clamp(0.0, max as f64 - 1.0) as usize };
    let (x0, x1) = (
        clamp(b.x0.min(b.x1), o.width),
        clamp(b.x0.max(b.x1), o.width),
    );
    let (y0, y1) = (
        clamp(b.y0.min(b.y1), o.height),
        clamp(b.y0.max(b.y1), o.height),
    );
    let c = if b.bad { RED } else { GREEN };
    let mut put = |x: usize, y: usize| {
        if x < o.width && y < o.height {
            let i = (y * o.width + x) * 3;
            o.rgb[i..i + 3].copy_from_slice(&c);
        }
    };
    for t in 0..2 {
        for x in x0..=x1 {
            put(x, y0 + t);
            put(x, y1.saturating_sub(t));
        }
        for y in y0..=y1 {
            put(x0 + t, y);
            put(x1.saturating_sub(t), y);
        }
    }
}

/// The image's pixels as 8-bit RGB (width, height, bytes), or `None` when it cannot be read
/// or decoded or has more than `max_pixels` pixels.
fn decode_rgb(source: &Source, max_pixels: u64) -> Option<(usize, usize, Vec<u8>)> {
    let mut bytes = Vec::new();
    source
        .read_all(
            max_pixels.saturating_mul(4).saturating_add(1 << 20),
            &mut bytes,
        )
        .ok()?;
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        decode_jpeg(&bytes, max_pixels)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        decode_png(&bytes, max_pixels)
    } else {
        None
    }
}

fn decode_jpeg(bytes: &[u8], max_pixels: u64) -> Option<(usize, usize, Vec<u8>)> {
    use zune_jpeg::zune_core::bytestream::ZCursor;
    use zune_jpeg::zune_core::colorspace::ColorSpace;
    use zune_jpeg::zune_core::options::DecoderOptions;
    let opts = DecoderOptions::default()
        .jpeg_set_out_colorspace(ColorSpace::RGB)
        .set_max_width(1 << 16)
        .set_max_height(1 << 16);
    let mut d = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(bytes), opts);
    d.decode_headers().ok()?;
    let (w, h) = d.dimensions()?;
    if (w as u64) * (h as u64) > max_pixels || w == 0 || h == 0 {
        return None;
    }
    let px = d.decode().ok()?;
    (px.len() >= w * h * 3).then_some((w, h, px))
}

fn decode_png(bytes: &[u8], max_pixels: u64) -> Option<(usize, usize, Vec<u8>)> {
    let limits = png::Limits {
        bytes: (max_pixels.saturating_mul(8)).min(usize::MAX as u64) as usize,
    };
    let mut dec = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), limits);
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut r = dec.read_info().ok()?;
    let (w, h) = (r.info().width as usize, r.info().height as usize);
    if (w as u64) * (h as u64) > max_pixels || w == 0 || h == 0 {
        return None;
    }
    let mut buf = vec![0u8; r.output_buffer_size()?];
    let info = r.next_frame(&mut buf).ok()?;
    let ch = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return None,
    };
    let mut rgb = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        let row = &buf[y * info.line_size..];
        for x in 0..w {
            let p = &row[x * ch..x * ch + ch];
            if ch < 3 {
                rgb.extend_from_slice(&[p[0], p[0], p[0]]);
            } else {
                rgb.extend_from_slice(&p[..3]);
            }
        }
    }
    Some((w, h, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use labelguard_formats::fixtures::{png_rgb, put};

    fn px(o: &Overlay, x: usize, y: usize) -> [u8; 3] {
        let i = (y * o.width + x) * 3;
        [o.rgb[i], o.rgb[i + 1], o.rgb[i + 2]]
    }

    /// A baseline greyscale JPEG of `w x h` (multiples of 8) whose every block is flat mid
    /// grey: one DC and one AC Huffman code ("0": DC difference 0, end of block).
    fn flat_jpeg(w: u16, h: u16) -> Vec<u8> {
        let mut v = vec![0xFF, 0xD8];
        v.extend_from_slice(&[0xFF, 0xDB, 0x00, 0x43, 0x00]);
        v.extend_from_slice(&[1u8; 64]);
        v.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x0B, 0x08]);
        v.extend_from_slice(&h.to_be_bytes());
        v.extend_from_slice(&w.to_be_bytes());
        v.extend_from_slice(&[0x01, 0x01, 0x11, 0x00]);
        for class in [0x00u8, 0x10] {
            v.extend_from_slice(&[0xFF, 0xC4, 0x00, 0x14, class, 1]);
            v.extend_from_slice(&[0u8; 15]);
            v.push(0x00);
        }
        v.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]);
        let blocks = (w as usize / 8) * (h as usize / 8);
        // Two bits ("0" DC, "0" EOB) per block, padded with ones.
        let bits = blocks * 2;
        let mut data = vec![0u8; bits.div_ceil(8)];
        if !bits.is_multiple_of(8) {
            let last = data.len() - 1;
            data[last] = 0xFF >> (bits % 8);
        }
        v.extend_from_slice(&data);
        v.extend_from_slice(&[0xFF, 0xD9]);
        v
    }

    #[test]
    fn boxes_are_drawn_on_a_png_green_and_red() {
        let dir = tempfile::tempdir().unwrap();
        let blue: Vec<u8> = (0..40 * 20).flat_map(|_| [0, 0, 200]).collect();
        put(dir.path(), "a.png", &png_rgb(40, 20, &blue));
        let boxes = [
            BoxMark {
                x0: 5.0,
                y0: 5.0,
                x1: 15.0,
                y1: 15.0,
                bad: false,
            },
            BoxMark {
                x0: 20.0,
                y0: 2.0,
                x1: 35.0,
                y1: 18.0,
                bad: true,
            },
        ];
        let o = boxes_overlay(
            Some(&Source::File(dir.path().join("a.png"))),
            None,
            &boxes,
            1 << 20,
        )
        .unwrap();
        assert_eq!((o.width, o.height), (40, 20));
        assert_eq!(px(&o, 5, 10), GREEN);
        assert_eq!(px(&o, 6, 10), GREEN);
        assert_eq!(px(&o, 7, 10), [0, 0, 200]);
        assert_eq!(px(&o, 10, 10), [0, 0, 200]);
        assert_eq!(px(&o, 20, 10), RED);
        assert_eq!(px(&o, 35, 10), RED);
        assert_eq!(px(&o, 27, 2), RED);
        assert_eq!(px(&o, 0, 0), [0, 0, 200]);
    }

    #[test]
    fn a_jpeg_is_decoded_and_downscaled() {
        let dir = tempfile::tempdir().unwrap();
        put(dir.path(), "a.jpg", &flat_jpeg(1024, 16));
        let boxes = [BoxMark {
            x0: 100.0,
            y0: 0.0,
            x1: 300.0,
            y1: 15.0,
            bad: true,
        }];
        let o = boxes_overlay(
            Some(&Source::File(dir.path().join("a.jpg"))),
            None,
            &boxes,
            1 << 20,
        )
        .unwrap();
        assert_eq!((o.width, o.height), (512, 8));
        let grey = px(&o, 10, 4);
        assert!(grey.iter().all(|&c| (120..=136).contains(&c)), "{grey:?}");
        assert_eq!(px(&o, 50, 4), RED);
        assert_eq!(px(&o, 150, 4), RED);
    }

    #[test]
    fn an_undecodable_image_gives_a_grey_canvas_of_the_recorded_size() {
        let dir = tempfile::tempdir().unwrap();
        put(
            dir.path(),
            "a.jpg",
            &labelguard_formats::fixtures::jpeg_stub(300, 200),
        );
        let boxes = [BoxMark {
            x0: 10.0,
            y0: 10.0,
            x1: 50.0,
            y1: 50.0,
            bad: false,
        }];
        let o = boxes_overlay(
            Some(&Source::File(dir.path().join("a.jpg"))),
            Some((300, 200)),
            &boxes,
            1 << 20,
        )
        .unwrap();
        assert_eq!((o.width, o.height), (300, 200));
        assert_eq!(px(&o, 100, 100), CANVAS);
        assert_eq!(px(&o, 10, 30), GREEN);
        // Too many pixels to decode: the canvas, downscaled.
        let o = boxes_overlay(None, Some((5000, 100)), &boxes, 1 << 20).unwrap();
        assert_eq!((o.width, o.height), (500, 10));
        assert!(boxes_overlay(None, None, &boxes, 1 << 20).is_none());
        assert!(boxes_overlay(None, Some((0, 0)), &boxes, 1 << 20).is_none());
    }
}
