//! Label tables: one column of class labels from CSV/TSV, JSONL or Parquet.
//!
//! Each cell becomes a class id: integers as they are, names through `--classes`, and
//! anything else (an unknown name, an empty cell, a fraction) is recorded with its row so
//! that the finding can point at it. Rows are 0-based data rows (the header is not counted).

use crate::bad_cell::BadCell;
use crate::checks::lg602_corrupt_file as lg602;
use crate::source::{Source, SourceReader};
use labelguard_core::Finding;
use std::collections::HashMap;
use std::io::{BufRead, Read};

pub use crate::formats::TableFormat;

/// Column names tried, in order, when `--label-column` is not given.
pub const DEFAULT_COLUMNS: &[&str] = &["label", "labels", "class", "target", "y", "category"];

/// One cell, before it becomes a class id.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Int(i64),
    Float(f64),
    Text(String),
    Missing,
}

impl Cell {
    fn from_text(s: &str) -> Cell {
        let t = s.trim();
        if t.is_empty() {
            Cell::Missing
        } else if let Ok(i) = t.parse::<i64>() {
            Cell::Int(i)
        } else if let Ok(f) = t.parse::<f64>() {
            Cell::Float(f)
        } else {
            Cell::Text(t.to_string())
        }
    }
}

/// The label column of a table, as class ids.
#[derive(Clone, Debug, Default)]
pub struct LabelColumn {
    pub column: String,
    /// One id per row; rows that are not ids hold `placeholder` so that they are not
    /// reported twice.
    pub ids: Vec<i64>,
    /// Unknown names and empty cells: count, first few, most frequent values.
    pub unknown: u64,
    pub unknown_first: Vec<BadCell>,
    pub unknown_values: Vec<(String, u64)>,
    /// Floating-point cells, whole (`3.0`) or not.
    pub floats: u64,
    pub fractional: u64,
    pub float_first: Vec<BadCell>,
    /// Rows read before `max_rows` stopped the reader, if it did.
    pub truncated_at: Option<u64>,
    /// For a JSON Lines column of lists (token classification's `ner_tags`: one label per
    /// word), where each row's labels start in `ids`; empty when every row is one label.
    pub row_starts: Vec<usize>,
}

impl LabelColumn {
    /// The row and the place in it of `ids[i]`, for a column of lists.
    pub fn row_of(&self, i: usize) -> Option<(usize, usize)> {
        let row = self
            .row_starts
            .partition_point(|&s| s <= i)
            .checked_sub(1)?;
        Some((row, i - self.row_starts[row]))
    }
}

pub enum TableError {
    MissingColumn {
        wanted: String,
        available: Vec<String>,
    },
    Problem(Finding),
}

impl From<Finding> for TableError {
    fn from(p: Finding) -> Self {
        TableError::Problem(p)
    }
}

fn corrupt(m: impl Into<String>) -> TableError {
    TableError::Problem(lg602::corrupt_table(m))
}

struct Builder<'a> {
    classes: Option<&'a HashMap<String, i64>>,
    placeholder: i64,
    max_rows: u64,
    out: LabelColumn,
    unknown_counts: HashMap<String, u64>,
}

const FIRST: usize = 5;

