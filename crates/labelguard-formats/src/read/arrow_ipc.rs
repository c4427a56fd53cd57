//! A small reader of the Arrow IPC *stream* format, enough for the integer and list columns of
//! a tokenized dataset (`datasets`' `save_to_disk` writes its `.arrow` files in this format).
//! The `arrow-ipc` crate would bring arrow-array, arrow-cast and flatbuffers for the same work;
//! here a record batch's body is read into one reused buffer and its columns are borrowed from
//! it, so memory is bounded by one batch and nothing is copied or converted.
//!
//! The format (Arrow columnar spec, "Serialization and Interprocess Communication"): a sequence
//! of messages, each `0xFFFFFFFF`, a little-endian `i32` metadata length, the metadata (a
//! flatbuffer `Message`, `format/Message.fbs`), then `bodyLength` bytes of body; a length of 0
//! ends the stream (a file that ends without it was cut short). Streams written before Arrow 0.15 have no
//! `0xFFFFFFFF`. The first message is the `Schema` (`format/Schema.fbs`), then `RecordBatch`es
//! whose `nodes` (one per field, pre-order) and `buffers` (offset and length in the body) follow
//! the schema's fields in order. The IPC *file* format is the same stream after the 8 bytes
//! `ARROW1\0\0`.
//!
//! Every offset is checked against the bytes before it is used: a corrupt file is an
//! [`IpcError`] naming what is wrong, never a panic, a hang or an allocation the file cannot
//! back.

use std::io::Read;

/// The longest metadata message read (a schema of many columns is a few KB).
const MAX_METADATA: u64 = 16 << 20;
/// The largest record batch read at once: 4 GiB (`datasets` writes batches of 1000 rows, a few
/// MB; memory is one batch, so a larger claim is refused rather than allocated).
const MAX_BODY: u64 = 4 << 30;
/// Deepest nesting of fields, and most fields, accepted in a schema.
const MAX_DEPTH: usize = 32;
const MAX_FIELDS: usize = 10_000;

/// What is wrong with a stream.
#[derive(Debug, Clone, PartialEq)]
pub struct IpcError(pub String);

impl std::fmt::Display for IpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(m: impl Into<String>) -> Result<T, IpcError> {
    Err(IpcError(m.into()))
}

/// A column type, as far as the reader needs it.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrowType {
    Int {
        bits: u8,
        signed: bool,
    },
    Float {
        bits: u8,
    },
    Bool,
    /// Any other fixed-width type (dates, times, decimals, fixed-size binary): two buffers.
    Fixed(&'static str),
    /// Strings and binaries; `large`: 64-bit offsets.
    Bytes {
        large: bool,
        text: bool,
    },
    List {
        large: bool,
    },
    FixedSizeList(i64),
    Struct,
    Map,
    Null,
    /// A type whose buffers this reader does not know how to count (views, unions, run-end
    /// encoded): the columns after it cannot be located.
    Unsupported(&'static str),
}

impl ArrowType {
    /// How Arrow prints the type, for messages.
    pub fn name(&self) -> String {
        match self {
            ArrowType::Int { bits, signed } => {
                format!("{}int{bits}", if *signed { "" } else { "u" })
            }
            ArrowType::Float { bits } => format!("float{bits}"),
            ArrowType::Bool => "bool".into(),
            ArrowType::Fixed(n) | ArrowType::Unsupported(n) => n.to_string(),
            ArrowType::Bytes { large, text } => format!(
                "{}{}",
                if *large { "large_" } else { "" },
                if *text { "string" } else { "binary" }
            ),
            ArrowType::List { large } => format!("{}list", if *large { "large_" } else { "" }),
            ArrowType::FixedSizeList(n) => format!("fixed_size_list[{n}]"),
            ArrowType::Struct => "struct".into(),
            ArrowType::Map => "map".into(),
            ArrowType::Null => "null".into(),
        }
    }

    /// Buffers this type itself takes in a record batch (children not counted).
    fn buffers(&self) -> Option<usize> {
        Some(match self {
            ArrowType::Null => 0,
            ArrowType::Struct | ArrowType::FixedSizeList(_) => 1,
            ArrowType::Int { .. }
            | ArrowType::Float { .. }
            | ArrowType::Bool
            | ArrowType::Fixed(_)
            | ArrowType::List { .. }
            | ArrowType::Map => 2,
            ArrowType::Bytes { .. } => 3,
            ArrowType::Unsupported(_) => return None,
        })
    }
}

/// A field of the schema, with where its node and buffers are in every record batch.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: ArrowType,
    /// A dictionary-encoded field: its buffers are the integer indices'.
    pub dictionary: bool,
    pub children: Vec<Field>,
    node: usize,
    buffer: usize,
}

