//! The token columns of a Parquet file (`Dataset.to_parquet`): `list<int>` columns through the
//! column readers' repetition and definition levels, a batch of rows of every column at a time
//! (all columns advance together, so memory is one batch, not one row group). The levels follow
//! the Dremel encoding (parquet-format `README.md`, "Nested Encoding"): a repetition level of 0
//! starts a row; a value is present when its definition level is the column's maximum.

use super::token_batch::{
    ColumnProblem, OwnedBatch, TokenBatch, TokenError, COLUMNS, IMAGE_COLUMNS, INPUT_IDS, LABEL,
    LABELS, NCOLS,
};
use parquet::basic::{ConvertedType, Repetition};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::DataType;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};
use std::path::Path;

/// Rows read from every column at once.
const BATCH: usize = 1024;

fn corrupt(e: impl std::fmt::Display) -> TokenError {
    TokenError::Corrupt(format!("corrupt Parquet file: {e}"))
}

fn open(
    file: std::fs::File,
    len: u64,
) -> Result<SerializedFileReader<super::parquet_source::ParquetSource>, TokenError> {
    super::parquet_source::ParquetSource::open(file, len)
        .and_then(SerializedFileReader::new)
        .map_err(corrupt)
}

/// Whether the file's schema has a top-level column `name`.
pub fn has_column(path: &Path, name: &str) -> bool {
    let Ok((file, len)) = crate::source::file::open_regular(path) else {
        return false;
    };
    crate::isolate::isolated(|| {
        open(file, len).is_ok_and(|r| {
            r.metadata()
                .file_metadata()
                .schema()
                .get_fields()
                .iter()
                .any(|f| f.name() == name)
        })
    })
    .unwrap_or(false)
}

/// How a leaf is read into a batch.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    /// One of [`COLUMNS`], or the scalar `label` (index [`NCOLS`]).
    Ints(usize),
    /// The images of each row: with `per_element`, the length of the top list; else one for a
    /// row whose top-level value is not null.
    Images { per_element: bool },
}

struct Leaf {
    index: usize,
    role: Role,
    list: bool,
    max_def: i16,
    /// The definition level at which the top-level value is present, and at which an element of
    /// the first repeated level is.
    top_def: i16,
    elem_def: i16,
    convert: fn(i64) -> i64,
}

/// The leaf of top-level column `name` that the batch reads, with its levels, or `None` when
/// there is no such column.
fn leaf(schema: &SchemaDescriptor, name: &str, role: Role) -> Result<Option<Leaf>, TokenError> {
    let Some(index) =
        (0..schema.num_columns()).find(|&i| schema.column(i).path().parts()[0] == name)
    else {
        return Ok(None);
    };
    let c = schema.column(index);
    let (top_def, elem_def) = levels(schema, &c);
    let problem = |float: bool| {
        TokenError::Column(ColumnProblem {
            column: name.to_string(),
            holds: format!(
                "{}{:?} values",
                if c.max_rep_level() > 0 {
                    "lists of "
                } else {
                    ""
                },
                c.physical_type()
            )
            .to_lowercase(),
            float,
        })
    };
    if let Role::Ints(_) = role {
        use parquet::basic::Type as P;
        match c.physical_type() {
            P::INT32 | P::INT64 => {}
            P::FLOAT | P::DOUBLE => return Err(problem(true)),
            _ => return Err(problem(false)),
        }
        if c.max_rep_level() > 1
            || (schema.num_columns() > index + 1
                && schema.column(index + 1).path().parts()[0] == name)
        {
            return Err(TokenError::Column(ColumnProblem {
                column: name.to_string(),
                holds: "nested lists or a struct".into(),
                float: false,
            }));
        }
    }
    let convert: fn(i64) -> i64 = match c.converted_type() {
        ConvertedType::UINT_8 => |v| v as u8 as i64,
        ConvertedType::UINT_16 => |v| v as u16 as i64,
        ConvertedType::UINT_32 => |v| v as u32 as i64,
        ConvertedType::UINT_64 => |v| (v as u64).min(i64::MAX as u64) as i64,
        ConvertedType::INT_8 => |v| v as i8 as i64,
        ConvertedType::INT_16 => |v| v as i16 as i64,
        _ => |v| v,
    };
    Ok(Some(Leaf {
        index,
        role,
        list: c.max_rep_level() > 0,
        max_def: c.max_def_level(),
        top_def,
        elem_def,
        convert,
    }))
}

