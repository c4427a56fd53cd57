//! A restricted pickle reader: the values of a pickle (protocols 0-5) built as plain data,
//! never executed. Classes and functions (`GLOBAL`, `STACK_GLOBAL`) become a [`Value::Global`]
//! naming them; calling one (`REDUCE`, `NEWOBJ`, `BUILD`) becomes a [`Value::Object`] that
//! records the call and its state, so that a NumPy array in a CIFAR batch is read past, and a
//! malicious pickle does nothing. Used for nanoGPT's `meta.pkl` (`vocab_size`, `itos`, `stoi`)
//! and the CIFAR-10/100 python batches (`labels`, `fine_labels`).
//!
//! The opcodes and their operands are those of CPython's `Lib/pickletools.py` (the
//! documentation of the format) and `Lib/pickle.py`'s `_Unpickler`. Python 2 strings
//! (`STRING`, `BINSTRING`, `SHORT_BINSTRING`) are decoded as Latin-1, as torchvision's CIFAR
//! loader asks (`pickle.load(f, encoding="latin1")`, torchvision `datasets/cifar.py`).
//!
//! Memo entries are copies, not shared references: a container memoized and then changed
//! would read stale through `GET`. The pickler memoizes a container when it is created
//! (empty) and writes each object once, so the dict shapes read here never meet this.

use std::rc::Rc;

/// A value of a pickle.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    /// An integer beyond i64 (kept only as its size in bytes).
    BigInt(usize),
    Float(f64),
    Str(Rc<str>),
    Bytes(Rc<[u8]>),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    Set(Vec<Value>),
    /// A class or function named by the pickle: `module.name`.
    Global(Rc<str>),
    /// A call of a class or function (never made): what was called, its arguments, and the
    /// state `BUILD` gave the result.
    Object {
        callable: Box<Value>,
        args: Box<Value>,
        state: Option<Box<Value>>,
    },
}

impl Value {
    /// The value under the string key `key` of a dict.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Dict(items) => items.iter().find_map(|(k, v)| match k {
                Value::Str(s) if &**s == key => Some(v),
                Value::Bytes(b) if &**b == key.as_bytes() => Some(v),
                _ => None,
            }),
            _ => None,
        }
    }

    /// What the value is, in Python's words, for messages.
    pub fn kind(&self) -> String {
        match self {
            Value::None => "None".into(),
            Value::Bool(_) => "a bool".into(),
            Value::Int(_) | Value::BigInt(_) => "an int".into(),
            Value::Float(_) => "a float".into(),
            Value::Str(_) => "a str".into(),
            Value::Bytes(_) => "bytes".into(),
            Value::List(_) => "a list".into(),
            Value::Tuple(_) => "a tuple".into(),
            Value::Dict(_) => "a dict".into(),
            Value::Set(_) => "a set".into(),
            Value::Global(g) => format!("the global {g}"),
            Value::Object { callable, .. } => match &**callable {
                Value::Global(g) => format!("an object made by {g}"),
                _ => "an object".into(),
            },
        }
    }

    /// The items of a list or tuple.
    pub fn items(&self) -> Option<&[Value]> {
        match self {
            Value::List(v) | Value::Tuple(v) => Some(v),
            _ => None,
        }
    }
}

/// Why a pickle cannot be read.
#[derive(Clone, Debug, PartialEq)]
pub struct PickleError(pub String);

impl std::fmt::Display for PickleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn err<T>(m: impl Into<String>) -> Result<T, PickleError> {
    Err(PickleError(m.into()))
}

