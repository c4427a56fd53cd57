//! COCO instances JSON, streamed: the file is read in large chunks, the top-level object's keys
//! are walked with a small byte scanner, and each element of `images`, `annotations` and
//! `categories` is parsed on its own with `serde_json` into a compact record that is handed to
//! a [`Sink`] at once. Nothing but the current chunk and the element being parsed is held, so a
//! 450 MB `instances_train2017.json` is read in a few megabytes; the top-level keys may come in
//! any order (the sink decides what to keep until the others are known).
//!
//! An element whose fields have the wrong types is parsed again as a plain JSON value and
//! reported field by field ([`Annotation::problems`]); Python's `NaN` and `Infinity` (which
//! `json.dump` writes by default, and `json.load` reads back) are read as non-finite numbers.
//! A file that is not JSON, or ends early, is an LG602 finding naming the byte and line.

use crate::checks::lg602_corrupt_file;
use labelguard_core::Finding;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::io::Read;

/// How much is read at a time.
const CHUNK: usize = 8 << 20;
/// The largest single element (one image, annotation or category) read: a real one is at most
/// a few megabytes (a crowd RLE with uncompressed counts of a large image).
pub const MAX_ELEMENT: usize = 256 << 20;

/// The three arrays of a COCO file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Images,
    Annotations,
    Categories,
}

impl Section {
    pub fn key(self) -> &'static str {
        match self {
            Section::Images => "images",
            Section::Annotations => "annotations",
            Section::Categories => "categories",
        }
    }
}

/// A `bbox`: its numbers as written (the first four kept), how many there are and whether all
/// are finite numbers (`NaN`, `Infinity` and `null` are not).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bbox {
    pub values: [f64; 4],
    pub len: usize,
    pub finite: bool,
}

/// What a `segmentation` holds, reduced to what is checked: the bounds of its polygons' points
/// (min x, min y, max x, max y) or an RLE's `size` (`[height, width]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Segmentation {
    Polygons {
        /// `None` when no polygon has a point.
        bounds: Option<[f64; 4]>,
        /// A polygon with an odd number of coordinates, or one that is not finite.
        odd: bool,
    },
    Rle {
        size: Option<[f64; 2]>,
    },
}

/// One `images` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Image {
    pub id: Option<i64>,
    pub file_name: Option<String>,
    pub width: Option<f64>,
    pub height: Option<f64>,
    /// Fields present with a wrong type (`("width", "invalid type: ...")`), or `("", "is not
    /// an object")`.
    pub problems: Vec<(&'static str, String)>,
}

/// One `annotations` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Annotation {
    pub id: Option<i64>,
    pub image_id: Option<i64>,
    pub category_id: Option<i64>,
    pub bbox: Option<Bbox>,
    pub iscrowd: bool,
    pub segmentation: Option<Segmentation>,
    pub problems: Vec<(&'static str, String)>,
}

/// One `categories` entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Category {
    pub id: Option<i64>,
    pub name: Option<String>,
    pub problems: Vec<(&'static str, String)>,
}

/// What the reader hands on, element by element, in the file's order.
pub trait Sink {
    fn image(&mut self, index: usize, image: Image);
    fn annotation(&mut self, index: usize, annotation: Annotation);
    fn category(&mut self, index: usize, category: Category);
    /// The whole array of `section` has been read.
    fn section_done(&mut self, section: Section);
    /// A top-level key of `section` whose value is not an array.
    fn not_an_array(&mut self, section: Section);
}

// ---------------------------------------------------------------------------------------------
// The records as serde reads them (the fast path).

#[derive(serde::Deserialize)]
struct RawImage {
    id: Option<i64>,
    file_name: Option<String>,
    width: Option<Dim>,
    height: Option<Dim>,
}

#[derive(serde::Deserialize)]
struct RawAnnotation {
    id: Option<i64>,
    image_id: Option<i64>,
    category_id: Option<i64>,
    bbox: Option<Bbox>,
    iscrowd: Option<Flag>,
    segmentation: Option<Segmentation>,
}

#[derive(serde::Deserialize)]
struct RawCategory {
    id: Option<i64>,
    name: Option<String>,
}