/// The definition levels of a column's top-level node and of its first repeated node.
fn levels(schema: &SchemaDescriptor, c: &ColumnDescriptor) -> (i16, i16) {
    let mut node = schema.root_schema();
    let mut def = 0i16;
    let mut top = None;
    for part in c.path().parts() {
        let Some(next) = node.get_fields().iter().find(|f| f.name() == part) else {
            break;
        };
        node = next;
        let rep = next.get_basic_info().repetition();
        if rep != Repetition::REQUIRED {
            def += 1;
        }
        top.get_or_insert(def);
        if rep == Repetition::REPEATED {
            return (top.unwrap_or(0), def);
        }
    }
    (top.unwrap_or(0), def)
}

/// Levels and integer values of one read.
#[derive(Default)]
struct Read {
    defs: Vec<i16>,
    reps: Vec<i16>,
    ints: Vec<i64>,
}

fn read_some<T: DataType>(
    r: &mut ColumnReaderImpl<T>,
    n: usize,
    out: &mut Read,
    to_i64: impl Fn(&T::T) -> i64,
) -> parquet::errors::Result<(usize, usize)> {
    let mut values = Vec::new();
    out.defs.clear();
    out.reps.clear();
    let (records, _, levels) =
        r.read_records(n, Some(&mut out.defs), Some(&mut out.reps), &mut values)?;
    out.ints.clear();
    out.ints.extend(values.iter().map(to_i64));
    Ok((records, levels))
}

fn read_any(
    r: &mut ColumnReader,
    n: usize,
    out: &mut Read,
) -> parquet::errors::Result<(usize, usize)> {
    match r {
        ColumnReader::Int32ColumnReader(r) => read_some(r, n, out, |&v| v as i64),
        ColumnReader::Int64ColumnReader(r) => read_some(r, n, out, |&v| v),
        ColumnReader::BoolColumnReader(r) => read_some(r, n, out, |_| 0),
        ColumnReader::Int96ColumnReader(r) => read_some(r, n, out, |_| 0),
        ColumnReader::FloatColumnReader(r) => read_some(r, n, out, |_| 0),
        ColumnReader::DoubleColumnReader(r) => read_some(r, n, out, |_| 0),
        ColumnReader::ByteArrayColumnReader(r) => read_some(r, n, out, |_| 0),
        ColumnReader::FixedLenByteArrayColumnReader(r) => read_some(r, n, out, |_| 0),
    }
}

/// Puts one read of `leaf` into the batch.
fn fill(leaf: &Leaf, read: &Read, levels: usize, b: &mut OwnedBatch) -> Result<usize, TokenError> {
    let defs = &read.defs[..levels.min(read.defs.len())];
    let reps = &read.reps[..levels.min(read.reps.len())];
    let has_defs = leaf.max_def > 0 && defs.len() == levels;
    let def = |i: usize| if has_defs { defs[i] } else { leaf.max_def };
    let starts = |i: usize| !leaf.list || reps.get(i).is_none_or(|&r| r == 0);
    let mut values = read.ints.iter();
    let mut rows = 0;
    match leaf.role {
        Role::Ints(col) => {
            let (vals, mut offsets) = if col < NCOLS {
                (&mut b.values[col], Some(&mut b.offsets[col]))
            } else {
                (b.label.get_or_insert_with(Vec::new), None)
            };
            for i in 0..levels {
                rows += starts(i) as usize;
                let d = def(i);
                if d == leaf.max_def {
                    let v = values
                        .next()
                        .ok_or_else(|| corrupt("fewer values than levels"))?;
                    vals.push((leaf.convert)(*v));
                } else if !leaf.list || d >= leaf.elem_def {
                    return Err(TokenError::Column(ColumnProblem {
                        column: if col < NCOLS { COLUMNS[col] } else { LABEL }.to_string(),
                        holds: "null values".into(),
                        float: false,
                    }));
                }
                // A row ends where the next starts: its end is the values so far.
                if leaf.list && (i + 1 == levels || starts(i + 1)) {
                    if let Some(o) = offsets.as_mut() {
                        o.push(vals.len());
                    }
                }
            }
        }
        Role::Images { per_element } => {
            let images = b.images.get_or_insert_with(Vec::new);
            for i in 0..levels {
                let d = def(i);
                if starts(i) {
                    rows += 1;
                    images.push(0);
                    if !per_element && d >= leaf.top_def {
                        *images.last_mut().expect("pushed") = 1;
                    }
                }
                if per_element && d >= leaf.elem_def && reps.get(i).is_none_or(|&r| r <= 1) {
                    *images.last_mut().expect("pushed") += 1;
                }
            }
        }
    }
    Ok(rows)
}

