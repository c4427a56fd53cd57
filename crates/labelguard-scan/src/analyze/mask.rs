//! Masks read as images (PNG, TIFF): read, decode, and send the pixels to the class-id check
//! by their channels: grey and palette masks directly, grey + alpha through its first channel,
//! colour masks to [`super::colour`]. An array saved under a mask's name goes to
//! [`super::array`].

use super::buffers::Buffers;
use super::channel::channel_view;
use super::class_ids::class_check;
use super::ctx::Ctx;
use super::result::{FileKind, FileResult};
use crate::layout::paths::has_ext;
use crate::layout::Item;
use labelguard_core::rules::LG203;
use labelguard_core::{Finding, TensorView, Verdict};
use labelguard_formats::read::mask::{
    decode_mask, decode_tiff_file, is_tiff, png_end_problem, MaskImage,
};

pub(crate) fn mask_file(item: &Item, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Mask);
    if has_ext(&item.display, &["tif", "tiff"]) && tiff_file(&mut r, item, ctx, bufs) {
        return r;
    }
    if let Err(p) = item.source.read_all(ctx.max_file_bytes(), &mut bufs.file) {
        r.findings.push(p);
        return r;
    }
    // An array saved under a mask's name (or scanned as a single file): read it as an array.
    let head = &bufs.file[..bufs.file.len().min(16)];
    if head.starts_with(b"\x93NUMPY")
        || head.starts_with(b"PK\x03\x04")
        || looks_like_safetensors(&bufs.file)
    {
        r.kind = FileKind::Array;
        super::array::array_file(&mut r, item, ctx);
        return r;
    }
    let mut pixels = std::mem::take(&mut bufs.pixels);
    match decode_mask(&bufs.file, ctx.opts.max_pixels, &mut pixels, &mut bufs.aux) {
        Ok(img) => {
            r.shape = Some(vec![img.height, img.width]);
            if img.format == "PNG" {
                if let Some(p) = png_end_problem(&bufs.file) {
                    r.findings.push(p);
                }
            }
            mask_pixels(&mut r, &img, &pixels, ctx, &mut bufs.aux);
        }
        Err(p) => r.findings.push(p),
    }
    bufs.pixels = pixels;
    r
}

/// Decodes a `.tif` mask from its open file into `r` (a TIFF under another name is read whole
/// and recognised by its magic, as every other mask); `false` when the file does not start
/// like a TIFF (a PNG or an array under a TIFF's name), which is then read whole as usual.
fn tiff_file(r: &mut FileResult, item: &Item, ctx: &Ctx<'_>, bufs: &mut Buffers) -> bool {
    use std::io::{Read, Seek};
    let (mut file, len) = match item.source.open(ctx.max_file_bytes()) {
        Ok(opened) => opened,
        Err(p) => {
            r.findings.push(p);
            return true;
        }
    };
    let mut head = [0u8; 4];
    if file.read_exact(&mut head).is_err() || !is_tiff(&head) || file.rewind().is_err() {
        return false;
    }
    match decode_tiff_file(file, len, ctx.opts.max_pixels, &mut bufs.pixels) {
        Ok(img) => {
            r.shape = Some(vec![img.height, img.width]);
            mask_pixels(r, &img, &bufs.pixels, ctx, &mut bufs.aux);
        }
        Err(p) => r.findings.push(p),
    }
    true
}

fn looks_like_safetensors(b: &[u8]) -> bool {
    b.len() > 10 && {
        let n = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        n > 1 && n < (b.len() as u64) && b[8] == b'{'
    }
}

/// The channels of a decoded mask decide what its ids are.
pub(crate) fn mask_pixels(
    r: &mut FileResult,
    img: &MaskImage,
    pixels: &[u8],
    ctx: &Ctx<'_>,
    aux: &mut Vec<u8>,
) {
    let (h, w) = (img.height, img.width);
    match img.channels {
        1 => {
            let view =
                TensorView::new(img.dtype, &[h, w], pixels).expect("decoder sized the buffer");
            let palette = img.palette.as_deref().or(ctx.opts.palette.as_deref());
            class_check(r, &view, "mask", ctx, palette);
        }
        2 => {
            r.findings.push(
                Finding::new(&LG203, Verdict::Error, "a grey + alpha mask: loaded as an array it has shape [H, W, 2], an extra channel dimension")
                    .hint("the alpha channel of a mask saved from an image editor")
                    .fix("keep the first channel: np.array(Image.open(p))[..., 0], or re-save as 'L'"),
            );
            let view = channel_view(img, pixels, 0, aux);
            class_check(r, &view, "mask", ctx, ctx.opts.palette.as_deref());
        }
        _ => super::colour::colour_mask(r, img, pixels, ctx, aux),
    }
}