/// A width or height: a number (an integer in every real file).
struct Dim(f64);

impl<'de> Deserialize<'de> for Dim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dim, D::Error> {
        f64::deserialize(d).map(Dim)
    }
}

/// `iscrowd`: 0/1, or a boolean.
struct Flag(bool);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Flag, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("0 or 1")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Flag, E> {
                Ok(Flag(v != 0))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Flag, E> {
                Ok(Flag(v != 0))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Flag, E> {
                Ok(Flag(v != 0.0))
            }
        }
        d.deserialize_any(V)
    }
}

/// A number, or `null` (a `NaN`/`Infinity` read back): `None` for a value that is not finite.
struct MaybeNum(Option<f64>);

impl<'de> Deserialize<'de> for MaybeNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<MaybeNum, D::Error> {
        Option::<f64>::deserialize(d).map(|v| MaybeNum(v.filter(|x| x.is_finite())))
    }
}

impl<'de> Deserialize<'de> for Bbox {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bbox, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Bbox;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of 4 numbers")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Bbox, A::Error> {
                let mut b = Bbox {
                    finite: true,
                    ..Bbox::default()
                };
                while let Some(MaybeNum(v)) = s.next_element()? {
                    if b.len < 4 {
                        b.values[b.len] = v.unwrap_or(f64::NAN);
                    }
                    b.finite &= v.is_some();
                    b.len += 1;
                }
                Ok(b)
            }
        }
        d.deserialize_seq(V)
    }
}

/// One polygon's points, folded into bounds.
struct Polygon {
    bounds: Option<[f64; 4]>,
    odd: bool,
}

impl<'de> Deserialize<'de> for Polygon {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Polygon, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Polygon;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a polygon (a list of x, y numbers)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Polygon, A::Error> {
                let mut p = Polygon {
                    bounds: None,
                    odd: false,
                };
                let mut n = 0usize;
                let mut x = 0.0;
                while let Some(MaybeNum(v)) = s.next_element()? {
                    let Some(v) = v else {
                        p.odd = true;
                        n += 1;
                        continue;
                    };
                    if n.is_multiple_of(2) {
                        x = v;
                    } else {
                        let b = p.bounds.get_or_insert([x, v, x, v]);
                        b[0] = b[0].min(x);
                        b[1] = b[1].min(v);
                        b[2] = b[2].max(x);
                        b[3] = b[3].max(v);
                    }
                    n += 1;
                }
                p.odd |= n % 2 == 1;
                Ok(p)
            }
        }
        d.deserialize_seq(V)
    }
}

fn merge(a: Option<[f64; 4]>, b: Option<[f64; 4]>) -> Option<[f64; 4]> {
    match (a, b) {
        (Some(a), Some(b)) => Some([
            a[0].min(b[0]),
            a[1].min(b[1]),
            a[2].max(b[2]),
            a[3].max(b[3]),
        ]),
        (a, b) => a.or(b),
    }
}

impl<'de> Deserialize<'de> for Segmentation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Segmentation, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Segmentation;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of polygons or an RLE object {size, counts}")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Segmentation, A::Error> {
                let (mut bounds, mut odd) = (None, false);
                while let Some(p) = s.next_element::<Polygon>()? {
                    bounds = merge(bounds, p.bounds);
                    odd |= p.odd;
                }
                Ok(Segmentation::Polygons { bounds, odd })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Segmentation, A::Error> {
                let mut size = None;
                while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                    if k == "size" {
                        let v: Vec<f64> = m.next_value()?;
                        if v.len() != 2 {
                            return Err(de::Error::custom(format!(
                                "an RLE's size has {} numbers, not 2 ([height, width])",
                                v.len()
                            )));
                        }
                        size = Some([v[0], v[1]]);
                    } else {
                        m.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Segmentation::Rle { size })
            }
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------
// The slow path: an element whose fields do not have COCO's types, read field by field.

