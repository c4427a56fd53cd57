//! The conversation cells of a chat dataset, one per row, from any of the three places chat
//! fine-tuning data ships in: JSONL lines, a Parquet column (`Dataset.to_parquet`) or the
//! Arrow shards of a `save_to_disk` folder, read in row order. Each yields the row's
//! `messages`/`conversations` value as JSON (what `datasets` hands Python); turning it into
//! the messages the template sees is [`super::chat`]'s, the same for all three.

use super::line_cap::{LineCap, MAX_LINE};
use serde_json::Value;
use std::collections::VecDeque;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// The column of a row that holds its conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatKey {
    Messages,
    Conversations,
}

impl ChatKey {
    pub fn name(self) -> &'static str {
        match self {
            ChatKey::Messages => "messages",
            ChatKey::Conversations => "conversations",
        }
    }
}

/// The lines of a JSONL file, each at most [`MAX_LINE`] bytes.
pub(super) fn lines(path: &Path) -> Result<impl Iterator<Item = std::io::Result<String>>, String> {
    let (file, _) = crate::source::file::open_regular(path).map_err(|f| f.message)?;
    Ok(std::io::BufReader::new(LineCap::new(file, MAX_LINE)).lines())
}

/// One row's cell, or why the row holds none (a JSONL line that is not a JSON object).
pub type Cell = Result<Value, String>;

/// The cells of a dataset in row order; an `Err` item is a file that cannot be read further
/// (the iteration ends after it).
pub type Cells = Box<dyn Iterator<Item = Result<Cell, String>>>;

/// Where a chat dataset's rows are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatFormat {
    Jsonl,
    Parquet,
    /// The Arrow IPC stream shards of a `save_to_disk` folder, in `state.json`'s order.
    Arrow,
}

/// The cells of column `key` in `files` (read one after the other, rows numbered on).
pub fn cells(files: &[PathBuf], format: ChatFormat, key: ChatKey) -> Cells {
    let files = files.to_vec();
    fuse_after_error(Box::new(files.into_iter().flat_map(move |path| -> Cells {
        let opened = match format {
            ChatFormat::Jsonl => jsonl(&path, key),
            ChatFormat::Parquet => parquet(&path, key),
            ChatFormat::Arrow => arrow(&path, key),
        };
        match opened {
            Ok(cells) => cells,
            Err(e) => Box::new(std::iter::once(Err(e))),
        }
    })))
}

/// `cells` up to and with its first `Err`.
fn fuse_after_error(cells: Cells) -> Cells {
    let mut failed = false;
    Box::new(cells.take_while(move |item| {
        let go = !failed;
        failed |= item.is_err();
        go
    }))
}

fn jsonl(path: &Path, key: ChatKey) -> Result<Cells, String> {
    let mut line_no = 0u64;
    Ok(Box::new(lines(path)?.filter_map(move |line| {
        line_no += 1;
        match line {
            Err(e) => Some(Err(format!("line {line_no}: {e}"))),
            Ok(l) if l.trim().is_empty() => None,
            Ok(l) => Some(Ok(serde_json::from_str::<serde_json::Map<String, Value>>(
                &l,
            )
            .map_err(|e| format!("not a JSON object: {e}"))
            .map(|mut row| row.remove(key.name()).unwrap_or(Value::Null)))),
        }
    })))
}

/// The column `key` of an Arrow IPC stream, a record batch at a time.
fn arrow(path: &Path, key: ChatKey) -> Result<Cells, String> {
    let (file, len) = crate::source::file::open_regular(path).map_err(|f| f.message)?;
    let mut reader = super::arrow_ipc::open(std::io::BufReader::with_capacity(1 << 16, file), len)
        .map_err(|e| e.to_string())?;
    let field = reader
        .fields
        .iter()
        .find(|f| f.name == key.name())
        .cloned()
        .ok_or_else(|| format!("{}: no '{}' column", path.display(), key.name()))?;
    let mut batch: VecDeque<Value> = VecDeque::new();
    let mut done = false;
    Ok(Box::new(std::iter::from_fn(move || loop {
        if let Some(v) = batch.pop_front() {
            return Some(Ok(Ok(v)));
        }
        if done {
            return None;
        }
        let next = reader.next_batch().and_then(|b| {
            b.map(|b| super::arrow_json::column_values(&b, &field))
                .transpose()
        });
        match next {
            Ok(Some(values)) => batch.extend(values),
            Ok(None) => done = true,
            Err(e) => {
                done = true;
                return Some(Err(e.to_string()));
            }
        }
    })))
}

#[cfg(feature = "parquet")]
fn parquet(path: &Path, key: ChatKey) -> Result<Cells, String> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::reader::RowIter;
    let (file, len) = crate::source::file::open_regular(path).map_err(|f| f.message)?;
    let reader = super::parquet_source::ParquetSource::open(file, len)
        .and_then(SerializedFileReader::new)
        .map_err(|e| format!("corrupt Parquet file: {e}"))?;
    let schema = reader.metadata().file_metadata().schema();
    let field = schema
        .get_fields()
        .iter()
        .find(|f| f.name() == key.name())
        .cloned()
        .ok_or_else(|| format!("{}: no '{}' column", path.display(), key.name()))?;
    let projection = parquet::schema::types::Type::group_type_builder(schema.name())
        .with_fields(vec![field])
        .build()
        .map_err(|e| format!("Parquet schema: {e}"))?;
    let mut rows = RowIter::from_file_into(Box::new(reader))
        .project(Some(projection))
        .map_err(|e| format!("corrupt Parquet file: {e}"))?;
    // The record reader may panic on a corrupt page: that row group's error, not the scan's.
    Ok(Box::new(std::iter::from_fn(
        move || match crate::isolate::isolated(|| rows.next()) {
            Ok(None) => None,
            Ok(Some(Ok(row))) => Some(Ok(Ok(row
                .get_column_iter()
                .next()
                .map_or(Value::Null, |(_, f)| field_json(f))))),
            Ok(Some(Err(e))) => Some(Err(format!("corrupt Parquet row group: {e}"))),
            Err(panic) => Some(Err(format!("the Parquet reader failed: {panic}"))),
        },
    )))
}

#[cfg(not(feature = "parquet"))]
fn parquet(_: &Path, _: ChatKey) -> Result<Cells, String> {
    Err("this build reads no Parquet (the `parquet` feature is off)".into())
}

/// A Parquet record field as the JSON value `datasets` makes of it.
#[cfg(feature = "parquet")]
fn field_json(f: &parquet::record::Field) -> Value {
    use parquet::record::Field as F;
    match f {
        F::Null => Value::Null,
        F::Bool(b) => Value::Bool(*b),
        F::Byte(v) => Value::from(*v),
        F::Short(v) => Value::from(*v),
        F::Int(v) => Value::from(*v),
        F::Long(v) => Value::from(*v),
        F::UByte(v) => Value::from(*v),
        F::UShort(v) => Value::from(*v),
        F::UInt(v) => Value::from(*v),
        F::ULong(v) => Value::from(*v),
        F::Float(v) => Value::from(f64::from(*v)),
        F::Double(v) => Value::from(*v),
        F::Str(s) => Value::from(s.as_str()),
        F::Group(row) => Value::Object(
            row.get_column_iter()
                .map(|(k, v)| (k.clone(), field_json(v)))
                .collect(),
        ),
        F::ListInternal(list) => Value::Array(list.elements().iter().map(field_json).collect()),
        other => Value::from(other.to_string()),
    }
}
