//! What a file's first bytes say it is: the PNG signature and end chunk, and a name for the
//! formats a mask must not be (JPEG, an LFS pointer, an HTML page, ...).

use crate::checks::lg602_corrupt_file;
use labelguard_core::Finding;

/// The 8 bytes every PNG starts with.
pub const PNG_MAGIC: &[u8; 8] = b"\x89PNG\r\n\x1a\n";
/// The last 8 bytes of every complete PNG: the `IEND` type and its (constant) CRC.
pub const PNG_END: &[u8; 8] = b"IEND\xaeB`\x82";

/// What a file's first bytes say it is, for the message of a file that is not a mask.
pub fn describe_magic(bytes: &[u8]) -> (String, Option<String>) {
    let start = &bytes[..bytes.len().min(64)];
    let text = String::from_utf8_lossy(start).to_ascii_lowercase();
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        (
            "is a JPEG".into(),
            Some("JPEG is lossy: the class ids of a JPEG mask are smeared at every border; masks must be PNG or TIFF".into()),
        )
    } else if text.starts_with("version https://git-lfs") {
        (
            "is a Git LFS pointer, not the file itself".into(),
            Some("the repository was cloned without the LFS objects: run `git lfs pull`".into()),
        )
    } else if text.contains("<html") || text.contains("<!doctype") || text.starts_with("<?xml") {
        (
            "is an HTML or XML document, not an image".into(),
            Some("a failed download saved under the mask's name?".into()),
        )
    } else if bytes.starts_with(b"GIF8")
        || bytes.starts_with(b"BM")
        || (bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP"))
    {
        (
            "is a GIF, BMP or WebP image, which labelguard does not read as a mask".into(),
            Some("convert it to a single-channel PNG".into()),
        )
    } else if bytes.starts_with(&[0x00, 0x05, 0x16, 0x07]) {
        (
            "is a macOS AppleDouble (._*) resource fork, not an image".into(),
            Some("copied from a Mac: delete the ._* files (dot_clean, or find . -name '._*' -delete)".into()),
        )
    } else if let Some(f) = crate::formats::by_magic(bytes) {
        // Another format labelguard knows (an array, a table, a PNG or TIFF under another
        // name is read by its magic before this): named by the format table.
        (format!("is a {} file", f.name), None)
    } else {
        let hex: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
        (
            format!("has an unknown format (first bytes {})", hex.join(" ")),
            None,
        )
    }
}

/// LG602 for a file whose magic bytes name no format labelguard reads as a mask.
pub fn not_a_mask(bytes: &[u8]) -> Finding {
    let (what, hint) = describe_magic(bytes);
    lg602_corrupt_file::not_a_mask(&what, hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_format_is_named_and_an_unknown_one_shows_its_bytes() {
        assert_eq!(describe_magic(b"PAR1\x15\x04").0, "is a Parquet file");
        assert_eq!(describe_magic(b"P5\n4 3\n255\n").0, "is a Netpbm file");
        assert!(describe_magic(b"\x01\x02\x03")
            .0
            .contains("first bytes 01 02 03"));
    }
}
