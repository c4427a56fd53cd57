//! Adversarial Parquet files, made from a valid one by the damage issue 8 names: a footer cut
//! short, a wrong metadata length, and every integer of the footer (column chunk offsets and
//! sizes, row and value counts) and of the page headers (page sizes, value counts) replaced by
//! sizes that are huge, negative or past the end of the file.
//!
//! Layout (Parquet format spec, `README.md` of apache/parquet-format): `PAR1`, the column
//! chunks (each page a Thrift compact-protocol `PageHeader` then its data), the Thrift
//! `FileMetaData`, its length as a 4-byte little-endian integer, `PAR1`. Thrift's compact
//! protocol writes integers as zigzag LEB128 varints, which is what [`write_varint`] replaces.

use crate::mutate::{write_varint, INTERESTING_VARINT};
use labelguard_formats::fixtures::parquet_labels;

/// The valid file every case starts from: 40 labels with gaps (a dictionary page, a data page
/// with definition levels).
pub fn seed() -> Vec<u8> {
    let labels: Vec<Option<i64>> = (0..40)
        .map(|i| if i % 7 == 3 { None } else { Some(i % 5) })
        .collect();
    parquet_labels(&labels)
}

/// Every case: a name saying what was damaged, and the bytes.
pub fn cases() -> Vec<(String, Vec<u8>)> {
    let good = seed();
    let len = good.len();
    let footer_len =
        u32::from_le_bytes(good[len - 8..len - 4].try_into().expect("4 bytes")) as usize;
    let footer = len - 8 - footer_len;
    let mut out = Vec::new();
    for cut in footer.saturating_sub(16)..len {
        out.push((format!("cut-at-{cut}"), good[..cut].to_vec()));
    }
    for v in [
        0u32,
        1,
        7,
        footer_len as u32 - 1,
        footer_len as u32 + 1,
        (len - 8) as u32,
        len as u32,
        0x7fff_ffff,
        0xffff_ffff,
    ] {
        let mut b = good.clone();
        b[len - 8..len - 4].copy_from_slice(&v.to_le_bytes());
        out.push((format!("metadata-length-{v}"), b));
    }
    for at in 4..len - 8 {
        let region = if at >= footer { "footer" } else { "pages" };
        for v in INTERESTING_VARINT {
            let mut b = good.clone();
            write_varint(&mut b, at, v);
            out.push((format!("{region}-varint-at-{at}-{v:x}"), b));
        }
    }
    out.extend(skipped_lists(&good, footer, footer_len));
    out
}

/// Thrift's compact protocol lets a reader skip a field it does not know; a list of 2^31 - 1
/// booleans (no bytes each, to a skipper) or doubles (8 bytes each, and a reader at the end of
/// the file that returns 0 bytes instead of an error) makes that skip a loop of 2^31
/// iterations: the 20 s and 84 s files of issue 8. Put in the first page header (at byte 4)
/// and at the start of the footer.
fn skipped_lists(good: &[u8], footer: usize, footer_len: usize) -> Vec<(String, Vec<u8>)> {
    const BOOL: u8 = 1;
    const DOUBLE: u8 = 7;
    let mut out = Vec::new();
    for (name, element) in [("bools", BOOL), ("doubles", DOUBLE)] {
        // Field 15 (delta 15 from field 0), type list (9); the list header: size in a varint
        // (0xF0) and the element type; the size 2^31 - 1.
        let field = [0xF9, 0xF0 | element, 0xFF, 0xFF, 0xFF, 0xFF, 0x07];
        let mut b = good[..4].to_vec();
        b.extend_from_slice(&field);
        b.extend_from_slice(&good[4..]);
        out.push((format!("page-header-skips-2pow31-{name}"), b));
        let mut b = good[..footer].to_vec();
        b.extend_from_slice(&field);
        b.extend_from_slice(&good[footer..good.len() - 8]);
        b.extend_from_slice(&((footer_len + field.len()) as u32).to_le_bytes());
        b.extend_from_slice(b"PAR1");
        out.push((format!("footer-skips-2pow31-{name}"), b));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_seed_is_valid_and_the_cases_damage_it() {
        let good = super::seed();
        assert!(good.starts_with(b"PAR1") && good.ends_with(b"PAR1"));
        let cases = super::cases();
        assert!(cases.len() > 1000, "{}", cases.len());
        let changed = cases.iter().filter(|(_, b)| *b != good).count();
        assert!(
            changed * 10 > cases.len() * 9,
            "{changed} of {}",
            cases.len()
        );
    }
}