impl Builder<'_> {
    /// Adds a row of one cell; `false` once `max_rows` ids were read.
    fn push(&mut self, cell: Cell) -> bool {
        if !self.out.row_starts.is_empty() {
            self.out.row_starts.push(self.out.ids.len());
        }
        self.push_id(cell)
    }

    /// Adds a row of several cells (a JSON list: the labels of a sentence's words).
    fn push_list(&mut self, cells: impl Iterator<Item = Cell>) -> bool {
        if self.out.row_starts.is_empty() {
            self.out.row_starts = (0..self.out.ids.len()).collect();
        }
        self.out.row_starts.push(self.out.ids.len());
        for cell in cells {
            if !self.push_id(cell) {
                return false;
            }
        }
        true
    }

    /// The row being read: one id per row until a row of a list, then the last of `row_starts`.
    fn row(&self) -> usize {
        match self.out.row_starts.len() {
            0 => self.out.ids.len(),
            n => n - 1,
        }
    }

    fn push_id(&mut self, cell: Cell) -> bool {
        if self.out.ids.len() as u64 >= self.max_rows {
            self.out.truncated_at = Some(self.max_rows);
            return false;
        }
        let row = self.row();
        let cell = match (cell, self.classes) {
            (Cell::Text(t), Some(map)) => match map.get(&t) {
                Some(&id) => Cell::Int(id),
                None => Cell::Text(t),
            },
            (Cell::Int(i), Some(map)) if !map.is_empty() => {
                // With a classes file, a number may still be a name ("2012").
                map.get(&i.to_string())
                    .map(|&id| Cell::Int(id))
                    .unwrap_or(Cell::Int(i))
            }
            (c, _) => c,
        };
        let id = match cell {
            Cell::Int(i) => i,
            Cell::Float(f) => {
                self.out.floats += 1;
                if f.fract() != 0.0 || !f.is_finite() {
                    self.out.fractional += 1;
                }
                if self.out.float_first.len() < FIRST {
                    self.out.float_first.push(BadCell {
                        row,
                        text: labelguard_core::tensor::format_float(f),
                    });
                }
                if f.fract() == 0.0 && f.is_finite() && f.abs() < 9.0e15 {
                    f as i64
                } else {
                    self.placeholder
                }
            }
            Cell::Text(t) => {
                self.unknown(row, t);
                self.placeholder
            }
            Cell::Missing => {
                self.unknown(row, String::new());
                self.placeholder
            }
        };
        self.out.ids.push(id);
        true
    }

    fn unknown(&mut self, row: usize, text: String) {
        // Echoed twice in a report (first cells, value counts): bounded like every echo.
        let text = labelguard_core::clip::echo(&text);
        self.out.unknown += 1;
        if self.out.unknown_first.len() < FIRST {
            self.out.unknown_first.push(BadCell {
                row,
                text: text.clone(),
            });
        }
        if self.unknown_counts.len() < 64 || self.unknown_counts.contains_key(&text) {
            *self.unknown_counts.entry(text).or_insert(0) += 1;
        }
    }

    fn finish(mut self) -> LabelColumn {
        let mut v: Vec<(String, u64)> = self.unknown_counts.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        self.out.unknown_values = v;
        self.out
    }
}

/// How much of a `.json` file [`is_json_lines`] reads.
const JSON_LINES_SNIFF: u64 = 256 << 10;

