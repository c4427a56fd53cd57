//! A column of an Arrow record batch ([`super::arrow_ipc`]) as one JSON value per row, as
//! `datasets` hands a row to Python: lists as arrays, structs as objects, strings, numbers,
//! booleans, and `null` where the validity bitmap says so. It is for the nested columns of
//! chat datasets (`messages`: `list<struct<role: string, content: string>>`), read a batch at
//! a time; the integer columns of token data are read as tensors in [`super::tokens`].
//!
//! Buffers per type (Arrow columnar spec, "Physical Memory Layout"): validity then values for
//! fixed-width types, validity, offsets and data for strings, validity and offsets for lists,
//! validity alone for structs and fixed-size lists. Every offset is checked against its buffer:
//! a corrupt column is an [`IpcError`], never a panic.

use super::arrow_ipc::{ArrowType, Batch, ColumnData, Field, IpcError};
use serde_json::Value;

/// The most values of one column in one record batch (`datasets` writes 1000 rows a batch):
/// a null column has no buffer to bound its claimed length.
const MAX_VALUES: usize = 1 << 24;

fn bad<T>(f: &Field, m: impl std::fmt::Display) -> Result<T, IpcError> {
    Err(IpcError(format!("column '{}': {m}", f.name)))
}

/// The values of column `f` of batch `b`, one per slot of the column.
pub fn column_values(b: &Batch<'_>, f: &Field) -> Result<Vec<Value>, IpcError> {
    if f.dictionary {
        return bad(f, "a dictionary-encoded column is not read here");
    }
    let c = b.column(f)?;
    if c.len > MAX_VALUES {
        return bad(f, format!("{} values in one record batch", c.len));
    }
    let valid = validity(f, &c)?;
    let mut out = match (&f.ty, f.children.as_slice()) {
        (ArrowType::Null, _) => vec![Value::Null; c.len],
        (ArrowType::Int { bits, signed }, _) => ints(f, &c, *bits, *signed)?,
        (
            ArrowType::Float {
                bits: bits @ (32 | 64),
            },
            _,
        ) => floats(f, &c, *bits)?,
        (ArrowType::Bool, _) => (0..c.len)
            .map(|i| bit(f, c.buffers[1], i).map(Value::Bool))
            .collect::<Result<_, _>>()?,
        (ArrowType::Bytes { large, text: true }, _) => {
            let offsets = offsets(f, c.buffers[1], c.len, *large, c.buffers[2].len())?;
            offsets
                .windows(2)
                .map(|w| Value::from(String::from_utf8_lossy(&c.buffers[2][w[0]..w[1]])))
                .collect()
        }
        (ArrowType::List { large }, [child]) => {
            let items = column_values(b, child)?;
            let offsets = offsets(f, c.buffers[1], c.len, *large, items.len())?;
            offsets
                .windows(2)
                .map(|w| Value::Array(items[w[0]..w[1]].to_vec()))
                .collect()
        }
        (ArrowType::FixedSizeList(n), [child]) => {
            let items = column_values(b, child)?;
            let n = usize::try_from(*n).unwrap_or(0).max(1);
            if items.len() < c.len.saturating_mul(n) {
                return bad(
                    f,
                    format!("{} values for {} lists of {n}", items.len(), c.len),
                );
            }
            items
                .chunks(n)
                .take(c.len)
                .map(|x| Value::Array(x.to_vec()))
                .collect()
        }
        (ArrowType::Struct, children) => {
            let cols = children
                .iter()
                .map(|ch| column_values(b, ch))
                .collect::<Result<Vec<_>, _>>()?;
            if let Some(short) = cols.iter().position(|v| v.len() < c.len) {
                return bad(
                    f,
                    format!(
                        "its field '{}' is shorter than the column",
                        children[short].name
                    ),
                );
            }
            (0..c.len)
                .map(|i| {
                    Value::Object(
                        children
                            .iter()
                            .zip(&cols)
                            .map(|(ch, v)| (ch.name.clone(), v[i].clone()))
                            .collect(),
                    )
                })
                .collect()
        }
        _ => return bad(f, format!("type {} is not read here", f.type_name())),
    };
    if let Some(valid) = valid {
        for (i, v) in out.iter_mut().enumerate() {
            if !valid(i)? {
                *v = Value::Null;
            }
        }
    }
    Ok(out)
}

