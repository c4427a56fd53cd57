//! Tokenized datasets: the `input_ids`, `labels`, `attention_mask`, `token_type_ids` and
//! `position_ids` columns
//! and the images of each row, read a batch of rows at a time from a `datasets` Arrow file
//! ([`super::arrow_ipc`]), Parquet (list columns through the column readers' repetition levels)
//! or JSONL (list values). Every format hands the checks the same [`TokenBatch`]: a column is a
//! flat run of integers and, for list columns, where each row starts; memory is one batch.

use super::arrow_ipc::{self, ArrowType, Field};
use super::token_batch::OwnedBatch;
pub use super::token_batch::{
    Col, ColumnProblem, TokenBatch, TokenError, Values, ATTENTION_MASK, COLUMNS, IMAGE_COLUMNS,
    INPUT_IDS, LABEL, LABELS, NCOLS, POSITION_IDS, TOKEN_TYPE_IDS,
};
use labelguard_core::{DType, TensorView};
use std::borrow::Cow;
use std::path::Path;

/// The formats a token file comes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenFormat {
    Arrow,
    Parquet,
    Jsonl,
}

/// Reads every batch of `path` into `sink`. `rows_before` is the row number of the file's
/// first row (a split saved in several shards counts on). Returns the rows read.
pub fn read_tokens(
    path: &Path,
    format: TokenFormat,
    rows_before: u64,
    sink: &mut dyn FnMut(&TokenBatch<'_>),
) -> Result<u64, TokenError> {
    let (file, len) =
        crate::source::file::open_regular(path).map_err(|f| TokenError::Corrupt(f.message))?;
    match format {
        TokenFormat::Arrow => read_arrow(file, len, rows_before, sink),
        TokenFormat::Jsonl => read_jsonl(file, rows_before, sink),
        #[cfg(feature = "parquet")]
        TokenFormat::Parquet => crate::isolate::isolated(|| {
            super::parquet_lists::read_parquet(file, len, rows_before, sink)
        })
        .map_err(|m| TokenError::Corrupt(format!("the Parquet reader failed: {m}")))?,
        #[cfg(not(feature = "parquet"))]
        TokenFormat::Parquet => Err(TokenError::Corrupt(
            "this build reads no Parquet (the `parquet` feature is off)".into(),
        )),
    }
}

/// Whether a table file holds token data (an `input_ids` column): its first JSON line's keys,
/// its Parquet schema.
pub fn has_input_ids(path: &Path, format: TokenFormat) -> bool {
    match format {
        TokenFormat::Arrow => true,
        TokenFormat::Jsonl => {
            use std::io::{BufRead, Read};
            let Ok((file, _)) = crate::source::file::open_regular(path) else {
                return false;
            };
            let mut line = String::new();
            let mut r = std::io::BufReader::new(file).take(super::line_cap::MAX_LINE);
            loop {
                line.clear();
                match r.read_line(&mut line) {
                    Ok(0) | Err(_) => return false,
                    Ok(_) if line.trim().is_empty() => continue,
                    Ok(_) => break,
                }
            }
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&line)
                .is_ok_and(|o| o.contains_key(COLUMNS[INPUT_IDS]))
        }
        #[cfg(feature = "parquet")]
        TokenFormat::Parquet => super::parquet_lists::has_column(path, COLUMNS[INPUT_IDS]),
        #[cfg(not(feature = "parquet"))]
        TokenFormat::Parquet => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Arrow.

fn read_arrow(
    file: std::fs::File,
    len: u64,
    rows_before: u64,
    sink: &mut dyn FnMut(&TokenBatch<'_>),
) -> Result<u64, TokenError> {
    let mut r = arrow_ipc::open(std::io::BufReader::with_capacity(1 << 16, file), len)?;
    let find = |name: &str| r.fields.iter().find(|f| f.name == name).cloned();
    let fields: [Option<Field>; NCOLS] = COLUMNS.map(find);
    if fields[INPUT_IDS].is_none() {
        return Err(TokenError::not_tokenized(
            r.fields.iter().map(|f| f.name.as_str()),
        ));
    }
    let label = fields[LABELS].is_none().then(|| find(LABEL)).flatten();
    let image = IMAGE_COLUMNS.iter().find_map(|n| find(n));
    let mut row = rows_before;
    while let Some(b) = r.next_batch()? {
        let mut cols: [Option<Col<'_>>; NCOLS] = std::array::from_fn(|_| None);
        for (slot, f) in cols.iter_mut().zip(&fields) {
            if let Some(f) = f {
                *slot = Some(arrow_column(&b, f, b.rows)?);
            }
        }
        let label = label
            .as_ref()
            .map(|f| arrow_column(&b, f, b.rows))
            .transpose()?;
        let images = image
            .as_ref()
            .map(|f| arrow_images(&b, f, b.rows))
            .transpose()?;
        sink(&TokenBatch {
            first_row: row,
            rows: b.rows,
            cols,
            label,
            images,
        });
        row += b.rows as u64;
    }
    Ok(row - rows_before)
}

fn column_problem(f: &Field) -> TokenError {
    let float = matches!(f.ty, ArrowType::Float { .. })
        || f.children
            .iter()
            .any(|c| matches!(c.ty, ArrowType::Float { .. }));
    TokenError::Column(ColumnProblem {
        column: f.name.clone(),
        holds: f.type_name(),
        float,
    })
}

/// The values of an integer field as a tensor over its data buffer.
fn arrow_ints<'a>(
    b: &arrow_ipc::Batch<'a>,
    f: &Field,
    owner: &Field,
) -> Result<Values<'a>, TokenError> {
    let ArrowType::Int { bits, signed } = f.ty else {
        return Err(column_problem(owner));
    };
    if f.dictionary {
        return Err(column_problem(owner));
    }
    let c = b.column(f)?;
    let width = bits as usize / 8;
    let bytes = c.buffers[1];
    let need = c.len.checked_mul(width).filter(|&n| n <= bytes.len());
    let Some(need) = need else {
        return Err(TokenError::Corrupt(format!(
            "column '{}': {} values of {width} bytes do not fit its {}-byte buffer",
            owner.name,
            c.len,
            bytes.len()
        )));
    };
    let bytes = &bytes[..need];
    let dtype = match (bits, signed) {
        (8, true) => DType::I8,
        (8, false) => DType::U8,
        (16, true) => DType::I16,
        (16, false) => DType::U16,
        (32, true) => DType::I32,
        (64, true) => DType::I64,
        (32, false) => {
            return Ok(Values::Owned(
                bytes
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().expect("4")) as i64)
                    .collect(),
            ))
        }
        _ => {
            return Ok(Values::Owned(
                bytes
                    .chunks_exact(8)
                    .map(|c| {
                        u64::from_le_bytes(c.try_into().expect("8")).min(i64::MAX as u64) as i64
                    })
                    .collect(),
            ))
        }
    };
    TensorView::new(dtype, &[c.len], bytes)
        .map(Values::View)
        .map_err(|e| TokenError::Corrupt(format!("column '{}': {e}", owner.name)))
}