impl Field {
    /// The type as Arrow prints it, children included (`list<int32>`).
    pub fn type_name(&self) -> String {
        match self.children.as_slice() {
            [] => self.ty.name(),
            c => format!(
                "{}<{}>",
                self.ty.name(),
                c.iter()
                    .map(Field::type_name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Flatbuffers, bounds-checked (the binary format: flatbuffers' `docs/source/internals.md`).

fn bytes_at(buf: &[u8], pos: usize, n: usize) -> Result<&[u8], IpcError> {
    pos.checked_add(n)
        .and_then(|end| buf.get(pos..end))
        .ok_or_else(|| {
            IpcError(format!(
                "a flatbuffer read at byte {pos} goes past the metadata"
            ))
        })
}

fn u16_at(b: &[u8], p: usize) -> Result<u16, IpcError> {
    Ok(u16::from_le_bytes(
        bytes_at(b, p, 2)?.try_into().expect("2"),
    ))
}
fn u32_at(b: &[u8], p: usize) -> Result<u32, IpcError> {
    Ok(u32::from_le_bytes(
        bytes_at(b, p, 4)?.try_into().expect("4"),
    ))
}
fn i64_at(b: &[u8], p: usize) -> Result<i64, IpcError> {
    Ok(i64::from_le_bytes(
        bytes_at(b, p, 8)?.try_into().expect("8"),
    ))
}

/// A flatbuffer table: its position and its vtable's.
#[derive(Clone, Copy)]
struct Table<'a> {
    buf: &'a [u8],
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

impl<'a> Table<'a> {
    fn at(buf: &'a [u8], pos: usize) -> Result<Table<'a>, IpcError> {
        let soffset = u32_at(buf, pos)? as i32 as i64;
        let vtable = pos as i64 - soffset;
        if vtable < 0 || vtable as usize >= buf.len() {
            return err(format!(
                "a table at byte {pos} points to a vtable outside the metadata"
            ));
        }
        let vtable = vtable as usize;
        let vtable_len = u16_at(buf, vtable)? as usize;
        bytes_at(buf, vtable, vtable_len)?;
        Ok(Table {
            buf,
            pos,
            vtable,
            vtable_len,
        })
    }

    /// The root table of a buffer.
    fn root(buf: &'a [u8]) -> Result<Table<'a>, IpcError> {
        Table::at(buf, u32_at(buf, 0)? as usize)
    }

    /// The position of field `slot`, if present.
    fn field(&self, slot: usize) -> Result<Option<usize>, IpcError> {
        let entry = 4 + 2 * slot;
        if entry + 2 > self.vtable_len {
            return Ok(None);
        }
        let off = u16_at(self.buf, self.vtable + entry)? as usize;
        Ok((off != 0).then_some(self.pos + off))
    }

    fn u8(&self, slot: usize, default: u8) -> Result<u8, IpcError> {
        match self.field(slot)? {
            Some(p) => Ok(bytes_at(self.buf, p, 1)?[0]),
            None => Ok(default),
        }
    }
    fn i16(&self, slot: usize, default: i16) -> Result<i16, IpcError> {
        match self.field(slot)? {
            Some(p) => Ok(u16_at(self.buf, p)? as i16),
            None => Ok(default),
        }
    }
    fn i32(&self, slot: usize, default: i32) -> Result<i32, IpcError> {
        match self.field(slot)? {
            Some(p) => Ok(u32_at(self.buf, p)? as i32),
            None => Ok(default),
        }
    }
    fn i64(&self, slot: usize, default: i64) -> Result<i64, IpcError> {
        match self.field(slot)? {
            Some(p) => i64_at(self.buf, p),
            None => Ok(default),
        }
    }

    /// Where an offset field points.
    fn target(&self, slot: usize) -> Result<Option<usize>, IpcError> {
        match self.field(slot)? {
            Some(p) => {
                let t = p
                    .checked_add(u32_at(self.buf, p)? as usize)
                    .filter(|&t| t < self.buf.len());
                t.map(Some).ok_or_else(|| {
                    IpcError(format!("an offset at byte {p} points outside the metadata"))
                })
            }
            None => Ok(None),
        }
    }

    fn table(&self, slot: usize) -> Result<Option<Table<'a>>, IpcError> {
        self.target(slot)?
            .map(|t| Table::at(self.buf, t))
            .transpose()
    }

    /// A vector field: the position of its first element and its length, checked to fit
    /// `width` bytes per element.
    fn vector(&self, slot: usize, width: usize) -> Result<Option<(usize, usize)>, IpcError> {
        let Some(t) = self.target(slot)? else {
            return Ok(None);
        };
        let n = u32_at(self.buf, t)? as usize;
        bytes_at(self.buf, t + 4, n.saturating_mul(width))?;
        Ok(Some((t + 4, n)))
    }

    fn string(&self, slot: usize) -> Result<String, IpcError> {
        match self.vector(slot, 1)? {
            Some((p, n)) => Ok(String::from_utf8_lossy(&self.buf[p..p + n]).into_owned()),
            None => Ok(String::new()),
        }
    }

    /// The tables of a vector of tables.
    fn tables(&self, slot: usize) -> Result<Vec<Table<'a>>, IpcError> {
        let Some((p, n)) = self.vector(slot, 4)? else {
            return Ok(Vec::new());
        };
        (0..n)
            .map(|i| {
                let at = p + 4 * i;
                Table::at(self.buf, at + u32_at(self.buf, at)? as usize)
            })
            .collect()
    }

    /// A vector of structs of two i64 (FieldNode, Buffer).
    fn pairs(&self, slot: usize) -> Result<Vec<(i64, i64)>, IpcError> {
        let Some((p, n)) = self.vector(slot, 16)? else {
            return Ok(Vec::new());
        };
        (0..n)
            .map(|i| {
                Ok((
                    i64_at(self.buf, p + 16 * i)?,
                    i64_at(self.buf, p + 16 * i + 8)?,
                ))
            })
            .collect()
    }
}

// Slots of the tables read (`format/Message.fbs`, `format/Schema.fbs`; a union takes two slots,
// its type then its value).
const MESSAGE_HEADER_TYPE: usize = 1;
const MESSAGE_HEADER: usize = 2;
const MESSAGE_BODY_LENGTH: usize = 3;
const HEADER_SCHEMA: u8 = 1;
const HEADER_DICTIONARY_BATCH: u8 = 2;
const HEADER_RECORD_BATCH: u8 = 3;
const SCHEMA_ENDIANNESS: usize = 0;
const SCHEMA_FIELDS: usize = 1;
const FIELD_NAME: usize = 0;
const FIELD_TYPE_TYPE: usize = 2;
const FIELD_TYPE: usize = 3;
const FIELD_DICTIONARY: usize = 4;
const FIELD_CHILDREN: usize = 5;
const BATCH_LENGTH: usize = 0;
const BATCH_NODES: usize = 1;
const BATCH_BUFFERS: usize = 2;
const BATCH_COMPRESSION: usize = 3;

/// The `Type` union's members (`Schema.fbs`).
fn arrow_type(code: u8, t: Option<Table<'_>>) -> Result<ArrowType, IpcError> {
    Ok(match code {
        1 => ArrowType::Null,
        2 => {
            let t = t.ok_or_else(|| IpcError("an Int type without its table".into()))?;
            let bits = t.i32(0, 0)?;
            if ![8, 16, 32, 64].contains(&bits) {
                return err(format!("an integer type of {bits} bits"));
            }
            ArrowType::Int {
                bits: bits as u8,
                signed: t.u8(1, 0)? != 0,
            }
        }
        3 => {
            let precision = t.map(|t| t.i16(0, 0)).transpose()?.unwrap_or(0);
            ArrowType::Float {
                bits: match precision {
                    0 => 16,
                    1 => 32,
                    _ => 64,
                },
            }
        }
        4 => ArrowType::Bytes {
            large: false,
            text: false,
        },
        5 => ArrowType::Bytes {
            large: false,
            text: true,
        },
        6 => ArrowType::Bool,
        7 => ArrowType::Fixed("decimal"),
        8 => ArrowType::Fixed("date"),
        9 => ArrowType::Fixed("time"),
        10 => ArrowType::Fixed("timestamp"),
        11 => ArrowType::Fixed("interval"),
        12 => ArrowType::List { large: false },
        13 => ArrowType::Struct,
        14 => ArrowType::Unsupported("union"),
        15 => ArrowType::Fixed("fixed_size_binary"),
        16 => {
            let n = t.map(|t| t.i32(0, 0)).transpose()?.unwrap_or(0);
            if n < 0 {
                return err(format!("a fixed-size list of {n} elements"));
            }
            ArrowType::FixedSizeList(n as i64)
        }
        17 => ArrowType::Map,
        18 => ArrowType::Fixed("duration"),
        19 => ArrowType::Bytes {
            large: true,
            text: false,
        },
        20 => ArrowType::Bytes {
            large: true,
            text: true,
        },
        21 => ArrowType::List { large: true },
        22 => ArrowType::Unsupported("run_end_encoded"),
        23 => ArrowType::Unsupported("binary_view"),
        24 => ArrowType::Unsupported("string_view"),
        25 | 26 => ArrowType::Unsupported("list_view"),
        other => return err(format!("an unknown type (union member {other})")),
    })
}

/// Reads a field and its children, numbering nodes and buffers in pre-order.
fn field(
    t: Table<'_>,
    depth: usize,
    next: &mut (usize, usize),
    count: &mut usize,
) -> Result<Field, IpcError> {
    *count += 1;
    if depth > MAX_DEPTH || *count > MAX_FIELDS {
        return err("the schema nests too deep or has too many fields");
    }
    let name = t.string(FIELD_NAME)?;
    let ty = arrow_type(t.u8(FIELD_TYPE_TYPE, 0)?, t.table(FIELD_TYPE)?)?;
    let dictionary = t.field(FIELD_DICTIONARY)?.is_some();
    let (node, buffer) = *next;
    let own = if dictionary { Some(2) } else { ty.buffers() };
    // After a type whose buffers cannot be counted, later fields cannot be located.
    next.0 += 1;
    next.1 = match own {
        Some(n) => next.1 + n,
        None => usize::MAX / 2,
    };
    let mut children = Vec::new();
    for c in t.tables(FIELD_CHILDREN)? {
        children.push(field(c, depth + 1, next, count)?);
    }
    Ok(Field {
        name,
        ty,
        dictionary,
        children,
        node,
        buffer,
    })
}

// ---------------------------------------------------------------------------------------------
// The stream.

/// One record batch: its row count and its body, with the nodes and buffers of its fields.
pub struct Batch<'a> {
    pub rows: usize,
    nodes: Vec<(i64, i64)>,
    buffers: Vec<(i64, i64)>,
    body: &'a [u8],
}

/// A column of a batch: its length and null count, and its buffers' bytes.
pub struct ColumnData<'a> {
    pub len: usize,
    pub null_count: usize,
    pub buffers: Vec<&'a [u8]>,
}

impl<'a> Batch<'a> {
    /// The node and buffers of `f`.
    pub fn column(&self, f: &Field) -> Result<ColumnData<'a>, IpcError> {
        let n = if f.dictionary {
            Some(2)
        } else {
            f.ty.buffers()
        };
        let Some(n) = n else {
            return err(format!(
                "column '{}' has type {}, which this reader does not read",
                f.name,
                f.ty.name()
            ));
        };
        let &(len, nulls) = self.nodes.get(f.node).ok_or_else(|| {
            IpcError(format!(
                "the record batch has no node for column '{}'",
                f.name
            ))
        })?;
        if len < 0 || nulls < 0 || nulls > len {
            return err(format!(
                "column '{}' claims {len} values of which {nulls} are null",
                f.name
            ));
        }
        let mut buffers = Vec::with_capacity(n);
        for i in 0..n {
            let &(off, blen) = f
                .buffer
                .checked_add(i)
                .and_then(|b| self.buffers.get(b))
                .ok_or_else(|| {
                    IpcError(format!(
                        "the record batch has no buffer for column '{}'",
                        f.name
                    ))
                })?;
            let range = usize::try_from(off)
                .ok()
                .zip(usize::try_from(blen).ok())
                .and_then(|(o, l)| self.body.get(o..o.checked_add(l)?));
            buffers.push(range.ok_or_else(|| {
                IpcError(format!(
                    "column '{}': a buffer of {blen} bytes at {off} lies outside the batch's {} bytes",
                    f.name,
                    self.body.len()
                ))
            })?);
        }
        Ok(ColumnData {
            len: len as usize,
            null_count: nulls as usize,
            buffers,
        })
    }
}

/// Reads a stream message by message; the body of the current batch is kept in one buffer.
pub struct StreamReader {
    input: Box<dyn Read>,
    /// Bytes the input still holds (the file's length less what was read): no claim beyond it
    /// is allocated.
    left: u64,
    pub fields: Vec<Field>,
    metadata: Vec<u8>,
    /// The body, as `u64`s so that every buffer (8-byte aligned in the body) is aligned.
    body: Vec<u64>,
    body_len: usize,
}

/// What the next message held.
enum Message {
    Schema(Vec<Field>),
    Batch {
        rows: i64,
        nodes: Vec<(i64, i64)>,
        buffers: Vec<(i64, i64)>,
        compressed: bool,
    },
    Other,
    End,
}

/// Opens a stream (or an IPC file) of `len` bytes and reads up to its schema.
pub fn open(mut input: impl Read + 'static, len: u64) -> Result<StreamReader, IpcError> {
    let mut left = len;
    let input: Box<dyn Read> = if len >= 8 {
        let mut head = [0u8; 8];
        input
            .read_exact(&mut head)
            .map_err(|e| IpcError(format!("cannot read: {e}")))?;
        if &head[..6] == b"ARROW1" {
            // The file format: its magic, then the stream (its footer is never reached).
            left -= 8;
            Box::new(input)
        } else {
            Box::new(std::io::Cursor::new(head).chain(input))
        }
    } else {
        Box::new(input)
    };
    let mut r = StreamReader {
        input,
        left,
        fields: Vec::new(),
        metadata: Vec::new(),
        body: Vec::new(),
        body_len: 0,
    };
    loop {
        match r.message()? {
            Message::Schema(fields) => {
                r.fields = fields;
                return Ok(r);
            }
            Message::End => return err("the stream ends before its schema"),
            Message::Batch { .. } => return err("a record batch comes before the schema"),
            Message::Other => {}
        }
    }
}

impl StreamReader {
    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), IpcError> {
        if buf.len() as u64 > self.left {
            return err(format!(
                "cut short: {} more bytes were expected, the file holds {}",
                buf.len(),
                self.left
            ));
        }
        self.input
            .read_exact(buf)
            .map_err(|e| IpcError(format!("cannot read: {e}")))?;
        self.left -= buf.len() as u64;
        Ok(())
    }

    /// The next message; its body is in `self.body`.
    fn message(&mut self) -> Result<Message, IpcError> {
        if self.left == 0 {
            // Writers close a stream with its end marker: without it the file was cut short
            // (possibly right between two messages).
            return err("the stream ends without its end-of-stream marker: the file is cut short");
        }
        let mut word = [0u8; 4];
        self.read_exact(&mut word)?;
        let mut len = u32::from_le_bytes(word);
        if len == u32::MAX {
            self.read_exact(&mut word)?;
            len = u32::from_le_bytes(word);
        }
        if len == 0 {
            return Ok(Message::End);
        }
        let len = u64::from(len);
        if len > MAX_METADATA || len > self.left {
            return err(format!(
                "a message claims {len} bytes of metadata; {} bytes are left in the file",
                self.left
            ));
        }
        let mut meta = std::mem::take(&mut self.metadata);
        meta.resize(len as usize, 0);
        let read = self.read_exact(&mut meta);
        self.metadata = meta;
        read?;
        let meta = &self.metadata;
        let m = Table::root(meta)?;
        let kind = m.u8(MESSAGE_HEADER_TYPE, 0)?;
        let body_len = m.i64(MESSAGE_BODY_LENGTH, 0)?;
        if body_len as u64 > MAX_BODY && body_len as u64 <= self.left {
            return err(format!(
                "a record batch of {body_len} bytes: more than the {MAX_BODY} bytes read at once"
            ));
        }
        if body_len < 0 || body_len as u64 > self.left {
            return err(format!(
                "a message claims a body of {body_len} bytes; {} bytes are left in the file",
                self.left
            ));
        }
        let header = m.table(MESSAGE_HEADER)?;
        let out = match (kind, header) {
            (HEADER_SCHEMA, Some(s)) => {
                if s.i16(SCHEMA_ENDIANNESS, 0)? != 0 {
                    return err("the stream is big-endian");
                }
                let mut next = (0, 0);
                let mut count = 0;
                let fields = s
                    .tables(SCHEMA_FIELDS)?
                    .into_iter()
                    .map(|f| field(f, 0, &mut next, &mut count))
                    .collect::<Result<Vec<_>, _>>()?;
                Message::Schema(fields)
            }
            (HEADER_RECORD_BATCH, Some(b)) => Message::Batch {
                rows: b.i64(BATCH_LENGTH, 0)?,
                nodes: b.pairs(BATCH_NODES)?,
                buffers: b.pairs(BATCH_BUFFERS)?,
                compressed: b.field(BATCH_COMPRESSION)?.is_some(),
            },
            (HEADER_SCHEMA | HEADER_RECORD_BATCH, None) => {
                return err("a message without its header")
            }
            (HEADER_DICTIONARY_BATCH, _) | (0, _) => Message::Other,
            (other, _) => return err(format!("an unexpected message (header type {other})")),
        };
        let words = (body_len as usize).div_ceil(8);
        self.body.clear();
        self.body.resize(words, 0);
        self.body_len = body_len as usize;
        let bytes = &mut as_bytes_mut(&mut self.body)[..body_len as usize];
        self.input
            .read_exact(bytes)
            .map_err(|e| IpcError(format!("cannot read a message body: {e}")))?;
        self.left -= body_len as u64;
        Ok(out)
    }

    /// The next record batch, or `None` at the end of the stream.
    pub fn next_batch(&mut self) -> Result<Option<Batch<'_>>, IpcError> {
        loop {
            match self.message()? {
                Message::End => return Ok(None),
                Message::Schema(_) => return err("a second schema in the stream"),
                Message::Other => {}
                Message::Batch {
                    rows,
                    nodes,
                    buffers,
                    compressed,
                } => {
                    if compressed {
                        return err("the record batches are compressed (LZ4/ZSTD body compression), which this reader does not read");
                    }
                    let rows = usize::try_from(rows)
                        .map_err(|_| IpcError(format!("a record batch of {rows} rows")))?;
                    return Ok(Some(Batch {
                        rows,
                        nodes,
                        buffers,
                        body: &as_bytes(&self.body)[..self.body_len],
                    }));
                }
            }
        }
    }
}

fn as_bytes(v: &[u64]) -> &[u8] {
    // SAFETY: u64 has no padding and any byte is a valid u8; the length is in bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), v.len() * 8) }
}

fn as_bytes_mut(v: &mut [u64]) -> &mut [u8] {
    // SAFETY: as `as_bytes`; every byte pattern is a valid u64.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast(), v.len() * 8) }
}
