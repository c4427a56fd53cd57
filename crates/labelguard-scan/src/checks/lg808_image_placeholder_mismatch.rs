//! LG808 image-placeholder-mismatch: image placeholder tokens in a row that disagree with the
//! images the row carries.
//! Documentation: `labelguard_core::rules::lg808_image_placeholder_mismatch`.

use super::token_rows::Col;
use super::token_rows::{each_row, Tally};
use labelguard_core::rules::LG808;
use labelguard_core::{Finding, Verdict};

/// Adds the rows whose count of `image_token` in `ids` is neither their image count nor, when
/// `per_image` is known, image count × `per_image`. The value recorded is the count.
pub fn scan(
    ids: &Col<'_>,
    images: &[u64],
    first_row: u64,
    image_token: i64,
    per_image: Option<u64>,
    t: &mut Tally,
) {
    let view = ids.values.view();
    each_row(ids, |row, start, end| {
        let found = (start..end)
            .filter(|&i| view.read_i64(i) == image_token)
            .count() as u64;
        let n = images.get(row).copied().unwrap_or(0);
        let ok = found == n || per_image.is_some_and(|k| found == n.saturating_mul(k));
        if !ok {
            t.add("input_ids", first_row + row as u64, None, found as i64);
        }
    });
}

pub fn finding(t: &Tally, image_token: i64, per_image: Option<u64>, split: &str) -> Finding {
    let expected = match per_image {
        Some(k) => format!("one per image, or {k} per image once expanded"),
        None => "one per image".to_string(),
    };
    let message = format!(
        "{} {} a number of image placeholders (token {image_token}) that disagrees with {} images ({expected}; {})",
        labelguard_core::finding::count(t.rows, "row"),
        if t.rows == 1 { "has" } else { "have" },
        if t.rows == 1 { "its" } else { "their" },
        t.rows_text(split),
    );
    let mut f = t.evidence(
        Finding::new(&LG808, Verdict::Error, message)
            .hint("truncation cut through the placeholders, or the text and the images were paired wrongly: the model raises 'Image features and image tokens do not match'")
            .fix("build input_ids with the model's processor (processor(text=..., images=...)), and never truncate through the image placeholders (drop rows that are too long)"),
    );
    f.values.clear();
    f
}
