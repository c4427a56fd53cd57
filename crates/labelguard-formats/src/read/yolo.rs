//! YOLO label files: one object per line, whitespace-separated numbers. A box is
//! `class cx cy w h` (5 columns); a polygon is `class x1 y1 x2 y2 ...` (1 + an even number of
//! at least 6 coordinates), all coordinates normalised to `[0, 1]`.
//!
//! The parser reads a line's numbers into a buffer the caller reuses: nothing is allocated per
//! line. What the numbers mean (a box, a polygon, a malformed line) is [`shape`]'s answer;
//! the checks are the analysis' (`labelguard_scan::analyze::detection::yolo`).

/// The largest label file read: a real one is a few KiB; 64 MiB is over a million objects.
pub const MAX_LABEL_BYTES: u64 = 64 << 20;

/// What one line holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// Nothing but whitespace: skipped, as ultralytics skips empty lines.
    Blank,
    /// Every token is a number; they are in the values buffer.
    Numbers,
    /// Token `column` (0-based) is not a number.
    NotANumber { column: usize },
}

/// What a line of numbers is, by its column count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `class cx cy w h`.
    Box,
    /// `class x1 y1 ... xn yn`, `n >= 3` points.
    Polygon { points: usize },
    /// Any other count: 1-4 columns, 6 (a box with a confidence column, as predictions saved
    /// with `save_conf`), or an odd number of coordinates.
    Malformed,
}

/// The shape of a line of `columns` numbers, as ultralytics reads it: 5 columns are a box,
/// `1 + 2n` columns with `n >= 3` a polygon. Ultralytics' `verify_image_label` refuses
/// 6 columns (`labels require 5 columns, 6 columns detected`), so `class cx cy w h conf` is
/// malformed, and 7 columns are a polygon of three points.
pub fn shape(columns: usize) -> Shape {
    match columns {
        5 => Shape::Box,
        c if c >= 7 && (c - 1) % 2 == 0 => Shape::Polygon {
            points: (c - 1) / 2,
        },
        _ => Shape::Malformed,
    }
}

/// The lines of `bytes` with their 1-based numbers, split at `\n` (a trailing `\r` belongs to
/// the line's whitespace).
pub fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let trimmed = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let empty = bytes.is_empty();
    trimmed
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(move |_| !empty)
        .map(|(i, l)| (i + 1, l))
}

/// Reads the numbers of `line` into `values` (cleared first).
pub fn parse_line(line: &[u8], values: &mut Vec<f64>) -> Line {
    values.clear();
    for (column, token) in line
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
        .enumerate()
    {
        match number(token) {
            Some(v) => values.push(v),
            None => return Line::NotANumber { column },
        }
    }
    if values.is_empty() {
        Line::Blank
    } else {
        Line::Numbers
    }
}

/// A token as Python's `float()` reads it (`1`, `-0.5`, `1e-3`, `nan`, `inf`); `None` for
/// anything else.
fn number(token: &[u8]) -> Option<f64> {
    // The numbers a label holds are short; a long token is not one (and is not parsed).
    if token.len() > 64 {
        return None;
    }
    std::str::from_utf8(token).ok()?.parse::<f64>().ok()
}

/// The class id a number stands for: an integer, or a float with no fraction (`2.0`, as
/// ultralytics reads its labels as floats); `None` for `1.5`, NaN, infinities.
pub fn class_id(v: f64) -> Option<i64> {
    (v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e18).then_some(v as i64)
}

/// Whether `bytes` look binary (a NUL in their first 8 KiB): an image or an archive saved
/// under a label's name.
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8 << 10)].contains(&0)
}

/// A hash of a line's numbers as ultralytics compares its rows: the `float32` values' bits
/// (so `0.5` and `0.50` are the same object, and `-0.0` is `0.0`).
pub fn row_hash(values: &[f64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        let f = *v as f32;
        let bits = if f == 0.0 { 0 } else { f.to_bits() };
        for b in bits.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h ^ values.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> (Line, Vec<f64>) {
        let mut v = Vec::new();
        let l = parse_line(s.as_bytes(), &mut v);
        (l, v)
    }

    #[test]
    fn numbers_whitespace_and_garbage() {
        assert_eq!(
            parse("0 0.5 0.5 0.25 0.125"),
            (Line::Numbers, vec![0.0, 0.5, 0.5, 0.25, 0.125])
        );
        assert_eq!(
            parse("  1\t0.5  0.5 1e-1 +2.5\r"),
            (Line::Numbers, vec![1.0, 0.5, 0.5, 0.1, 2.5])
        );
        assert_eq!(parse(" \t\r").0, Line::Blank);
        assert_eq!(parse("").0, Line::Blank);
        assert_eq!(parse("0 0.5 x 0.1 0.1").0, Line::NotANumber { column: 2 });
        assert_eq!(
            parse("cat 0.5 0.5 0.1 0.1").0,
            Line::NotANumber { column: 0 }
        );
        assert_eq!(parse("0 0,5 0.5 0.1 0.1").0, Line::NotANumber { column: 1 });
        assert_eq!(parse("0 \u{e9} 0.5").0, Line::NotANumber { column: 1 });
        let (l, v) = parse("0 nan inf -inf 0.1");
        assert_eq!(l, Line::Numbers);
        assert!(v[1].is_nan() && v[2].is_infinite() && v[3] < 0.0);
        let long = format!("0 {}", "1".repeat(100));
        assert_eq!(parse(&long).0, Line::NotANumber { column: 1 });
    }

    #[test]
    fn shapes_by_column_count() {
        assert_eq!(shape(5), Shape::Box);
        assert_eq!(shape(7), Shape::Polygon { points: 3 });
        assert_eq!(shape(9), Shape::Polygon { points: 4 });
        for c in [0, 1, 2, 3, 4, 6, 8, 10] {
            assert_eq!(shape(c), Shape::Malformed, "{c}");
        }
    }

    #[test]
    fn lines_are_numbered_from_one() {
        let got: Vec<(usize, &[u8])> = lines(b"a\nb\r\n\nc").collect();
        assert_eq!(
            got,
            vec![
                (1, &b"a"[..]),
                (2, &b"b\r"[..]),
                (3, &b""[..]),
                (4, &b"c"[..])
            ]
        );
        assert_eq!(lines(b"a\n").count(), 1);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"\n").count(), 1);
    }

    #[test]
    fn class_ids_are_integers() {
        assert_eq!(class_id(3.0), Some(3));
        assert_eq!(class_id(-1.0), Some(-1));
        assert_eq!(class_id(1.5), None);
        assert_eq!(class_id(f64::NAN), None);
        assert_eq!(class_id(f64::INFINITY), None);
        assert_eq!(class_id(1e300), None);
    }

    #[test]
    fn rows_compare_as_float32() {
        assert_eq!(row_hash(&[0.0, 0.5]), row_hash(&[-0.0, 0.500_000_001]));
        assert_ne!(row_hash(&[0.0, 0.5]), row_hash(&[0.0, 0.25]));
        assert_ne!(row_hash(&[0.0]), row_hash(&[0.0, 0.0]));
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n\0\0"));
        assert!(!looks_binary(b"0 0.5 0.5 0.1 0.1\n"));
    }
}