/// `field` of the object `v` read as `T`; a present field of another type is a problem.
fn field<T: serde::de::DeserializeOwned>(
    v: &serde_json::Value,
    name: &'static str,
    problems: &mut Vec<(&'static str, String)>,
) -> Option<T> {
    let f = v.get(name)?;
    if f.is_null() && name != "bbox" {
        return None;
    }
    match T::deserialize(f) {
        Ok(t) => Some(t),
        Err(e) => {
            problems.push((name, short_error(&e.to_string())));
            None
        }
    }
}

fn short_error(e: &str) -> String {
    labelguard_core::clip::echo(e.split(" at line ").next().unwrap_or(e)).to_string()
}

fn image_from(v: &serde_json::Value) -> Image {
    let mut p = Vec::new();
    if !v.is_object() {
        return Image {
            problems: vec![("", "is not an object".into())],
            ..Image::default()
        };
    }
    Image {
        id: field(v, "id", &mut p),
        file_name: field(v, "file_name", &mut p),
        width: field::<Dim>(v, "width", &mut p).map(|d| d.0),
        height: field::<Dim>(v, "height", &mut p).map(|d| d.0),
        problems: p,
    }
}

fn annotation_from(v: &serde_json::Value) -> Annotation {
    let mut p = Vec::new();
    if !v.is_object() {
        return Annotation {
            problems: vec![("", "is not an object".into())],
            ..Annotation::default()
        };
    }
    Annotation {
        id: field(v, "id", &mut p),
        image_id: field(v, "image_id", &mut p),
        category_id: field(v, "category_id", &mut p),
        bbox: field(v, "bbox", &mut p),
        iscrowd: field::<Flag>(v, "iscrowd", &mut p).is_some_and(|f| f.0),
        segmentation: field(v, "segmentation", &mut p),
        problems: p,
    }
}

fn category_from(v: &serde_json::Value) -> Category {
    let mut p = Vec::new();
    if !v.is_object() {
        return Category {
            problems: vec![("", "is not an object".into())],
            ..Category::default()
        };
    }
    Category {
        id: field(v, "id", &mut p),
        name: field(v, "name", &mut p),
        problems: p,
    }
}

impl From<RawImage> for Image {
    fn from(r: RawImage) -> Image {
        Image {
            id: r.id,
            file_name: r.file_name,
            width: r.width.map(|d| d.0),
            height: r.height.map(|d| d.0),
            problems: Vec::new(),
        }
    }
}

impl From<RawAnnotation> for Annotation {
    fn from(r: RawAnnotation) -> Annotation {
        Annotation {
            id: r.id,
            image_id: r.image_id,
            category_id: r.category_id,
            bbox: r.bbox,
            iscrowd: r.iscrowd.is_some_and(|f| f.0),
            segmentation: r.segmentation,
            problems: Vec::new(),
        }
    }
}

impl From<RawCategory> for Category {
    fn from(r: RawCategory) -> Category {
        Category {
            id: r.id,
            name: r.name,
            problems: Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Byte scanning.

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The length of the JSON value at the start of `s` (after no whitespace), by its brackets and
/// strings only; `None` when `s` ends inside it. A scalar ends at the first delimiter.
fn value_len(s: &[u8]) -> Option<usize> {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for (i, &b) in s.iter().enumerate() {
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth == 0 => return Some(i),
            b']' | b'}' => {
                if depth == 1 {
                    return Some(i + 1);
                }
                depth -= 1;
            }
            b',' | b':' if depth == 0 => return Some(i),
            b if depth == 0 && is_ws(b) => return Some(i),
            _ => {}
        }
    }
    None
}

/// `s` with Python's `NaN`, `Infinity` and `-Infinity` outside strings written as `null`.
fn python_specials_as_null(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let (mut in_str, mut esc, mut changed) = (false, false, false);
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
            }
            out.push(b);
            i += 1;
            continue;
        }
        let rest = &s[i..];
        let word = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|w| rest.starts_with(w));
        if let Some(w) = word {
            out.extend_from_slice(b"null");
            i += w.len();
            changed = true;
            continue;
        }
        in_str = b == b'"';
        out.push(b);
        i += 1;
    }
    changed.then_some(out)
}