/// Whether a `.json` file is JSON Lines: its first two non-blank lines are each a whole JSON
/// object. `datasets.load_dataset("json", data_files="train.json")` reads such a file one record
/// a line, and the example scripts of transformers take their `--train_file` as `.json` or
/// `.csv`, so their data is read as the `.jsonl` table it is. One object over several lines
/// (a configuration, COCO) or a single line (`id2label.json`, a minified COCO file) is not.
pub fn is_json_lines(source: &Source) -> bool {
    let mut head = Vec::new();
    if source.read_head(JSON_LINES_SNIFF, &mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    let mut lines = text
        .trim_start_matches('\u{feff}')
        .split('\n')
        .filter(|l| !l.trim().is_empty());
    let object = |line: Option<&str>| {
        line.and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .is_some_and(|v| v.is_object())
    };
    object(lines.next()) && object(lines.next())
}

/// How much of a table [`column_names`] reads: discovery asks it of every table of the files
/// layout, so a header row or a first record, not more.
const COLUMNS_SNIFF: u64 = 16 << 10;

/// The column names of a CSV/TSV table (its header row) or of JSON Lines records (the keys of
/// the first one), read from the file's first bytes; `None` for Parquet and for a file whose
/// head does not give them. For what discovery reads of a table before it is scanned (the
/// `ending0`..`ending3` columns of a multiple-choice table).
pub fn column_names(source: &Source, format: TableFormat) -> Option<Vec<String>> {
    let mut head = Vec::new();
    source.read_head(COLUMNS_SNIFF, &mut head).ok()?;
    match format {
        TableFormat::Csv | TableFormat::Tsv => {
            header_row(&mut delimited(&head[..], format == TableFormat::Tsv)).ok()
        }
        TableFormat::Jsonl => {
            let text = String::from_utf8_lossy(&head);
            let text = text.trim_start_matches('\u{feff}');
            let first = text.split('\n').find(|l| !l.trim().is_empty())?;
            let value: serde_json::Value = serde_json::from_str(first).ok()?;
            Some(value.as_object()?.keys().cloned().collect())
        }
        TableFormat::Parquet => None,
    }
}

/// Picks the column: the one asked for, or the first of [`DEFAULT_COLUMNS`] present.
fn choose(names: &[String], wanted: Option<&str>) -> Result<usize, TableError> {
    let found = match wanted {
        Some(w) => names.iter().position(|n| n == w),
        None => DEFAULT_COLUMNS
            .iter()
            .find_map(|d| names.iter().position(|n| n.eq_ignore_ascii_case(d))),
    };
    found.ok_or_else(|| TableError::MissingColumn {
        wanted: labelguard_core::clip::echo(wanted.unwrap_or("label")),
        available: shown_names(names),
    })
}

/// The most column names listed in a message.
const MAX_NAMES: usize = 20;

/// Column names as a message lists them: each bounded like every echoed value, at most
/// [`MAX_NAMES`] of them, then how many more there are.
fn shown_names(names: &[String]) -> Vec<String> {
    let mut shown: Vec<String> = names
        .iter()
        .take(MAX_NAMES)
        .map(|n| labelguard_core::clip::echo(n))
        .collect();
    if names.len() > MAX_NAMES {
        shown.push(format!("… ({} more)", names.len() - MAX_NAMES));
    }
    shown
}

/// Reads the label column of a table.
pub fn read_labels(
    source: &Source,
    format: TableFormat,
    column: Option<&str>,
    classes: Option<&HashMap<String, i64>>,
    placeholder: i64,
    max_rows: u64,
) -> Result<LabelColumn, TableError> {
    let mut b = Builder {
        classes,
        placeholder,
        max_rows,
        out: LabelColumn::default(),
        unknown_counts: HashMap::new(),
    };
    let (file, len) = source.open(u64::MAX)?;
    match format {
        TableFormat::Csv | TableFormat::Tsv => {
            read_delimited(file, format == TableFormat::Tsv, column, &mut b)?
        }
        TableFormat::Jsonl => read_jsonl(file, column, &mut b)?,
        // The `parquet` crate panics on some malformed files (issue 8): caught here, so the
        // file is LG602 corrupt with the crate's message rather than an internal error.
        TableFormat::Parquet => {
            let SourceReader::File(file) = file else {
                return Err(
                    crate::checks::lg601_unreadable_file::local_only("a Parquet table").into(),
                );
            };
            crate::isolate::isolated(|| read_parquet(file, len, column, &mut b))
                .map_err(|m| corrupt(format!("the Parquet reader failed on this file: {m}")))??
        }
    }
    Ok(b.finish())
}

/// A CSV (or, with `tab`, TSV) reader whose first row is the header.
fn delimited<R: std::io::Read>(r: R, tab: bool) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .delimiter(if tab { b'\t' } else { b',' })
        .has_headers(true)
        .from_reader(r)
}

/// The header row's names, trimmed, a UTF-8 byte-order mark dropped.
fn header_row<R: std::io::Read>(rdr: &mut csv::Reader<R>) -> csv::Result<Vec<String>> {
    Ok(rdr
        .byte_headers()?
        .iter()
        .map(|h| {
            String::from_utf8_lossy(h)
                .trim_start_matches('\u{feff}')
                .trim()
                .to_string()
        })
        .collect())
}

fn read_delimited(
    file: SourceReader,
    tab: bool,
    column: Option<&str>,
    b: &mut Builder<'_>,
) -> Result<(), TableError> {
    let mut rdr = delimited(
        std::io::BufReader::new(super::line_cap::LineCap::new(file, MAX_LINE)),
        tab,
    );
    let headers =
        header_row(&mut rdr).map_err(|e| corrupt(format!("cannot read the header row: {e}")))?;
    if headers.iter().all(|h| h.is_empty()) {
        return Err(corrupt("the table has no header row"));
    }
    let idx = choose(&headers, column)?;
    b.out.column = labelguard_core::clip::echo(&headers[idx]);
    let mut record = csv::ByteRecord::new();
    loop {
        match rdr.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                let text = String::from_utf8_lossy(record.get(idx).unwrap_or(b""));
                if !b.push(Cell::from_text(&text)) {
                    break;
                }
            }
            Err(e) => {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                return Err(corrupt(format!("line {line}: {}", e.kind_message())));
            }
        }
    }
    Ok(())
}

trait KindMessage {
    fn kind_message(&self) -> String;
}

impl KindMessage for csv::Error {
    fn kind_message(&self) -> String {
        match self.kind() {
            csv::ErrorKind::UnequalLengths {
                expected_len, len, ..
            } => {
                format!("the row has {len} fields but the header has {expected_len} (an unquoted delimiter, or a cut line?)")
            }
            _ => self.to_string(),
        }
    }
}