/// Whether `bytes` start as a pickle of protocol 2 or later does (`PROTO n`), or as a
/// protocol 0/1 pickle of a dict does (`(dp0` or `}q`).
pub fn looks_like_pickle(bytes: &[u8]) -> bool {
    matches!(bytes, [0x80, 2..=5, ..] | [b'(', b'd', ..] | [b'}', ..])
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], PickleError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or_else(|| PickleError(format!("ends inside an operand at byte {}", self.pos)))?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8, PickleError> {
        Ok(self.take(1)?[0])
    }
    fn le<const N: usize>(&mut self) -> Result<[u8; N], PickleError> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }
    /// A length operand of `N` bytes, checked against what is left of the input.
    fn len<const N: usize>(&mut self) -> Result<usize, PickleError> {
        let mut v = [0u8; 8];
        v[..N].copy_from_slice(&self.le::<N>()?);
        let n = u64::from_le_bytes(v);
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.b.len() - self.pos)
            .ok_or_else(|| PickleError(format!("a length of {n} bytes runs past the end")))
    }
    fn line(&mut self) -> Result<&'a str, PickleError> {
        let rest = &self.b[self.pos..];
        let n = rest
            .iter()
            .position(|&c| c == b'\n')
            .ok_or_else(|| PickleError("a text operand without its newline".into()))?;
        self.pos += n + 1;
        std::str::from_utf8(&rest[..n])
            .map_err(|_| PickleError("a text operand is not UTF-8".into()))
    }
}

fn latin1(b: &[u8]) -> Value {
    Value::Str(b.iter().map(|&c| c as char).collect::<String>().into())
}

fn utf8(b: &[u8]) -> Result<Value, PickleError> {
    std::str::from_utf8(b)
        .map(|s| Value::Str(s.into()))
        .map_err(|_| PickleError("a unicode string is not UTF-8".into()))
}

/// A little-endian two's-complement integer of `b.len()` bytes (`LONG1`, `LONG4`).
fn long(b: &[u8]) -> Value {
    if b.len() > 8 {
        return Value::BigInt(b.len());
    }
    if b.is_empty() {
        return Value::Int(0);
    }
    let fill = if b[b.len() - 1] & 0x80 != 0 { 0xff } else { 0 };
    let mut v = [fill; 8];
    v[..b.len()].copy_from_slice(b);
    Value::Int(i64::from_le_bytes(v))
}

/// Text integers of protocol 0 (`I`, `L`): `01`/`00` are True/False.
fn text_int(s: &str) -> Result<Value, PickleError> {
    match s {
        "01" => return Ok(Value::Bool(true)),
        "00" => return Ok(Value::Bool(false)),
        _ => {}
    }
    let s = s.trim_end_matches('L');
    match s.parse::<i64>() {
        Ok(v) => Ok(Value::Int(v)),
        Err(_)
            if s.trim_start_matches('-')
                .bytes()
                .all(|c| c.is_ascii_digit()) =>
        {
            Ok(Value::BigInt(s.len()))
        }
        Err(_) => err(format!(
            "'{}' is not an integer",
            labelguard_core::clip::echo(s)
        )),
    }
}

/// A protocol 0 quoted string (`S'abc'\n`), with Python's escapes.
fn quoted(s: &str) -> Result<Value, PickleError> {
    let q = s.as_bytes().first().copied();
    let inner = match q {
        Some(c @ (b'\'' | b'"')) if s.len() >= 2 && s.as_bytes()[s.len() - 1] == c => {
            &s[1..s.len() - 1]
        }
        _ => return err("a STRING operand without quotes"),
    };
    let mut out = Vec::with_capacity(inner.len());
    let mut it = inner.bytes();
    while let Some(c) = it.next() {
        if c != b'\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'x') => {
                let h: Vec<u8> = it.by_ref().take(2).collect();
                let v = std::str::from_utf8(&h)
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| PickleError("a bad \\x escape".into()))?;
                out.push(v);
            }
            Some(c) => out.push(c),
            None => return err("a STRING operand ends in a backslash"),
        }
    }
    Ok(latin1(&out))
}

