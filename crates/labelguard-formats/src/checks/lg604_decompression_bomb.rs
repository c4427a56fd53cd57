//! LG604 decompression-bomb: a file whose header claims more pixels (or decoded bytes, or
//! elements) than the limit, refused before anything is allocated; and the warning for a table
//! with more rows than `--max-rows`. The readers ([`crate::read`]) and the analysis of arrays
//! and tables (`labelguard_scan::analyze`) compare the claims with the limits; every LG604 finding is
//! built here.
//! Documentation: `labelguard_core::rules::lg604_decompression_bomb`.

use crate::problem::problem;
use labelguard_core::rules::LG604;
use labelguard_core::{Finding, Severity, Verdict};

/// An image whose `format` header claims `width x height (x frames) = pixels` pixels, more
/// than `max_pixels`.
pub fn too_many_pixels(
    format: &str,
    (width, height, frames): (u64, u64, u64),
    pixels: u128,
    max_pixels: u64,
) -> Finding {
    problem(
        &LG604,
        format!(
            "the {format} header claims {width}x{height}{} = {pixels} pixels, more than the limit of {max_pixels}; not decoded",
            if frames > 1 { format!("x{frames}") } else { String::new() }
        ),
    )
    .hint("a decompression bomb, or a mosaic far larger than any training mask; decoding it would allocate that many bytes or more")
    .fix("remove the file if it is not a real mask; otherwise tile it, or raise the limit with --max-pixels")
}

/// An image whose `format` header claims `width x height` pixels of `samples` samples of
/// `bits` bits: `bytes` decoded bytes, more than `max_bytes`.
pub fn too_many_decoded_bytes(
    format: &str,
    (width, height): (u64, u64),
    (samples, bits): (u64, u64),
    bytes: u128,
    max_bytes: u64,
) -> Finding {
    problem(
        &LG604,
        format!(
            "the {format} header claims {width}x{height} with {samples} {bits}-bit sample{} per pixel = {bytes} bytes decoded, more than the limit of {max_bytes} bytes (--max-pixels, one byte per pixel); not decoded",
            if samples == 1 { "" } else { "s" }
        ),
    )
    .hint("a decompression bomb, or a mask far larger than any training mask; a mask needs one 8-bit channel of class ids")
    .fix("remove the file if it is not a real mask; re-save it as one 8-bit channel ('L' or 'P'); or raise the limit with --max-pixels")
}

/// A mask (`format`: `PNG`, `TIFF`) whose decoder stopped at its memory limits.
pub fn decoder_limits(format: &str) -> Finding {
    problem(
        &LG604,
        format!("the {format} needs more memory than the limits allow; not decoded"),
    )
    .fix("raise --max-pixels if this is a real mask")
}

/// A PNG whose decoded size does not fit in the address space.
pub fn png_size_overflow() -> Finding {
    problem(
        &LG604,
        "the PNG's decoded size does not fit in memory; not decoded",
    )
}

/// An array file the array reader refused as too large (`message` says what it claims).
pub fn array_too_large(message: &str) -> Finding {
    problem(&LG604, format!("{message}; not read"))
        .fix("raise --max-pixels if this is a real label array")
}

/// The array `name` with `numel` elements, more than `max_pixels`.
pub fn too_many_elements(name: &str, numel: u64, max_pixels: u64) -> Finding {
    problem(
        &LG604,
        format!("{name} has {numel} elements, more than the limit of {max_pixels}; not read"),
    )
    .fix("raise --max-pixels if this is a real label array")
}

/// A table with more than `max_rows` rows: only the first were checked (a warning).
pub fn rows_not_checked(max_rows: u64) -> Finding {
    Finding::new(
        &LG604,
        Verdict::Ok,
        format!("more than {max_rows} rows: only the first {max_rows} were checked"),
    )
    .severity(Severity::Warning)
    .fix("raise --max-rows to check the whole table")
}