/// The row offsets of a list field (`rows + 1` of them), checked to rise within `values`.
fn arrow_offsets(
    b: &arrow_ipc::Batch<'_>,
    f: &Field,
    rows: usize,
    values: usize,
) -> Result<Vec<usize>, TokenError> {
    let c = b.column(f)?;
    let large = matches!(f.ty, ArrowType::List { large: true });
    let width = if large { 8 } else { 4 };
    let bytes = c.buffers[1];
    if c.len != rows || (rows > 0 && bytes.len() < (rows + 1) * width) {
        return Err(TokenError::Corrupt(format!(
            "column '{}': {} rows and {} bytes of offsets for a batch of {rows} rows",
            f.name,
            c.len,
            bytes.len()
        )));
    }
    let mut out = Vec::with_capacity(rows + 1);
    if rows == 0 {
        out.push(0);
        return Ok(out);
    }
    let read = |i: usize| -> i64 {
        if large {
            i64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8"))
        } else {
            i32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4")) as i64
        }
    };
    let base = read(0);
    let mut prev = base;
    for i in 0..=rows {
        let o = read(i);
        if o < prev || o - base > values as i64 {
            return Err(TokenError::Corrupt(format!(
                "column '{}': row offsets that fall or pass the {values} values (offset {o} at row {i})",
                f.name
            )));
        }
        prev = o;
        out.push((o - base) as usize);
    }
    // Rows index the values from the first offset on.
    if base != 0 {
        return Err(TokenError::Corrupt(format!(
            "column '{}': a sliced list (first offset {base}) is not read",
            f.name
        )));
    }
    Ok(out)
}