/// 1-based (line, column) of byte `at` of `s`.
fn line_col(s: &[u8], at: usize) -> (u64, u64) {
    let before = &s[..at.min(s.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let col = before.iter().rev().take_while(|&&b| b != b'\n').count() as u64 + 1;
    (line, col)
}

/// The byte offset within `s` of serde's 1-based (line, column).
fn offset_of(s: &[u8], line: usize, column: usize) -> usize {
    let mut l = 1;
    let mut start = 0;
    if line > 1 {
        for (i, &b) in s.iter().enumerate() {
            if b == b'\n' {
                l += 1;
                if l == line {
                    start = i + 1;
                    break;
                }
            }
        }
    }
    (start + column.saturating_sub(1)).min(s.len())
}

// ---------------------------------------------------------------------------------------------
// The stream.

enum Fail {
    /// The bytes are not JSON, or not COCO's outline, at file offset `at`.
    Corrupt {
        at: u64,
        what: String,
    },
    Io(std::io::Error),
}

struct Stream<R> {
    r: R,
    buf: Vec<u8>,
    pos: usize,
    /// File offset of `buf[0]`.
    base: u64,
    /// Newlines before `buf[0]`.
    lines: u64,
    eof: bool,
    /// How much the next read asks for at least: 64 KiB first (a small file costs no large
    /// buffer), doubling up to [`CHUNK`].
    chunk: usize,
}

impl<R: Read> Stream<R> {
    fn new(r: R) -> Stream<R> {
        Stream {
            r,
            buf: Vec::new(),
            pos: 0,
            base: 0,
            lines: 0,
            eof: false,
            chunk: 64 << 10,
        }
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Drops the consumed bytes and reads at least `want` more (fewer at the end of the file).
    /// Returns false at the end of the file.
    fn fill(&mut self, want: usize) -> Result<bool, Fail> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.lines += self.buf[..self.pos].iter().filter(|&&b| b == b'\n').count() as u64;
            self.base += self.pos as u64;
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        let want = want.max(self.chunk);
        self.chunk = (self.chunk * 2).min(CHUNK);
        self.buf.reserve(want);
        // `read_to_end` fills the spare capacity without zeroing it first.
        let got = (&mut self.r)
            .take(want as u64)
            .read_to_end(&mut self.buf)
            .map_err(Fail::Io)?;
        if got < want {
            self.eof = true;
        }
        Ok(got > 0)
    }

    /// The next byte that is not whitespace, without consuming it; `None` at the end.
    fn peek(&mut self) -> Result<Option<u8>, Fail> {
        loop {
            while self.pos < self.buf.len() {
                let b = self.buf[self.pos];
                if !is_ws(b) {
                    return Ok(Some(b));
                }
                self.pos += 1;
            }
            if !self.fill(0)? {
                return Ok(None);
            }
        }
    }

    fn corrupt(&self, what: impl Into<String>) -> Fail {
        Fail::Corrupt {
            at: self.offset(),
            what: what.into(),
        }
    }

    /// Consumes `want` (after whitespace), or fails saying what was `expected`.
    fn expect(&mut self, want: u8, expected: &str) -> Result<(), Fail> {
        match self.peek()? {
            Some(b) if b == want => {
                self.pos += 1;
                Ok(())
            }
            Some(b) => Err(self.corrupt(format!("expected {expected}, found {}", shown_byte(b)))),
            None => Err(self.corrupt(format!("the file ends where {expected} was expected"))),
        }
    }

    /// Parses the value at the current position as `T`; on a type error (the bytes are JSON
    /// but not `T`), as a plain value handed to `slow`. Python's NaN/Infinity are read as null.
    fn element<T, U>(
        &mut self,
        fast: impl Fn(T) -> U,
        slow: impl Fn(&serde_json::Value) -> U,
    ) -> Result<U, Fail>
    where
        T: serde::de::DeserializeOwned,
    {
        let mut want: usize = 64 << 10;
        loop {
            if self.eof && self.pos >= self.buf.len() {
                return self.slow_element(slow);
            }
            let s = &self.buf[self.pos..];
            let mut it = serde_json::Deserializer::from_slice(s).into_iter::<T>();
            let res = it.next();
            let used = it.byte_offset();
            match res {
                Some(Ok(v)) if used < s.len() || self.eof => {
                    self.pos += used;
                    return Ok(fast(v));
                }
                Some(Err(e)) if !e.is_eof() || self.eof => {
                    return self.slow_element(slow);
                }
                _ => {}
            }
            if s.len() >= MAX_ELEMENT {
                return Err(self.corrupt(format!(
                    "an element of more than {MAX_ELEMENT} bytes (a bracket left open?)"
                )));
            }
            let grow = want;
            want = want.saturating_mul(2);
            if !self.fill(grow)? {
                return self.slow_element(slow);
            }
        }
    }

    fn slow_element<U>(&mut self, slow: impl Fn(&serde_json::Value) -> U) -> Result<U, Fail> {
        loop {
            let s = &self.buf[self.pos..];
            let len = match value_len(s) {
                Some(n) => Some(n),
                None if self.eof => Some(s.len()),
                None => None,
            };
            if let Some(n) = len {
                let slice = &s[..n];
                let parsed = serde_json::from_slice::<serde_json::Value>(slice).or_else(|e| {
                    python_specials_as_null(slice)
                        .and_then(|t| serde_json::from_slice::<serde_json::Value>(&t).ok())
                        .ok_or(e)
                });
                return match parsed {
                    Ok(v) => {
                        self.pos += n;
                        Ok(slow(&v))
                    }
                    Err(e) => {
                        let at = offset_of(slice, e.line(), e.column());
                        let what = if e.is_eof() {
                            "the file ends inside an element: truncated".to_string()
                        } else {
                            short_error(&e.to_string())
                        };
                        self.pos += at;
                        Err(self.corrupt(what))
                    }
                };
            }
            if s.len() >= MAX_ELEMENT {
                return Err(self.corrupt(format!(
                    "an element of more than {MAX_ELEMENT} bytes (a bracket left open?)"
                )));
            }
            let grow = s.len().max(64 << 10);
            self.fill(grow)?;
        }
    }

    /// Skips the value at the current position without keeping it.
    fn skip_value(&mut self) -> Result<(), Fail> {
        let (mut depth, mut in_str, mut esc, mut started) = (0usize, false, false, false);
        loop {
            while self.pos < self.buf.len() {
                let b = self.buf[self.pos];
                self.pos += 1;
                if in_str {
                    if esc {
                        esc = false;
                    } else if b == b'\\' {
                        esc = true;
                    } else if b == b'"' {
                        in_str = false;
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                    continue;
                }
                match b {
                    b'"' => in_str = true,
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' if depth == 0 => {
                        self.pos -= 1;
                        return if started {
                            Ok(())
                        } else {
                            Err(self.corrupt(format!("expected a value, found {}", shown_byte(b))))
                        };
                    }
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(());
                        }
                    }
                    b',' if depth == 0 => {
                        self.pos -= 1;
                        return if started {
                            Ok(())
                        } else {
                            Err(self.corrupt("expected a value, found ','"))
                        };
                    }
                    b if depth == 0 && is_ws(b) && started => return Ok(()),
                    _ => {}
                }
                started = true;
            }
            if !self.fill(0)? {
                return if depth == 0 && !in_str && started {
                    Ok(())
                } else {
                    Err(self.corrupt("the file ends inside a value: truncated"))
                };
            }
        }
    }

    /// Reads a key (a string, short).
    fn key(&mut self) -> Result<String, Fail> {
        match self.peek()? {
            Some(b'"') => {}
            Some(b) => {
                return Err(self.corrupt(format!(
                    "expected a key (a string), found {}",
                    shown_byte(b)
                )))
            }
            None => return Err(self.corrupt("the file ends where a key was expected: truncated")),
        }
        self.element::<String, String>(|s| s, |_| String::new())
    }
}

