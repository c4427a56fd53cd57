//! The one JSON tokenizer of the COCO reader, over a [`Cursor`]: the whole file in memory
//! ([`Slice`], the span scan that `labelguard fix` rewrites from) or the scan's chunked stream.
//!
//! * Strict ([`value`], [`object`], [`array`]): strings with their escapes,
//!   numbers, literals and nesting are checked as RFC 8259 has them, and the first error is a
//!   [`Syntax`] naming its byte. [`object`] and [`array`] hand each member or element to the
//!   caller, which reads it (and may record where it lies) or skips it with [`value`].
//! * Lenient ([`skip_lenient`]): brackets and strings only, for the scan, which parses each
//!   element with serde_json and needs only where a value ends (Python's `NaN` and `Infinity`,
//!   which `json.dump` writes, pass).

/// The deepest nesting the strict walk accepts (a real COCO file nests 5 deep; the limit
/// keeps the recursive walk's stack bounded on hostile input).
pub const MAX_DEPTH: usize = 256;

/// What a strict walk says of a file that ends early.
pub const TRUNCATED: &str = "the file ends early (truncated?)";

/// Where the bytes come from.
pub trait Cursor {
    /// The unconsumed bytes: at least `n` of them unless the input ends first (more are read
    /// when needed); empty at the end of the input.
    fn window(&mut self, n: usize) -> &[u8];
    /// Consumes `n` bytes of the window.
    fn advance(&mut self, n: usize);
    /// The input offset of the next byte.
    fn offset(&self) -> u64;
    /// The next byte, not consumed.
    fn peek(&mut self) -> Option<u8> {
        self.window(1).first().copied()
    }
}

/// A whole input in memory.
pub struct Slice<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Slice<'a> {
    pub fn new(bytes: &'a [u8]) -> Slice<'a> {
        Slice { bytes, at: 0 }
    }
}

impl Cursor for Slice<'_> {
    #[inline]
    fn window(&mut self, _n: usize) -> &[u8] {
        &self.bytes[self.at..]
    }
    #[inline]
    fn advance(&mut self, n: usize) {
        self.at += n;
    }
    #[inline]
    fn offset(&self) -> u64 {
        self.at as u64
    }
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }
}

/// Not JSON at byte `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Syntax {
    pub at: u64,
    pub what: String,
}

fn syntax(at: u64, what: impl Into<String>) -> Syntax {
    Syntax {
        at,
        what: what.into(),
    }
}

fn eof<C: Cursor>(c: &C) -> Syntax {
    syntax(c.offset(), TRUNCATED)
}

/// What a value is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Object,
    Array,
    String,
    Number { integer: bool },
    Literal,
}

pub fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Consumes whitespace.
pub fn ws<C: Cursor>(c: &mut C) {
    while let Some(b) = c.peek() {
        if !is_ws(b) {
            return;
        }
        c.advance(1);
    }
}

/// Consumes `want` after whitespace.
pub fn expect<C: Cursor>(c: &mut C, want: u8) -> Result<(), Syntax> {
    ws(c);
    match c.peek() {
        Some(x) if x == want => {
            c.advance(1);
            Ok(())
        }
        Some(x) => Err(syntax(
            c.offset(),
            format!("expected '{}', found '{}'", want as char, x.escape_ascii()),
        )),
        None => Err(eof(c)),
    }
}

/// One value of any kind, checked and consumed; `depth` is the nesting around it.
pub fn value<C: Cursor>(c: &mut C, depth: usize) -> Result<Kind, Syntax> {
    ws(c);
    let first = c.peek();
    value_at(c, first, depth)
}

/// [`value`] after its whitespace, `first` being the byte at the cursor.
pub fn value_at<C: Cursor>(c: &mut C, first: Option<u8>, depth: usize) -> Result<Kind, Syntax> {
    match first {
        Some(b'{') => {
            object(c, depth, |c, _, d| value(c, d).map(drop))?;
            Ok(Kind::Object)
        }
        Some(b'[') => {
            array(c, depth, |c, _, d| value(c, d).map(drop))?;
            Ok(Kind::Array)
        }
        _ => scalar(c, first),
    }
}