/// Whether slot `i` is valid, when the column has nulls.
type Valid<'a> = Box<dyn Fn(usize) -> Result<bool, IpcError> + 'a>;

fn validity<'a>(f: &'a Field, c: &ColumnData<'a>) -> Result<Option<Valid<'a>>, IpcError> {
    if c.null_count == 0 || matches!(f.ty, ArrowType::Null) {
        return Ok(None);
    }
    let bits = c.buffers[0];
    Ok(Some(Box::new(move |i| bit(f, bits, i))))
}

fn bit(f: &Field, bits: &[u8], i: usize) -> Result<bool, IpcError> {
    match bits.get(i / 8) {
        Some(byte) => Ok(byte >> (i % 8) & 1 == 1),
        None => bad(f, format!("a bitmap of {} bytes for slot {i}", bits.len())),
    }
}

/// `len + 1` offsets, each checked to rise and to stay within `values`.
fn offsets(
    f: &Field,
    buf: &[u8],
    len: usize,
    large: bool,
    values: usize,
) -> Result<Vec<usize>, IpcError> {
    let width = if large { 8 } else { 4 };
    if len == 0 {
        return Ok(vec![0]);
    }
    if len
        .checked_add(1)
        .and_then(|n| n.checked_mul(width))
        .is_none_or(|need| buf.len() < need)
    {
        return bad(
            f,
            format!("{} bytes of offsets for {len} values", buf.len()),
        );
    }
    let mut out = Vec::with_capacity(len + 1);
    for chunk in buf.chunks_exact(width).take(len + 1) {
        let o = if large {
            i64::from_le_bytes(chunk.try_into().expect("8"))
        } else {
            i64::from(i32::from_le_bytes(chunk.try_into().expect("4")))
        };
        let prev = out.last().copied().unwrap_or(0);
        match usize::try_from(o) {
            Ok(o) if o <= values && o >= prev => out.push(o),
            _ => return bad(f, format!("an offset {o} outside 0..{values} or falling")),
        }
    }
    Ok(out)
}

/// The fixed-width values of a column, `width` bytes each, decoded by `decode`.
fn fixed(
    f: &Field,
    c: &ColumnData<'_>,
    width: usize,
    decode: impl Fn(&[u8]) -> Value,
) -> Result<Vec<Value>, IpcError> {
    let data = c.buffers[1];
    if data.len() < c.len.saturating_mul(width) {
        return bad(f, format!("{} bytes for {} values", data.len(), c.len));
    }
    Ok(data.chunks_exact(width).take(c.len).map(decode).collect())
}

fn ints(f: &Field, c: &ColumnData<'_>, bits: u8, signed: bool) -> Result<Vec<Value>, IpcError> {
    let width = usize::from(bits / 8).clamp(1, 8);
    fixed(f, c, width, |x| {
        let mut le = [0u8; 8];
        le[..width].copy_from_slice(x);
        let raw = u64::from_le_bytes(le);
        if signed {
            let shift = 64 - 8 * width as u32;
            Value::from(((raw << shift) as i64) >> shift)
        } else {
            Value::from(raw)
        }
    })
}

fn floats(f: &Field, c: &ColumnData<'_>, bits: u8) -> Result<Vec<Value>, IpcError> {
    fixed(f, c, usize::from(bits / 8), |x| {
        let v = match x.try_into() {
            Ok(b4) => f64::from(f32::from_le_bytes(b4)),
            Err(_) => f64::from_le_bytes(x.try_into().expect("8")),
        };
        serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
    })
}
