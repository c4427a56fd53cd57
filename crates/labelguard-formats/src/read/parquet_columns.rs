//! The label column of a Parquet file read with the crate's column readers, a batch of values
//! at a time, when it is a flat column of integers, floats or booleans. The record reader builds
//! a row (a vector holding the column's name and a boxed field) for every row, which made a
//! page of 2^25 nulls or repeated dictionary indices, a few hundred bytes on disk, take seconds
//! (issue 8). Values are converted as the record reader converts them (`Field::convert_int32`,
//! `convert_int64` of the `parquet` crate: by the column's converted type).

use parquet::basic::{ConvertedType, Type as Physical};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::DataType;
use parquet::errors::{ParquetError, Result};
use parquet::file::reader::FileReader;

/// One cell of a flat column.
pub enum FlatValue {
    Int(i64),
    Float(f64),
    Null,
}

/// Rows decoded at once.
const BATCH: usize = 4096;

/// Reads the top-level column `name` into `sink` (which says `false` to stop), when it is a
/// flat integer, float or boolean column. `Ok(false)`: it is not, and nothing was read.
pub fn read_flat(
    reader: &dyn FileReader,
    name: &str,
    sink: &mut dyn FnMut(FlatValue) -> bool,
) -> Result<bool> {
    let schema = reader.metadata().file_metadata().schema_descr();
    let mut leaves =
        (0..schema.num_columns()).filter(|&i| schema.column(i).path().parts() == [name]);
    let (Some(leaf), None) = (leaves.next(), leaves.next()) else {
        return Ok(false);
    };
    let column = schema.column(leaf);
    if column.max_rep_level() != 0 || column.max_def_level() > 1 {
        return Ok(false);
    }
    let nullable = column.max_def_level() == 1;
    let int32: fn(&i32) -> FlatValue = match column.converted_type() {
        ConvertedType::NONE | ConvertedType::INT_32 => |&v| FlatValue::Int(v as i64),
        ConvertedType::INT_8 => |&v| FlatValue::Int(v as i8 as i64),
        ConvertedType::INT_16 => |&v| FlatValue::Int(v as i16 as i64),
        ConvertedType::UINT_8 => |&v| FlatValue::Int(v as u8 as i64),
        ConvertedType::UINT_16 => |&v| FlatValue::Int(v as u16 as i64),
        ConvertedType::UINT_32 => |&v| FlatValue::Int(v as u32 as i64),
        _ if column.physical_type() == Physical::INT32 => return Ok(false),
        _ => |_| FlatValue::Null, // not an INT32 column: unused
    };
    let int64: fn(&i64) -> FlatValue = match column.converted_type() {
        ConvertedType::NONE | ConvertedType::INT_64 => |&v| FlatValue::Int(v),
        ConvertedType::UINT_64 => |&v| FlatValue::Int((v as u64).min(i64::MAX as u64) as i64),
        _ if column.physical_type() == Physical::INT64 => return Ok(false),
        _ => |_| FlatValue::Null, // not an INT64 column: unused
    };
    match column.physical_type() {
        Physical::BOOLEAN | Physical::INT32 | Physical::INT64 | Physical::FLOAT => {}
        Physical::DOUBLE => {}
        _ => return Ok(false),
    }
    for g in 0..reader.num_row_groups() {
        let more = match reader.get_row_group(g)?.get_column_reader(leaf)? {
            ColumnReader::BoolColumnReader(r) => {
                drain(r, nullable, sink, |&v| FlatValue::Int(v as i64))?
            }
            ColumnReader::Int32ColumnReader(r) => drain(r, nullable, sink, int32)?,
            ColumnReader::Int64ColumnReader(r) => drain(r, nullable, sink, int64)?,
            ColumnReader::FloatColumnReader(r) => {
                drain(r, nullable, sink, |&v| FlatValue::Float(v as f64))?
            }
            ColumnReader::DoubleColumnReader(r) => {
                drain(r, nullable, sink, |&v| FlatValue::Float(v))?
            }
            _ => unreachable!("the physical types are checked above"),
        };
        if !more {
            break;
        }
    }
    Ok(true)
}

/// Every row of one column chunk into `sink`; `false` when the sink stopped.
fn drain<T: DataType>(
    mut r: ColumnReaderImpl<T>,
    nullable: bool,
    sink: &mut dyn FnMut(FlatValue) -> bool,
    convert: impl Fn(&T::T) -> FlatValue,
) -> Result<bool> {
    let (mut defs, mut values) = (Vec::with_capacity(BATCH), Vec::with_capacity(BATCH));
    loop {
        defs.clear();
        values.clear();
        let (records, _, levels) =
            r.read_records(BATCH, nullable.then_some(&mut defs), None, &mut values)?;
        if records == 0 {
            return Ok(true);
        }
        if nullable {
            let mut v = values.iter();
            for &d in &defs[..levels] {
                let cell = if d == 1 {
                    convert(v.next().ok_or_else(|| {
                        ParquetError::General("fewer values than definition levels".into())
                    })?)
                } else {
                    FlatValue::Null
                };
                if !sink(cell) {
                    return Ok(false);
                }
            }
        } else {
            for x in &values[..records] {
                if !sink(convert(x)) {
                    return Ok(false);
                }
            }
        }
    }
}
