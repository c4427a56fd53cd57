//! LG602 corrupt-file: a label file (or a paired image) that is corrupt, truncated, of an
//! unknown format, or not a file at all. The readers ([`crate::read`]) find it where the bytes
//! are and say what they saw (the decoder's error, where the data ends); every LG602 finding
//! is built here, with its wording, hint and fix.
//! Documentation: `labelguard_core::rules::lg602_corrupt_file`.

use crate::problem::problem;
use labelguard_core::rules::LG602;
use labelguard_core::Finding;
use std::fmt::Display;

fn with_hint(f: Finding, hint: Option<String>) -> Finding {
    match hint {
        Some(h) => f.hint(h),
        None => f,
    }
}

/// A directory where a label file was expected.
pub fn directory() -> Finding {
    problem(&LG602, "is a directory, not a file")
}

/// A file of `len` bytes, over the `max_bytes` limit for one label file.
pub fn over_file_limit(len: u64, max_bytes: u64) -> Finding {
    problem(
        &LG602,
        format!("is {len} bytes, more than the {max_bytes}-byte limit for one label file"),
    )
}

/// A file whose magic bytes (`what` they say it is, with a `hint` when there is one) name no
/// format labelguard reads as a mask.
pub fn not_a_mask(what: &str, hint: Option<String>) -> Finding {
    let p = problem(
        &LG602,
        format!("{what}: not a PNG, TIFF or array mask (wrong magic bytes)"),
    )
    .fix("replace it with the real mask, or exclude the file");
    with_hint(p, hint)
}

/// A paired image whose magic bytes (`what` they say it is) name no image format.
pub fn not_an_image(what: &str, hint: Option<String>) -> Finding {
    let p = problem(&LG602, format!("{what}: not an image (wrong magic bytes)"))
        .fix("replace it with the real image, or remove the sample");
    with_hint(p, hint)
}

/// An array file whose magic bytes name no array format.
pub fn not_an_array() -> Finding {
    problem(
        &LG602,
        "not a .npy, .npz or .safetensors file (wrong magic bytes)",
    )
    .fix("replace it with the real array, or exclude it")
}

/// An array file the array reader found malformed (`message`).
pub fn corrupt_array(message: &str) -> Finding {
    problem(&LG602, format!("corrupt array file: {message}")).fix("regenerate the file")
}

/// A mask cut short; `detail` says where its data ends.
pub fn truncated(detail: &str) -> Finding {
    problem(&LG602, format!("truncated: {detail}"))
        .hint("an interrupted copy or download; Pillow raises 'image file is truncated' when it loads this mask")
        .fix("re-copy or regenerate the file")
}

/// A paired image in `format` that does not end with its end `marker`.
pub fn truncated_image(format: &str, marker: &str) -> Finding {
    problem(
        &LG602,
        format!("truncated {format}: the file does not end with its {marker} marker"),
    )
    .hint("an interrupted copy or download; Pillow raises 'image file is truncated' when it loads the pixels")
    .fix("re-copy or re-download the image")
}

/// A PNG whose first chunk is not `IHDR`.
pub fn png_without_ihdr() -> Finding {
    problem(&LG602, "the PNG does not start with its IHDR header chunk")
}

/// A palette PNG without the `PLTE` chunk the specification requires.
pub fn png_without_plte() -> Finding {
    problem(
        &LG602,
        "palette (indexed) PNG without its PLTE chunk: the file is invalid",
    )
    .hint(
        "the PNG specification requires PLTE for colour type 3; libpng and Pillow reject the file",
    )
    .fix("re-save the mask as a greyscale ('L') PNG, or regenerate it")
}

/// A PNG the decoder refused with `message` (a checksum error is named as damage in transfer).
pub fn corrupt_png(message: &str) -> Finding {
    let p = problem(&LG602, format!("corrupt PNG: {message}"));
    if message.to_ascii_lowercase().contains("crc") {
        p.hint("a chunk's checksum does not match its bytes: the file was damaged in transfer")
            .fix("re-copy or regenerate the file")
    } else {
        p.fix("re-copy or regenerate the file")
    }
}

/// A paired image's TIFF header the decoder refused with `error`.
pub fn corrupt_tiff_header(error: impl Display) -> Finding {
    problem(&LG602, format!("corrupt TIFF: {error}"))
}

/// A TIFF mask the decoder refused with `error`.
pub fn corrupt_tiff(error: impl Display) -> Finding {
    problem(&LG602, format!("corrupt or unsupported TIFF: {error}"))
        .fix("re-save the mask as an uncompressed, LZW or deflate TIFF, or as a PNG")
}

/// A TIFF mask whose samples are of a format no mask holds.
pub fn tiff_sample_format() -> Finding {
    problem(
        &LG602,
        "TIFF sample format not supported for masks (16-bit float?)",
    )
    .fix("re-save the mask with integer samples")
}

/// A paired JPEG whose markers are damaged (`detail` says how).
pub fn corrupt_jpeg(detail: &str) -> Finding {
    problem(&LG602, format!("corrupt JPEG: {detail}")).fix("re-copy or re-download the image")
}

/// A paired WebP whose header does not parse.
pub fn corrupt_webp() -> Finding {
    problem(&LG602, "corrupt WebP header")
}

/// A label table that cannot be parsed (`detail` says where and why).
pub fn corrupt_table(detail: impl Into<String>) -> Finding {
    problem(&LG602, detail).fix("repair or regenerate the table")
}

/// A Parquet table met by a build without the `parquet` feature.
pub fn parquet_not_compiled() -> Finding {
    problem(
        &LG602,
        "Parquet support was not compiled in (build labelguard-scan with the 'parquet' feature)",
    )
}

/// A class-weight file that is an image.
pub fn weights_are_an_image() -> Finding {
    problem(&LG602, "is an image, not a list of class weights")
}

/// A class-weight file with `text` where a number should be.
pub fn weight_not_a_number(text: &str) -> Finding {
    problem(&LG602, format!("'{text}' is not a number: a class-weight file is a list of numbers (JSON, a Python list, text or .npy)"))
}

/// A text annotation file (`what`: `data.yaml`, a COCO JSON, a VOC XML) that its parser
/// refuses; `detail` says where and why.
pub fn corrupt_text(what: &str, detail: &str) -> Finding {
    problem(&LG602, format!("corrupt {what}: {detail}"))
        .hint("an interrupted write or download, or a file edited by hand; the loader raises on it before training starts")
        .fix("regenerate or re-download the file")
}