fn shown_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// Reads a COCO file from `r`, handing every element to `sink`. A file that is not JSON (or
/// not a JSON object), or is cut short, gives the LG602 finding; an I/O error the error.
pub fn read_coco<R: Read>(r: R, sink: &mut dyn Sink) -> Result<(), ReadError> {
    let mut st = Stream::new(r);
    match walk(&mut st, sink) {
        Ok(()) => Ok(()),
        Err(Fail::Io(e)) => Err(ReadError::Io(e)),
        Err(Fail::Corrupt { at, what }) => {
            let (line, _) = line_col(&st.buf, (at - st.base) as usize);
            Err(ReadError::Corrupt(lg602_corrupt_file::corrupt_text(
                "COCO JSON",
                &format!("{what} (at byte {at}, line {})", st.lines + line),
            )))
        }
    }
}

/// Why a COCO file could not be read to its end.
pub enum ReadError {
    /// Not JSON, or cut short: the LG602 finding.
    Corrupt(Finding),
    Io(std::io::Error),
}

fn walk<R: Read>(st: &mut Stream<R>, sink: &mut dyn Sink) -> Result<(), Fail> {
    st.fill(0)?;
    if st.buf.starts_with("\u{feff}".as_bytes()) {
        st.pos = 3;
    }
    match st.peek()? {
        Some(b'{') => st.pos += 1,
        Some(b) => {
            return Err(st.corrupt(format!(
                "expected a JSON object ('{{'), found {}",
                shown_byte(b)
            )))
        }
        None => return Err(st.corrupt("holds only whitespace, no JSON object")),
    }
    if st.peek()? == Some(b'}') {
        st.pos += 1;
    } else {
        loop {
            let key = st.key()?;
            st.expect(b':', "':' after a key")?;
            let next = st.peek()?;
            let section = match key.as_str() {
                "images" => Some(Section::Images),
                "annotations" => Some(Section::Annotations),
                "categories" => Some(Section::Categories),
                _ => None,
            };
            match section {
                Some(s) if next == Some(b'[') => {
                    st.pos += 1;
                    array(st, s, sink)?;
                    sink.section_done(s);
                }
                Some(s) => {
                    sink.not_an_array(s);
                    st.skip_value()?;
                }
                None => st.skip_value()?,
            }
            match st.peek()? {
                Some(b',') => st.pos += 1,
                Some(b'}') => {
                    st.pos += 1;
                    break;
                }
                Some(b) => {
                    return Err(st.corrupt(format!(
                        "expected ',' or '}}' after the value of \"{}\", found {}",
                        labelguard_core::clip::echo(&key),
                        shown_byte(b)
                    )))
                }
                None => {
                    return Err(st.corrupt(format!(
                        "the file ends after the value of \"{}\": truncated",
                        labelguard_core::clip::echo(&key)
                    )))
                }
            }
        }
    }
    match st.peek()? {
        None => Ok(()),
        Some(b) => Err(st.corrupt(format!(
            "data after the end of the JSON object ({})",
            shown_byte(b)
        ))),
    }
}