fn arrow_column<'a>(
    b: &arrow_ipc::Batch<'a>,
    f: &Field,
    rows: usize,
) -> Result<Col<'a>, TokenError> {
    match (&f.ty, f.children.as_slice()) {
        (ArrowType::Int { .. }, _) => {
            let values = arrow_ints(b, f, f)?;
            if values.view().numel() != rows {
                return Err(TokenError::Corrupt(format!(
                    "column '{}' has {} values for {rows} rows",
                    f.name,
                    values.view().numel()
                )));
            }
            Ok(Col {
                values,
                offsets: None,
            })
        }
        (ArrowType::List { .. }, [child]) => {
            let values = arrow_ints(b, child, f)?;
            let n = values.view().numel();
            Ok(Col {
                offsets: Some(arrow_offsets(b, f, rows, n)?),
                values,
            })
        }
        _ => Err(column_problem(f)),
    }
}

/// Images per row: a list's length, or one per non-null row.
fn arrow_images(b: &arrow_ipc::Batch<'_>, f: &Field, rows: usize) -> Result<Vec<u64>, TokenError> {
    let depth = {
        let mut d = 0;
        let mut x = f;
        while let (ArrowType::List { .. } | ArrowType::FixedSizeList(_), [c]) =
            (&x.ty, x.children.as_slice())
        {
            d += 1;
            x = c;
        }
        d
    };
    // `pixel_values` of one image is [C, H, W] (three lists); a fourth is the images.
    let per_image = f.name != "pixel_values" || depth >= 4;
    match (&f.ty, f.children.as_slice()) {
        (ArrowType::List { .. }, [child]) if per_image => {
            let n = b.column(child)?.len;
            let o = arrow_offsets(b, f, rows, n)?;
            Ok(o.windows(2).map(|w| (w[1] - w[0]) as u64).collect())
        }
        _ => {
            let c = b.column(f)?;
            let validity = c.buffers.first().copied().unwrap_or(&[]);
            Ok((0..rows)
                .map(|r| {
                    let valid = c.null_count == 0
                        || validity
                            .get(r / 8)
                            .is_some_and(|byte| byte >> (r % 8) & 1 == 1);
                    valid as u64
                })
                .collect())
        }
    }
}

// ---------------------------------------------------------------------------------------------
// JSONL.

/// Rows of a JSONL file decoded at once.
const JSONL_BATCH: usize = 4096;