fn json_cell(v: &serde_json::Value) -> Cell {
    use serde_json::Value as V;
    match v {
        V::Null => Cell::Missing,
        V::Number(n) => match n.as_i64() {
            Some(i) => Cell::Int(i),
            None => Cell::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        V::String(s) => Cell::from_text(s),
        other => Cell::Text(other.to_string()),
    }
}

use super::line_cap::MAX_LINE;

fn read_jsonl(
    file: SourceReader,
    column: Option<&str>,
    b: &mut Builder<'_>,
) -> Result<(), TableError> {
    let mut reader = std::io::BufReader::new(file);
    let mut line = String::new();
    let mut key: Option<String> = None;
    let mut first_keys: Vec<String> = Vec::new();
    let mut line_no = 0usize;
    loop {
        line.clear();
        let n = reader
            .by_ref()
            .take(MAX_LINE)
            .read_line(&mut line)
            .map_err(|e| corrupt(format!("line {}: {e}", line_no + 1)))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if n as u64 == MAX_LINE && !line.ends_with('\n') {
            return Err(corrupt(format!(
                "line {line_no} is longer than {MAX_LINE} bytes"
            )));
        }
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| corrupt(format!("line {line_no} is not JSON: {e}")))?;
        let obj = value
            .as_object()
            .ok_or_else(|| corrupt(format!("line {line_no} is not a JSON object")))?;
        if key.is_none() {
            first_keys = obj.keys().cloned().collect();
            let idx = choose(&first_keys, column)?;
            key = Some(first_keys[idx].clone());
            b.out.column = labelguard_core::clip::echo(&first_keys[idx]);
        }
        let k = key.as_deref().expect("set above");
        let more = match obj.get(k) {
            // One label per word (`ner_tags`, `pos_tags`): each is an id.
            Some(serde_json::Value::Array(items))
                if items.iter().all(|v| !v.is_array() && !v.is_object()) =>
            {
                b.push_list(items.iter().map(json_cell))
            }
            cell => b.push(cell.map(json_cell).unwrap_or(Cell::Missing)),
        };
        if !more {
            break;
        }
    }
    if key.is_none() && first_keys.is_empty() && b.out.ids.is_empty() {
        b.out.column = column.unwrap_or("label").to_string();
    }
    Ok(())
}

#[cfg(feature = "parquet")]
fn read_parquet(
    file: std::fs::File,
    len: u64,
    column: Option<&str>,
    b: &mut Builder<'_>,
) -> Result<(), TableError> {
    use super::parquet_columns::FlatValue;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;
    let reader = super::parquet_source::ParquetSource::open(file, len)
        .and_then(SerializedFileReader::new)
        .map_err(|e| corrupt(format!("corrupt Parquet file: {e}")))?;
    let schema = reader.metadata().file_metadata().schema();
    let fields = schema.get_fields();
    let names: Vec<String> = fields.iter().map(|f| f.name().to_string()).collect();
    let idx = choose(&names, column)?;
    b.out.column = labelguard_core::clip::echo(&names[idx]);
    let projection = parquet::schema::types::Type::group_type_builder(schema.name())
        .with_fields(vec![fields[idx].clone()])
        .build()
        .map_err(|e| corrupt(format!("Parquet schema: {e}")))?;
    // A flat column of numbers a batch at a time; any other column a row at a time.
    let mut sink = |v: FlatValue| {
        b.push(match v {
            FlatValue::Int(i) => Cell::Int(i),
            FlatValue::Float(f) => Cell::Float(f),
            FlatValue::Null => Cell::Missing,
        })
    };
    match super::parquet_columns::read_flat(&reader, &names[idx], &mut sink) {
        Ok(true) => return Ok(()),
        Ok(false) => {}
        Err(e) => return Err(corrupt(format!("corrupt Parquet row group: {e}"))),
    }
    let rows = reader
        .get_row_iter(Some(projection))
        .map_err(|e| corrupt(format!("corrupt Parquet file: {e}")))?;
    for row in rows {
        let row = row.map_err(|e| corrupt(format!("corrupt Parquet row group: {e}")))?;
        let more = match row.get_column_iter().next().map(|(_, f)| f) {
            // One label per word (`ner_tags` of a Hub NER dataset): each is an id.
            Some(Field::ListInternal(list)) if list.elements().iter().all(Field::is_primitive) => {
                b.push_list(list.elements().iter().map(parquet_cell))
            }
            field => b.push(field.map_or(Cell::Missing, parquet_cell)),
        };
        if !more {
            break;
        }
    }
    Ok(())
}

