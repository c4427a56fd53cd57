//! The byte side of the COCO reader: the file read in chunks, the top-level object's keys and
//! the three arrays walked with a small scanner, each element cut out whole (by its brackets
//! and strings) and handed to its record's parser (`super`); a file that is not JSON, or ends
//! early, is an LG602 finding naming the byte and line.

use super::tokens::{self, Cursor, Lenient, Slice};
use super::*;

/// The length of the JSON value at the start of `s` (after no whitespace), by its brackets and
/// strings only; `None` when `s` ends inside it. A scalar ends at the first delimiter.
fn value_len(s: &[u8]) -> Option<usize> {
    let mut c = Slice::new(s);
    match tokens::skip_lenient(&mut c, true) {
        Lenient::End { .. } => None,
        Lenient::Value | Lenient::NoValue(_) => Some(c.at),
    }
}

/// `s` with Python's `NaN`, `Infinity` and `-Infinity` outside strings written as `null`.
fn python_specials_as_null(s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let (mut in_str, mut esc, mut changed) = (false, false, false);
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if in_str {
            in_str = !tokens::string_byte(b, &mut esc);
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
    /// A read error met while the tokenizer asked for more bytes (it sees the end of input).
    io: Option<std::io::Error>,
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
            io: None,
        }
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
        tokens::ws(self);
        let b = Cursor::peek(self);
        self.io_error()?;
        Ok(b)
    }

    /// The read error the tokenizer met, if any.
    fn io_error(&mut self) -> Result<(), Fail> {
        self.io.take().map_or(Ok(()), |e| Err(Fail::Io(e)))
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
        let end = tokens::skip_lenient(self, false);
        self.io_error()?;
        match end {
            Lenient::Value | Lenient::End { complete: true } => Ok(()),
            Lenient::NoValue(b) => {
                Err(self.corrupt(format!("expected a value, found {}", shown_byte(b))))
            }
            Lenient::End { complete: false } => {
                Err(self.corrupt("the file ends inside a value: truncated"))
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

impl<R: Read> Cursor for Stream<R> {
    fn window(&mut self, n: usize) -> &[u8] {
        while self.buf.len() - self.pos < n && !self.eof {
            let need = n - (self.buf.len() - self.pos);
            if let Err(e) = self.fill(need) {
                if let Fail::Io(e) = e {
                    self.io = Some(e);
                }
                self.eof = true;
            }
        }
        &self.buf[self.pos..]
    }

    fn advance(&mut self, n: usize) {
        self.pos += n;
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
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