/// A string, number or literal at the cursor (after whitespace), `first` being its first byte.
fn scalar<C: Cursor>(c: &mut C, first: Option<u8>) -> Result<Kind, Syntax> {
    match first {
        None => Err(eof(c)),
        Some(b'"') => string(c).map(|()| Kind::String),
        Some(b'-' | b'0'..=b'9') => number(c),
        Some(b't') => literal(c, b"true"),
        Some(b'f') => literal(c, b"false"),
        Some(b'n') => literal(c, b"null"),
        Some(x) => Err(syntax(
            c.offset(),
            format!("unexpected '{}'", x.escape_ascii()),
        )),
    }
}

fn nest<C: Cursor>(c: &C, depth: usize) -> Result<usize, Syntax> {
    if depth + 1 > MAX_DEPTH {
        return Err(syntax(
            c.offset(),
            format!("nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    Ok(depth + 1)
}

/// The object at the cursor (at its `{`): `member(cursor, key span, depth)` reads each value.
pub fn object<C: Cursor, E: From<Syntax>>(
    c: &mut C,
    depth: usize,
    mut member: impl FnMut(&mut C, (u64, u64), usize) -> Result<(), E>,
) -> Result<(), E> {
    let depth = nest(c, depth)?;
    c.advance(1);
    ws(c);
    if c.peek() == Some(b'}') {
        c.advance(1);
        return Ok(());
    }
    loop {
        ws(c);
        match c.peek() {
            Some(b'"') => {}
            None => return Err(eof(c).into()),
            Some(_) => return Err(syntax(c.offset(), "expected a key").into()),
        }
        let start = c.offset();
        string(c)?;
        let key = (start, c.offset());
        expect(c, b':')?;
        member(c, key, depth)?;
        ws(c);
        match c.peek() {
            Some(b',') => c.advance(1),
            Some(b'}') => {
                c.advance(1);
                return Ok(());
            }
            None => return Err(eof(c).into()),
            Some(_) => return Err(syntax(c.offset(), "expected ',' or '}'").into()),
        }
    }
}

/// The array at the cursor (at its `[`): `element(cursor, index, depth)` reads each element.
pub fn array<C: Cursor, E: From<Syntax>>(
    c: &mut C,
    depth: usize,
    mut element: impl FnMut(&mut C, usize, usize) -> Result<(), E>,
) -> Result<(), E> {
    let depth = nest(c, depth)?;
    c.advance(1);
    ws(c);
    if c.peek() == Some(b']') {
        c.advance(1);
        return Ok(());
    }
    let mut index = 0usize;
    loop {
        element(c, index, depth)?;
        index += 1;
        ws(c);
        match c.peek() {
            Some(b',') => c.advance(1),
            Some(b']') => {
                c.advance(1);
                return Ok(());
            }
            None => return Err(eof(c).into()),
            Some(_) => return Err(syntax(c.offset(), "expected ',' or ']'").into()),
        }
    }
}

/// The literal `word` at the cursor.
fn literal<C: Cursor>(c: &mut C, word: &[u8]) -> Result<Kind, Syntax> {
    let w = c.window(word.len());
    if w.len() < word.len() && w.iter().zip(word).all(|(a, b)| a == b) {
        let n = w.len();
        c.advance(n);
        return Err(eof(c));
    }
    if !w.starts_with(word) {
        return Err(syntax(c.offset(), "not a JSON value"));
    }
    c.advance(word.len());
    Ok(Kind::Literal)
}

/// A string at its opening quote; leaves the cursor after the closing quote.
pub fn string<C: Cursor>(c: &mut C) -> Result<(), Syntax> {
    c.advance(1);
    loop {
        let rest = c.window(1);
        if rest.is_empty() {
            return Err(eof(c));
        }
        let Some(k) = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        else {
            let n = rest.len();
            c.advance(n);
            continue;
        };
        let b = rest[k];
        c.advance(k);
        match b {
            b'"' => {
                c.advance(1);
                return Ok(());
            }
            b'\\' => escape(c)?,
            _ => return Err(syntax(c.offset(), "control character in a string")),
        }
    }
}

/// The escape at the cursor (at its backslash).
fn escape<C: Cursor>(c: &mut C) -> Result<(), Syntax> {
    let w = c.window(6);
    let Some(&e) = w.get(1) else {
        let n = w.len();
        c.advance(n);
        return Err(eof(c));
    };
    match e {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => c.advance(2),
        b'u' => match w.get(2..6) {
            None => {
                let n = w.len();
                c.advance(n);
                return Err(eof(c));
            }
            Some(h) if h.iter().all(u8::is_ascii_hexdigit) => c.advance(6),
            Some(_) => return Err(syntax(c.offset(), "bad \\u escape")),
        },
        _ => return Err(syntax(c.offset(), "bad escape in a string")),
    }
    Ok(())
}

fn digits<C: Cursor>(c: &mut C) -> usize {
    let mut n = 0;
    while let Some(b'0'..=b'9') = c.peek() {
        c.advance(1);
        n += 1;
    }
    n
}

/// A number at the cursor.
pub fn number<C: Cursor>(c: &mut C) -> Result<Kind, Syntax> {
    let start = c.offset();
    let bad = |c: &mut C| {
        if c.peek().is_none() {
            eof(c)
        } else {
            syntax(start, "a malformed number")
        }
    };
    if c.peek() == Some(b'-') {
        c.advance(1);
    }
    let first = c.peek();
    let n = digits(c);
    if n == 0 {
        return Err(bad(c));
    }
    if first == Some(b'0') && n > 1 {
        return Err(syntax(start, "a number with a leading zero"));
    }
    let mut integer = true;
    if c.peek() == Some(b'.') {
        c.advance(1);
        integer = false;
        if digits(c) == 0 {
            return Err(bad(c));
        }
    }
    if let Some(b'e' | b'E') = c.peek() {
        c.advance(1);
        integer = false;
        if let Some(b'+' | b'-') = c.peek() {
            c.advance(1);
        }
        if digits(c) == 0 {
            return Err(bad(c));
        }
    }
    Ok(Kind::Number { integer })
}

/// One byte inside a string, after its opening quote: true when it is the closing quote
/// (`esc`: the byte before was an unpaired backslash).
pub fn string_byte(b: u8, esc: &mut bool) -> bool {
    if *esc {
        *esc = false;
        false
    } else if b == b'\\' {
        *esc = true;
        false
    } else {
        b == b'"'
    }
}

/// How a lenient skip ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lenient {
    /// After a value: its closing bracket or quote is consumed, or the cursor is at what ends
    /// a scalar (whitespace, or a delimiter, not consumed).
    Value,
    /// At a delimiter (`,`, `]`, `}`; `:` when asked) before any value: not consumed.
    NoValue(u8),
    /// The input ended; `complete` when it ended after a whole value.
    End { complete: bool },
}

/// Skips the value at the cursor (after whitespace) by its brackets and strings only: a
/// scalar is whatever runs to the next delimiter or whitespace. `colon_ends`: a `:` outside
/// brackets ends it too.
pub fn skip_lenient<C: Cursor>(c: &mut C, colon_ends: bool) -> Lenient {
    let (mut depth, mut in_str, mut esc, mut started) = (0usize, false, false, false);
    loop {
        let w = c.window(1);
        if w.is_empty() {
            return Lenient::End {
                complete: depth == 0 && !in_str && started,
            };
        }
        let mut used = 0;
        for &b in w {
            used += 1;
            if in_str {
                if string_byte(b, &mut esc) {
                    in_str = false;
                    if depth == 0 {
                        c.advance(used);
                        return Lenient::Value;
                    }
                }
                continue;
            }
            match b {
                b'"' => in_str = true,
                b'[' | b'{' => depth += 1,
                b']' | b'}' | b',' if depth == 0 => {
                    c.advance(used - 1);
                    return if started {
                        Lenient::Value
                    } else {
                        Lenient::NoValue(b)
                    };
                }
                b':' if depth == 0 && colon_ends => {
                    c.advance(used - 1);
                    return if started {
                        Lenient::Value
                    } else {
                        Lenient::NoValue(b)
                    };
                }
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        c.advance(used);
                        return Lenient::Value;
                    }
                }
                b if depth == 0 && is_ws(b) && started => {
                    c.advance(used - 1);
                    return Lenient::Value;
                }
                _ => {}
            }
            started = true;
        }
        c.advance(used);
    }
}