#[cfg(feature = "parquet")]
fn parquet_cell(f: &parquet::record::Field) -> Cell {
    use parquet::record::Field;
    match f {
        Field::Null => Cell::Missing,
        Field::Bool(v) => Cell::Int(*v as i64),
        Field::Byte(v) => Cell::Int(*v as i64),
        Field::Short(v) => Cell::Int(*v as i64),
        Field::Int(v) => Cell::Int(*v as i64),
        Field::Long(v) => Cell::Int(*v),
        Field::UByte(v) => Cell::Int(*v as i64),
        Field::UShort(v) => Cell::Int(*v as i64),
        Field::UInt(v) => Cell::Int(*v as i64),
        Field::ULong(v) => Cell::Int((*v).min(i64::MAX as u64) as i64),
        Field::Float(v) => Cell::Float(*v as f64),
        Field::Double(v) => Cell::Float(*v),
        Field::Str(s) => Cell::from_text(s),
        other => Cell::Text(other.to_string()),
    }
}

#[cfg(not(feature = "parquet"))]
fn read_parquet(
    _: std::fs::File,
    _: u64,
    _: Option<&str>,
    _: &mut Builder<'_>,
) -> Result<(), TableError> {
    Err(TableError::Problem(lg602::parquet_not_compiled()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(
        name: &str,
        text: &str,
        col: Option<&str>,
        classes: Option<&HashMap<String, i64>>,
    ) -> Result<LabelColumn, TableError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        read_labels(
            &Source::File(p.clone()),
            TableFormat::of(&p.to_string_lossy()).unwrap(),
            col,
            classes,
            -100,
            1000,
        )
    }

    #[test]
    fn csv_tsv_and_jsonl_columns_become_ids() {
        let c = read(
            "a.csv",
            "path,label\na.jpg,3\nb.jpg,\nc.jpg,cat\nd.jpg,2.0\n",
            None,
            None,
        )
        .ok()
        .unwrap();
        assert_eq!(c.ids, vec![3, -100, -100, 2]);
        assert_eq!((c.unknown, c.floats, c.fractional), (2, 1, 0));
        assert_eq!(
            c.unknown_first[1],
            BadCell {
                row: 2,
                text: "cat".into()
            }
        );
        let t = read("a.tsv", "y\tz\n1\t2\n", Some("z"), None).ok().unwrap();
        assert_eq!((t.column.as_str(), t.ids.clone()), ("z", vec![2]));
        let map: HashMap<String, i64> = [("cat".to_string(), 0), ("dog".to_string(), 1)].into();
        let j = read(
            "a.jsonl",
            "{\"label\": \"dog\"}\n\n{\"label\": \"cow\"}\n{\"x\": 1}\n",
            None,
            Some(&map),
        )
        .ok()
        .unwrap();
        assert_eq!(j.ids, vec![1, -100, -100]);
        assert_eq!(j.unknown_values[0], ("".to_string(), 1));
    }

    #[test]
    fn names_and_cells_from_the_file_are_echoed_bounded() {
        let long = "n".repeat(1 << 20);
        // A missing column: 30 names of 1 MiB each become 20 clipped names and a count.
        let header: Vec<String> = (0..30).map(|i| format!("{long}{i}")).collect();
        let text = format!("{}\n", header.join(","));
        match read("a.csv", &text, None, None) {
            Err(TableError::MissingColumn { available, .. }) => {
                assert_eq!(available.len(), MAX_NAMES + 1);
                assert!(available[0].ends_with(&format!("… ({} bytes)", long.len() + 1)));
                assert!(available.iter().all(|n| n.len() < 300), "clipped");
                assert_eq!(available[MAX_NAMES], "… (10 more)");
            }
            _ => panic!("expected a missing column"),
        }
        // A 1 MiB unknown cell (CSV) and a 1 MiB key chosen by --label-column (JSONL).
        let c = read("b.csv", &format!("label\n{long}\n"), None, None)
            .ok()
            .unwrap();
        assert!(c.unknown_first[0].text.len() < 300);
        assert!(c.unknown_values[0].0.len() < 300);
        let j = read(
            "c.jsonl",
            &format!("{{\"{long}\": 1}}\n"),
            Some(&long),
            None,
        )
        .ok()
        .unwrap();
        assert_eq!(j.ids, vec![1]);
        assert!(
            j.column.len() < 300 && j.column.starts_with("nnn"),
            "{}",
            j.column.len()
        );
    }

    #[test]
    fn column_names_are_read_from_the_head_of_csv_and_json_lines() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("t.csv");
        std::fs::write(&csv, "\u{feff}sent1,ending0, ending1,label\nx,a,b,0\n").unwrap();
        let names = column_names(&Source::File(csv), TableFormat::Csv).unwrap();
        assert_eq!(names, ["sent1", "ending0", "ending1", "label"]);
        let jsonl = dir.path().join("t.json");
        std::fs::write(&jsonl, "\n{\"ending0\": \"a\", \"label\": 1}\n{\"x\": 2}\n").unwrap();
        let names = column_names(&Source::File(jsonl.clone()), TableFormat::Jsonl).unwrap();
        assert_eq!(names, ["ending0", "label"]);
        std::fs::write(&jsonl, "not json\n").unwrap();
        assert_eq!(column_names(&Source::File(jsonl), TableFormat::Jsonl), None);
    }

    #[test]
    fn a_column_of_lists_is_one_id_per_word_with_its_row() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("ner.jsonl");
        // A scalar row first, then word labels, an empty list, a bad word label.
        std::fs::write(
            &p,
            "{\"ner_tags\": 4}\n{\"ner_tags\": [0, 1, 2]}\n{\"ner_tags\": []}\n{\"ner_tags\": [3, \"x\"]}\n",
        )
        .unwrap();
        let col = read_labels(
            &Source::File(p),
            TableFormat::Jsonl,
            Some("ner_tags"),
            None,
            -100,
            u64::MAX,
        )
        .unwrap_or_else(|_| panic!("read"));
        assert_eq!(col.ids, [4, 0, 1, 2, 3, -100]);
        assert_eq!(col.row_starts, [0, 1, 4, 4]);
        assert_eq!(col.row_of(0), Some((0, 0)));
        assert_eq!(col.row_of(3), Some((1, 2)));
        assert_eq!(col.row_of(5), Some((3, 1)));
        // The bad word is named by its row.
        assert_eq!(col.unknown, 1);
        assert_eq!(col.unknown_first[0].row, 3);
    }

    #[test]
    fn a_missing_column_lists_the_columns() {
        match read("a.csv", "path,cls\na,1\n", Some("label"), None) {
            Err(TableError::MissingColumn { available, .. }) => {
                assert_eq!(available, vec!["path", "cls"])
            }
            _ => panic!("expected a missing column"),
        }
        match read("b.csv", "a,label\n1,2\n3\n", None, None) {
            Err(TableError::Problem(p)) => assert!(p.message.contains("fields"), "{}", p.message),
            _ => panic!("expected a ragged-row problem"),
        }
    }

    #[cfg(feature = "parquet")]
    #[test]
    fn a_parquet_page_of_many_rows_is_read_a_batch_at_a_time() {
        // One data page of 100,000 rows (nulls among values), read with the column reader.
        let labels: Vec<Option<i64>> = (0..100_000)
            .map(|i| (i % 3 != 1).then_some(i % 7))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.parquet");
        std::fs::write(&p, crate::fixtures::parquet_labels_one_page(&labels)).unwrap();
        let read = |max_rows| {
            read_labels(
                &Source::File(p.clone()),
                TableFormat::Parquet,
                None,
                None,
                -100,
                max_rows,
            )
            .ok()
            .unwrap()
        };
        let c = read(1 << 25);
        let want: Vec<i64> = labels.iter().map(|l| l.unwrap_or(-100)).collect();
        assert_eq!(c.ids, want);
        assert_eq!(
            c.unknown,
            labels.iter().filter(|l| l.is_none()).count() as u64
        );
        let first: Vec<usize> = c.unknown_first.iter().map(|b| b.row).collect();
        assert_eq!(first, [1, 4, 7, 10, 13]);
        assert_eq!(c.unknown_values, [(String::new(), c.unknown)]);
        assert_eq!(c.truncated_at, None);
        let c = read(1000);
        assert_eq!((c.ids.len(), c.truncated_at), (1000, Some(1000)));
        assert_eq!(c.ids, want[..1000]);
    }
}