fn array<R: Read>(st: &mut Stream<R>, section: Section, sink: &mut dyn Sink) -> Result<(), Fail> {
    if st.peek()? == Some(b']') {
        st.pos += 1;
        return Ok(());
    }
    let mut i = 0usize;
    loop {
        if st.peek()?.is_none() {
            return Err(st.corrupt(format!(
                "the file ends inside \"{}\" after {i} elements: truncated",
                section.key()
            )));
        }
        match section {
            Section::Images => {
                let e = st.element::<RawImage, Image>(Image::from, image_from)?;
                sink.image(i, e);
            }
            Section::Annotations => {
                let e =
                    st.element::<RawAnnotation, Annotation>(Annotation::from, annotation_from)?;
                sink.annotation(i, e);
            }
            Section::Categories => {
                let e = st.element::<RawCategory, Category>(Category::from, category_from)?;
                sink.category(i, e);
            }
        }
        i += 1;
        match st.peek()? {
            Some(b',') => st.pos += 1,
            Some(b']') => {
                st.pos += 1;
                return Ok(());
            }
            Some(b) => {
                return Err(st.corrupt(format!(
                    "expected ',' or ']' after {}[{}], found {}",
                    section.key(),
                    i - 1,
                    shown_byte(b)
                )))
            }
            None => {
                return Err(st.corrupt(format!(
                    "the file ends inside \"{}\" after {i} elements: truncated",
                    section.key()
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests;