/// Reads the pickle in `bytes` into its value. Any opcode that would run code beyond building
/// the value (persistent ids, extension registry, out-of-band buffers) is refused.
pub fn parse(bytes: &[u8]) -> Result<Value, PickleError> {
    let mut r = Reader { b: bytes, pos: 0 };
    let mut stack: Vec<Value> = Vec::new();
    let mut marks: Vec<usize> = Vec::new();
    let mut memo: std::collections::HashMap<u64, Value> = std::collections::HashMap::new();
    fn pop(stack: &mut Vec<Value>) -> Result<Value, PickleError> {
        stack
            .pop()
            .ok_or_else(|| PickleError("pops an empty stack".into()))
    }
    fn top(stack: &mut [Value]) -> Result<&mut Value, PickleError> {
        stack
            .last_mut()
            .ok_or_else(|| PickleError("reads an empty stack".into()))
    }
    fn since_mark(
        stack: &mut Vec<Value>,
        marks: &mut Vec<usize>,
    ) -> Result<Vec<Value>, PickleError> {
        let m = marks
            .pop()
            .ok_or_else(|| PickleError("uses a MARK that was never set".into()))?;
        if m > stack.len() {
            return err("a MARK past the stack");
        }
        Ok(stack.split_off(m))
    }
    fn pairs(items: Vec<Value>) -> Result<Vec<(Value, Value)>, PickleError> {
        if !items.len().is_multiple_of(2) {
            return err("an odd number of dict items");
        }
        let mut out = Vec::with_capacity(items.len() / 2);
        let mut it = items.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            out.push((k, v));
        }
        Ok(out)
    }
    fn extend(target: &mut Value, items: Vec<Value>) -> Result<(), PickleError> {
        match target {
            Value::List(l) | Value::Set(l) => {
                l.extend(items);
                Ok(())
            }
            // `list.extend` of a subclass: the pickle built an object; the items are dropped.
            Value::Object { .. } => Ok(()),
            other => err(format!("appends to {}", other.kind())),
        }
    }
    fn object(callable: Value, args: Value) -> Value {
        Value::Object {
            callable: Box::new(callable),
            args: Box::new(args),
            state: None,
        }
    }
    loop {
        let at = r.pos;
        let op = r
            .u8()
            .map_err(|_| PickleError("ends before its STOP opcode".into()))?;
        match op {
            0x80 => {
                let p = r.u8()?;
                if p > 5 {
                    return err(format!("pickle protocol {p} is newer than 5"));
                }
            }
            0x95 => {
                r.le::<8>()?;
            }
            b'.' => return pop(&mut stack),
            b'(' => marks.push(stack.len()),
            b'0' => {
                pop(&mut stack)?;
            }
            b'1' => {
                since_mark(&mut stack, &mut marks)?;
            }
            b'2' => {
                let v = top(&mut stack)?.clone();
                stack.push(v);
            }
            b'N' => stack.push(Value::None),
            0x88 => stack.push(Value::Bool(true)),
            0x89 => stack.push(Value::Bool(false)),
            b'I' | b'L' => stack.push(text_int(r.line()?)?),
            b'J' => stack.push(Value::Int(i32::from_le_bytes(r.le()?) as i64)),
            b'K' => stack.push(Value::Int(r.u8()? as i64)),
            b'M' => stack.push(Value::Int(u16::from_le_bytes(r.le()?) as i64)),
            0x8a => {
                let n = r.len::<1>()?;
                stack.push(long(r.take(n)?));
            }
            0x8b => {
                let n = r.len::<4>()?;
                stack.push(long(r.take(n)?));
            }
            b'F' => {
                let s = r.line()?;
                let v = s.parse::<f64>().map_err(|_| {
                    PickleError(format!(
                        "'{}' is not a float",
                        labelguard_core::clip::echo(s)
                    ))
                })?;
                stack.push(Value::Float(v));
            }
            b'G' => stack.push(Value::Float(f64::from_be_bytes(r.le()?))),
            b'S' => stack.push(quoted(r.line()?)?),
            b'T' => {
                let n = r.len::<4>()?;
                stack.push(latin1(r.take(n)?));
            }
            b'U' => {
                let n = r.len::<1>()?;
                stack.push(latin1(r.take(n)?));
            }
            b'V' => {
                let s = r.line()?;
                stack.push(Value::Str(s.into()));
            }
            b'X' => {
                let n = r.len::<4>()?;
                stack.push(utf8(r.take(n)?)?);
            }
            0x8c => {
                let n = r.len::<1>()?;
                stack.push(utf8(r.take(n)?)?);
            }
            0x8d => {
                let n = r.len::<8>()?;
                stack.push(utf8(r.take(n)?)?);
            }
            b'B' => {
                let n = r.len::<4>()?;
                stack.push(Value::Bytes(r.take(n)?.into()));
            }
            b'C' => {
                let n = r.len::<1>()?;
                stack.push(Value::Bytes(r.take(n)?.into()));
            }
            0x8e | 0x96 => {
                let n = r.len::<8>()?;
                stack.push(Value::Bytes(r.take(n)?.into()));
            }
            b']' => stack.push(Value::List(Vec::new())),
            b')' => stack.push(Value::Tuple(Vec::new())),
            b'}' => stack.push(Value::Dict(Vec::new())),
            0x8f => stack.push(Value::Set(Vec::new())),
            b'l' => {
                let items = since_mark(&mut stack, &mut marks)?;
                stack.push(Value::List(items));
            }
            b't' => {
                let items = since_mark(&mut stack, &mut marks)?;
                stack.push(Value::Tuple(items));
            }
            0x91 => {
                let items = since_mark(&mut stack, &mut marks)?;
                stack.push(Value::Set(items));
            }
            0x85..=0x87 => {
                let n = (op - 0x84) as usize;
                if stack.len() < n {
                    return err("a TUPLE opcode with too few items");
                }
                let items = stack.split_off(stack.len() - n);
                stack.push(Value::Tuple(items));
            }
            b'd' => {
                let items = since_mark(&mut stack, &mut marks)?;
                stack.push(Value::Dict(pairs(items)?));
            }
            b'a' => {
                let v = pop(&mut stack)?;
                extend(top(&mut stack)?, vec![v])?;
            }
            b'e' | 0x90 => {
                let items = since_mark(&mut stack, &mut marks)?;
                extend(top(&mut stack)?, items)?;
            }
            b's' | b'u' => {
                let items = if op == b's' {
                    let v = pop(&mut stack)?;
                    let k = pop(&mut stack)?;
                    vec![k, v]
                } else {
                    since_mark(&mut stack, &mut marks)?
                };
                match top(&mut stack)? {
                    Value::Dict(d) => d.extend(pairs(items)?),
                    Value::Object { .. } => {}
                    other => return err(format!("sets an item of {}", other.kind())),
                }
            }
            b'c' => {
                let module = r.line()?;
                let name = r.line()?;
                stack.push(Value::Global(format!("{module}.{name}").into()));
            }
            0x93 => {
                let name = pop(&mut stack)?;
                let module = pop(&mut stack)?;
                match (module, name) {
                    (Value::Str(m), Value::Str(n)) => {
                        stack.push(Value::Global(format!("{m}.{n}").into()))
                    }
                    _ => return err("STACK_GLOBAL of something that is not two strings"),
                }
            }
            b'R' | 0x81 => {
                let args = pop(&mut stack)?;
                let callable = pop(&mut stack)?;
                stack.push(object(callable, args));
            }
            0x92 => {
                let kwargs = pop(&mut stack)?;
                let args = pop(&mut stack)?;
                let callable = pop(&mut stack)?;
                stack.push(object(callable, Value::Tuple(vec![args, kwargs])));
            }
            b'i' => {
                let module = r.line()?;
                let name = r.line()?;
                let args = since_mark(&mut stack, &mut marks)?;
                let g = Value::Global(format!("{module}.{name}").into());
                stack.push(object(g, Value::Tuple(args)));
            }
            b'o' => {
                let mut items = since_mark(&mut stack, &mut marks)?;
                if items.is_empty() {
                    return err("an OBJ opcode without its class");
                }
                let callable = items.remove(0);
                stack.push(object(callable, Value::Tuple(items)));
            }
            b'b' => {
                let s = pop(&mut stack)?;
                match top(&mut stack)? {
                    Value::Object { state, .. } => *state = Some(Box::new(s)),
                    other => return err(format!("BUILD on {}", other.kind())),
                }
            }
            b'p' => {
                let k = r
                    .line()?
                    .parse::<u64>()
                    .map_err(|_| PickleError("a bad PUT".into()))?;
                memo.insert(k, top(&mut stack)?.clone());
            }
            b'q' => {
                let k = r.u8()? as u64;
                memo.insert(k, top(&mut stack)?.clone());
            }
            b'r' => {
                let k = u32::from_le_bytes(r.le()?) as u64;
                memo.insert(k, top(&mut stack)?.clone());
            }
            0x94 => {
                let k = memo.len() as u64;
                memo.insert(k, top(&mut stack)?.clone());
            }
            b'g' | b'h' | b'j' => {
                let k = match op {
                    b'g' => r
                        .line()?
                        .parse::<u64>()
                        .map_err(|_| PickleError("a bad GET".into()))?,
                    b'h' => r.u8()? as u64,
                    _ => u32::from_le_bytes(r.le()?) as u64,
                };
                let v = memo
                    .get(&k)
                    .ok_or_else(|| PickleError(format!("GET of memo entry {k}, never PUT")))?
                    .clone();
                stack.push(v);
            }
            b'P' | b'Q' => return err("uses persistent ids (an object stored outside the pickle)"),
            0x82..=0x84 => return err("uses the copyreg extension registry"),
            0x97 | 0x98 => return err("uses out-of-band buffers (protocol 5)"),
            other => return err(format!("unknown opcode 0x{other:02x} at byte {at}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pickle.dumps({'vocab_size': 65, 'itos': {0: '\n'}, 'stoi': {'\n': 0}})` in Python 3.11
    /// (protocol 4, as nanoGPT's `prepare.py` writes `meta.pkl`).
    const META: &[u8] = b"\x80\x04\x952\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\nvocab_size\x94KA\x8c\x04itos\x94}\x94K\x00\x8c\x01\n\x94s\x8c\x04stoi\x94}\x94h\x04K\x00su.";

    #[test]
    fn reads_a_nanogpt_meta_dict() {
        let v = parse(META).unwrap();
        assert_eq!(v.get("vocab_size"), Some(&Value::Int(65)));
        let itos = v.get("itos").unwrap();
        assert_eq!(
            itos,
            &Value::Dict(vec![(Value::Int(0), Value::Str("\n".into()))])
        );
        assert_eq!(
            v.get("stoi"),
            Some(&Value::Dict(vec![(Value::Str("\n".into()), Value::Int(0))]))
        );
    }

    /// A Python 2 `cPickle.dump(d, f, 2)` of a CIFAR-like batch: `SHORT_BINSTRING` keys, a
    /// list of labels by `APPENDS`, a NumPy array by `_reconstruct` + `BUILD`.
    #[test]
    fn reads_a_python2_batch_with_an_array_past_it() {
        let mut p =
            b"\x80\x02}q\x01(U\x06labelsq\x02]q\x03(K\x06K\tM\x00\x01eU\x04dataq\x04".to_vec();
        p.extend_from_slice(
            b"cnumpy.core.multiarray\n_reconstruct\nq\x05cnumpy\nndarray\nq\x06K\x00\x85U\x01b\x87Rq\x07",
        );
        p.extend_from_slice(
            b"(K\x01K\x02\x85cnumpy\ndtype\nU\x02u1K\x00K\x01\x87R\x89U\x02\x01\x02tbu.",
        );
        let v = parse(&p).unwrap();
        let labels = v.get("labels").and_then(Value::items).unwrap();
        assert_eq!(labels, &[Value::Int(6), Value::Int(9), Value::Int(256)]);
        assert!(v.get("data").unwrap().kind().contains("_reconstruct"));
    }

    #[test]
    fn refuses_what_it_cannot_read_without_panicking() {
        for bad in [
            &b""[..],
            b"\x80\x02",
            b"\x80\x09N.",
            b"}X\xff\xff\xff\x7f",
            b"(u.",
            b"a.",
            b"h\x05.",
            b"P1\n.",
            b"\x82\x01.",
            b"K\x01K\x02s.",
            b"\xff",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn every_prefix_and_byte_flip_of_a_pickle_is_an_error_or_a_value() {
        for n in 0..META.len() {
            let _ = parse(&META[..n]);
            let mut m = META.to_vec();
            m[n] ^= 0x5a;
            let _ = parse(&m);
        }
    }
}