fn read_jsonl(
    file: std::fs::File,
    rows_before: u64,
    sink: &mut dyn FnMut(&TokenBatch<'_>),
) -> Result<u64, TokenError> {
    use std::io::BufRead;
    use std::io::Read;
    let mut reader = std::io::BufReader::new(file);
    let max = super::line_cap::MAX_LINE;
    let mut line = String::new();
    let mut batch = OwnedBatch::default();
    batch.clear();
    let mut first = true;
    let mut row = rows_before;
    let mut line_no = 0u64;
    loop {
        line.clear();
        let n = reader
            .by_ref()
            .take(max)
            .read_line(&mut line)
            .map_err(|e| TokenError::Corrupt(format!("line {}: {e}", line_no + 1)))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if n as u64 == max && !line.ends_with('\n') {
            return Err(TokenError::Corrupt(format!(
                "line {line_no} is longer than {max} bytes"
            )));
        }
        if line.trim().is_empty() {
            continue;
        }
        let obj: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&line).map_err(|e| {
                TokenError::Corrupt(format!("line {line_no} is not a JSON object: {e}"))
            })?;
        if first {
            first = false;
            if !obj.contains_key(COLUMNS[INPUT_IDS]) {
                return Err(TokenError::not_tokenized(obj.keys().map(String::as_str)));
            }
            for (i, name) in COLUMNS.iter().enumerate() {
                if let Some(v) = obj.get(*name) {
                    batch.present[i] = true;
                    batch.list[i] = v.is_array();
                }
            }
            if !batch.present[LABELS] && obj.get(LABEL).is_some() {
                batch.label = Some(Vec::new());
            }
            if IMAGE_COLUMNS.iter().any(|c| obj.contains_key(*c)) {
                batch.images = Some(Vec::new());
            }
        }
        for (i, name) in COLUMNS.iter().enumerate() {
            if !batch.present[i] {
                continue;
            }
            let v = obj.get(*name).unwrap_or(&serde_json::Value::Null);
            json_cell(v, name, batch.list[i], &mut batch.values[i], row)?;
            let end = batch.values[i].len();
            batch.offsets[i].push(end);
        }
        if let Some(l) = &mut batch.label {
            let v = obj.get(LABEL).unwrap_or(&serde_json::Value::Null);
            json_cell(v, LABEL, false, l, row)?;
        }
        if let Some(images) = &mut batch.images {
            let v = IMAGE_COLUMNS.iter().find_map(|c| obj.get(*c));
            images.push(match v {
                None | Some(serde_json::Value::Null) => 0,
                Some(serde_json::Value::Array(a)) if v != obj.get("pixel_values") => a.len() as u64,
                Some(_) => 1,
            });
        }
        batch.rows += 1;
        row += 1;
        if batch.rows == JSONL_BATCH {
            batch.emit(row - batch.rows as u64, sink);
            batch.clear();
        }
    }
    if first {
        return Err(TokenError::Corrupt("no rows".into()));
    }
    if batch.rows > 0 {
        batch.emit(row - batch.rows as u64, sink);
    }
    Ok(row - rows_before)
}

/// Appends one JSON cell's integers; a float, a string or a nested list is a column problem.
fn json_cell(
    v: &serde_json::Value,
    name: &str,
    list: bool,
    out: &mut Vec<i64>,
    row: u64,
) -> Result<(), TokenError> {
    let bad = |what: Cow<'_, str>, float: bool| {
        TokenError::Column(ColumnProblem {
            column: name.to_string(),
            holds: format!("{what} at row {row}"),
            float,
        })
    };
    let one = |x: &serde_json::Value, out: &mut Vec<i64>| match x.as_i64() {
        Some(i) => {
            out.push(i);
            Ok(())
        }
        None if x.is_f64() || x.is_u64() => {
            Err(bad(Cow::Owned(format!("the number {x}")), x.is_f64()))
        }
        None => Err(bad(Cow::Borrowed(kind_of(x)), false)),
    };
    match (v, list) {
        (serde_json::Value::Array(a), true) => a.iter().try_for_each(|x| one(x, out)),
        (serde_json::Value::Null, true) => Ok(()),
        (x, true) => Err(bad(
            Cow::Owned(format!("{} where the other rows hold a list", kind_of(x))),
            false,
        )),
        (serde_json::Value::Array(_), false) => Err(bad(
            Cow::Borrowed("a list where the other rows hold one number"),
            false,
        )),
        (x, false) => one(x, out),
    }
}

fn kind_of(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a nested list",
        serde_json::Value::Object(_) => "an object",
    }
}