/// Reads every row of the file into `sink`, a batch at a time.
pub fn read_parquet(
    file: std::fs::File,
    len: u64,
    rows_before: u64,
    sink: &mut dyn FnMut(&TokenBatch<'_>),
) -> Result<u64, TokenError> {
    let reader = open(file, len)?;
    let schema = reader.metadata().file_metadata().schema_descr();
    let mut leaves = Vec::new();
    let mut batch = OwnedBatch::default();
    for (i, name) in COLUMNS.iter().enumerate() {
        if let Some(l) = leaf(schema, name, Role::Ints(i))? {
            batch.present[i] = true;
            batch.list[i] = l.list;
            leaves.push(l);
        }
    }
    if !batch.present[INPUT_IDS] {
        let fields = reader.metadata().file_metadata().schema().get_fields();
        return Err(TokenError::not_tokenized(fields.iter().map(|f| f.name())));
    }
    if !batch.present[LABELS] {
        if let Some(l) = leaf(schema, LABEL, Role::Ints(NCOLS))? {
            if !l.list {
                batch.label = Some(Vec::new());
                leaves.push(l);
            }
        }
    }
    for name in IMAGE_COLUMNS {
        let Some(index) =
            (0..schema.num_columns()).find(|&i| schema.column(i).path().parts()[0] == name)
        else {
            continue;
        };
        let c = schema.column(index);
        // `pixel_values` of one image is [C, H, W] (three lists); a fourth is the images.
        let per_element =
            c.max_rep_level() > 0 && (name != "pixel_values" || c.max_rep_level() >= 4);
        if let Some(l) = leaf(schema, name, Role::Images { per_element })? {
            batch.images = Some(Vec::new());
            leaves.push(l);
        }
        break;
    }
    let mut row = rows_before;
    let mut read = Read::default();
    for g in 0..reader.num_row_groups() {
        let group = reader.get_row_group(g).map_err(corrupt)?;
        let mut readers = leaves
            .iter()
            .map(|l| group.get_column_reader(l.index).map_err(corrupt))
            .collect::<Result<Vec<_>, _>>()?;
        loop {
            batch.clear();
            let mut rows = None;
            for (l, r) in leaves.iter().zip(readers.iter_mut()) {
                let (records, levels) = read_any(r, BATCH, &mut read).map_err(corrupt)?;
                let levels = if levels == 0 { records } else { levels };
                let filled = fill(l, &read, levels, &mut batch)?;
                if filled != records || rows.is_some_and(|n| n != records) {
                    return Err(corrupt(format!(
                        "row group {g}: its columns disagree about the number of rows"
                    )));
                }
                rows = Some(records);
            }
            let rows = rows.unwrap_or(0);
            if rows == 0 {
                break;
            }
            batch.rows = rows;
            batch.emit(row, sink);
            row += rows as u64;
        }
    }
    Ok(row - rows_before)
}
