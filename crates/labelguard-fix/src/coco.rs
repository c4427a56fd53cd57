//! COCO category ids remapped to a contiguous range, byte for byte.
//!
//! A COCO instances file can be half a gigabyte (`instances_train2017.json`: 448 MB, 860k
//! annotations), so it is not loaded into a JSON tree. A small recursive scanner walks the
//! bytes once, validating the JSON as it goes (strings with their escapes, numbers, literals,
//! nesting), and records only the byte spans of `categories[*].id` and
//! `annotations[*].category_id` (and each annotation's own span, for `--drop-undeclared`).
//! The writer then copies the input and replaces those numbers: everything else (formatting,
//! key order, float spellings, unicode escapes) stays byte-identical.
//!
//! New ids are `start..start+K`, given to the declared categories sorted by their old id
//! (torchvision and COCO number from 1, background 0; mmdet, detectron2 and ultralytics
//! number from 0).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

/// The deepest nesting accepted (a real COCO file nests 5 deep; the limit keeps the
/// recursive scanner's stack bounded on hostile input).
const MAX_DEPTH: usize = 256;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CocoError {
    /// The bytes are not JSON (or end early), with the byte offset.
    #[error("not valid JSON at byte {at}: {what}")]
    Syntax { at: usize, what: String },
    /// Valid JSON, but not a COCO file fix can remap.
    #[error("{0}")]
    Invalid(String),
}

fn syntax(at: usize, what: impl Into<String>) -> CocoError {
    CocoError::Syntax {
        at,
        what: what.into(),
    }
}

/// One declared category.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Category {
    pub id: i64,
    pub name: Option<String>,
    /// The byte span of the id's number.
    pub span: (usize, usize),
}

/// One element of `annotations`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    /// The byte span of the whole element (`{...}`).
    pub span: (usize, usize),
    /// `category_id` and the span of its number; `None` when the annotation has none.
    pub category: Option<(i64, (usize, usize))>,
}

/// What the scanner found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Whether the top level has a `categories` array.
    pub has_categories: bool,
    pub categories: Vec<Category>,
    pub annotations: Vec<Annotation>,
}

/// Where a value sits, as far as the remap cares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum At {
    Root,
    Categories,
    Category,
    CategoryId,
    CategoryName,
    Annotations,
    Annotation,
    AnnotationCategory,
    Other,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Object,
    Array,
    String,
    Number { integer: bool },
    Literal,
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
    found: Found,
}

/// Scans a whole COCO file: validates the JSON and records the spans of the ids.
pub fn scan(bytes: &[u8]) -> Result<Found, CocoError> {
    // JSON is UTF-8 (RFC 8259): checked once for the whole file, so strings need no check.
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(syntax(e.valid_up_to(), "not UTF-8 text"));
    }
    let mut s = Scanner {
        b: bytes,
        i: 0,
        depth: 0,
        found: Found::default(),
    };
    s.ws();
    if s.peek() != Some(b'{') {
        return Err(match s.peek() {
            None => syntax(s.i, "the file is empty"),
            Some(_) => CocoError::Invalid(
                "not a COCO file: the top level is not a JSON object".to_string(),
            ),
        });
    }
    s.value(At::Root)?;
    s.ws();
    if s.i != s.b.len() {
        return Err(syntax(s.i, "data after the end of the top-level object"));
    }
    Ok(s.found)
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.i += 1;
        }
    }

    fn eof(&self) -> CocoError {
        syntax(self.i, "the file ends early (truncated?)")
    }

    fn expect(&mut self, c: u8) -> Result<(), CocoError> {
        self.ws();
        match self.peek() {
            Some(x) if x == c => {
                self.i += 1;
                Ok(())
            }
            Some(x) => Err(syntax(
                self.i,
                format!("expected '{}', found '{}'", c as char, x.escape_ascii()),
            )),
            None => Err(self.eof()),
        }
    }

    /// One value at `at`; returns its kind and span.
    fn value(&mut self, at: At) -> Result<(Kind, usize, usize), CocoError> {
        self.ws();
        let start = self.i;
        let kind = match self.peek() {
            None => return Err(self.eof()),
            Some(b'{') => {
                self.nest()?;
                self.object(at)?;
                self.depth -= 1;
                Kind::Object
            }
            Some(b'[') => {
                self.nest()?;
                self.array(at)?;
                self.depth -= 1;
                Kind::Array
            }
            Some(b'"') => {
                self.string()?;
                Kind::String
            }
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(b't') => self.literal(b"true")?,
            Some(b'f') => self.literal(b"false")?,
            Some(b'n') => self.literal(b"null")?,
            Some(x) => return Err(syntax(self.i, format!("unexpected '{}'", x.escape_ascii()))),
        };
        Ok((kind, start, self.i))
    }

    fn nest(&mut self) -> Result<(), CocoError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(syntax(
                self.i,
                format!("nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn literal(&mut self, word: &[u8]) -> Result<Kind, CocoError> {
        let end = self.i + word.len();
        if end > self.b.len() && self.b[self.i..].iter().zip(word).all(|(a, b)| a == b) {
            self.i = self.b.len();
            return Err(self.eof());
        }
        if self.b.get(self.i..end) != Some(word) {
            return Err(syntax(self.i, "not a JSON value"));
        }
        self.i = end;
        Ok(Kind::Literal)
    }

    /// A string starting at the quote; leaves `i` after the closing quote.
    fn string(&mut self) -> Result<(), CocoError> {
        self.i += 1;
        loop {
            let rest = &self.b[self.i..];
            let Some(k) = rest
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            else {
                self.i = self.b.len();
                return Err(self.eof());
            };
            self.i += k;
            match self.b[self.i] {
                b'"' => {
                    self.i += 1;
                    return Ok(());
                }
                b'\\' => {
                    let Some(&e) = self.b.get(self.i + 1) else {
                        self.i = self.b.len();
                        return Err(self.eof());
                    };
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                        b'u' => {
                            let hex = self.b.get(self.i + 2..self.i + 6);
                            match hex {
                                None => {
                                    self.i = self.b.len();
                                    return Err(self.eof());
                                }
                                Some(h) if h.iter().all(u8::is_ascii_hexdigit) => self.i += 6,
                                Some(_) => return Err(syntax(self.i, "bad \\u escape")),
                            }
                        }
                        _ => return Err(syntax(self.i, "bad escape in a string")),
                    }
                }
                _ => return Err(syntax(self.i, "control character in a string")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        self.i - from
    }

    fn number(&mut self) -> Result<Kind, CocoError> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let first = self.peek();
        let n = self.digits();
        if n == 0 {
            return Err(self.bad_number(start));
        }
        if first == Some(b'0') && n > 1 {
            return Err(syntax(start, "a number with a leading zero"));
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            integer = false;
            if self.digits() == 0 {
                return Err(self.bad_number(start));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            integer = false;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.bad_number(start));
            }
        }
        Ok(Kind::Number { integer })
    }

    fn bad_number(&self, start: usize) -> CocoError {
        if self.i >= self.b.len() {
            self.eof()
        } else {
            syntax(start, "a malformed number")
        }
    }

    /// The key's text: raw bytes, decoded only when it has escapes.
    fn key_text(&self, start: usize, end: usize) -> Option<String> {
        let raw = &self.b[start..end];
        if raw.contains(&b'\\') {
            serde_json::from_slice(raw).ok()
        } else {
            std::str::from_utf8(&raw[1..raw.len() - 1])
                .ok()
                .map(str::to_string)
        }
    }

    fn object(&mut self, at: At) -> Result<(), CocoError> {
        self.i += 1; // '{'
        let mut id: Option<(i64, (usize, usize))> = None;
        let mut name: Option<String> = None;
        let mut seen_id = false;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
        } else {
            loop {
                self.ws();
                match self.peek() {
                    Some(b'"') => {}
                    None => return Err(self.eof()),
                    Some(_) => return Err(syntax(self.i, "expected a key")),
                }
                let ks = self.i;
                self.string()?;
                let key = self.key_text(ks, self.i).unwrap_or_default();
                self.expect(b':')?;
                let child = match (at, key.as_str()) {
                    (At::Root, "categories") => At::Categories,
                    (At::Root, "annotations") => At::Annotations,
                    (At::Category, "id") => At::CategoryId,
                    (At::Category, "name") => At::CategoryName,
                    (At::Annotation, "category_id") => At::AnnotationCategory,
                    _ => At::Other,
                };
                if child == At::Categories && self.found.has_categories {
                    return Err(CocoError::Invalid(
                        "the top level has two \"categories\" keys".into(),
                    ));
                }
                let (kind, vs, ve) = self.value(child)?;
                match child {
                    At::Categories => {
                        if kind != Kind::Array {
                            return Err(CocoError::Invalid(
                                "\"categories\" is not an array".into(),
                            ));
                        }
                        self.found.has_categories = true;
                    }
                    At::Annotations if kind != Kind::Array => {
                        return Err(CocoError::Invalid("\"annotations\" is not an array".into()))
                    }
                    At::CategoryId | At::AnnotationCategory => {
                        let what = if child == At::CategoryId {
                            format!("categories[{}].id", self.found.categories.len())
                        } else {
                            format!("annotations[{}].category_id", self.found.annotations.len())
                        };
                        if seen_id {
                            return Err(CocoError::Invalid(format!("{what} is given twice")));
                        }
                        seen_id = true;
                        let text = String::from_utf8_lossy(&self.b[vs..ve]).into_owned();
                        let v = match kind {
                            Kind::Number { integer: true } => text.parse::<i64>().ok(),
                            _ => None,
                        };
                        let Some(v) = v else {
                            return Err(CocoError::Invalid(format!(
                                "{what} is {}, not an integer",
                                labelguard_core::clip::echo(&text)
                            )));
                        };
                        id = Some((v, (vs, ve)));
                    }
                    At::CategoryName if kind == Kind::String => {
                        name = serde_json::from_slice(&self.b[vs..ve]).ok();
                    }
                    _ => {}
                }
                self.ws();
                match self.peek() {
                    Some(b',') => self.i += 1,
                    Some(b'}') => {
                        self.i += 1;
                        break;
                    }
                    None => return Err(self.eof()),
                    Some(_) => return Err(syntax(self.i, "expected ',' or '}'")),
                }
            }
        }
        match at {
            At::Category => {
                let n = self.found.categories.len();
                let Some((id, span)) = id else {
                    return Err(CocoError::Invalid(format!("categories[{n}] has no \"id\"")));
                };
                self.found.categories.push(Category { id, name, span });
            }
            At::Annotation => {
                // The element's span is set by the array, which knows where it began.
                self.found.annotations.push(Annotation {
                    span: (0, 0),
                    category: id,
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn array(&mut self, at: At) -> Result<(), CocoError> {
        self.i += 1; // '['
        let (child, what) = match at {
            At::Categories => (At::Category, Some("categories")),
            At::Annotations => (At::Annotation, Some("annotations")),
            _ => (At::Other, None),
        };
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(());
        }
        let mut index = 0usize;
        loop {
            let (kind, vs, ve) = self.value(child)?;
            if let Some(what) = what {
                if kind != Kind::Object {
                    return Err(CocoError::Invalid(format!(
                        "{what}[{index}] is not an object"
                    )));
                }
                if child == At::Annotation {
                    if let Some(a) = self.found.annotations.last_mut() {
                        a.span = (vs, ve);
                    }
                }
            }
            index += 1;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(());
                }
                None => return Err(self.eof()),
                Some(_) => return Err(syntax(self.i, "expected ',' or ']'")),
            }
        }
    }
}

/// The remap of one file: old id -> new id, the names, and what is dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remap {
    pub start: i64,
    pub old_to_new: BTreeMap<i64, i64>,
    /// Names by new id (the category's `name`, empty when it has none).
    pub names: BTreeMap<i64, String>,
    /// Annotations whose `category_id` is not declared (or missing), by old id (`None`:
    /// missing), with their count: refused, or dropped with `drop_undeclared`.
    pub undeclared: BTreeMap<Option<i64>, u64>,
    pub drop_undeclared: bool,
}

impl Remap {
    /// The annotations left out of the output.
    pub fn dropped(&self) -> u64 {
        if self.drop_undeclared {
            self.undeclared.values().sum()
        } else {
            0
        }
    }

    /// Whether the remap changes any byte.
    pub fn changes(&self) -> bool {
        self.old_to_new.iter().any(|(o, n)| o != n) || self.dropped() > 0
    }

    /// The mapping file's JSON: `old_to_new`, `new_to_old`, `names` by new id.
    pub fn mapping_json(&self) -> String {
        let s = |m: &BTreeMap<i64, i64>| -> serde_json::Map<String, serde_json::Value> {
            m.iter()
                .map(|(k, v)| (k.to_string(), (*v).into()))
                .collect()
        };
        let new_to_old: BTreeMap<i64, i64> =
            self.old_to_new.iter().map(|(o, n)| (*n, *o)).collect();
        let names: serde_json::Map<String, serde_json::Value> = self
            .names
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone().into()))
            .collect();
        let v = serde_json::json!({
            "schema": "labelguard-category-map",
            "start": self.start,
            "old_to_new": s(&self.old_to_new),
            "new_to_old": s(&new_to_old),
            "names": names,
            "dropped_annotations": self.dropped(),
        });
        let mut text = serde_json::to_string_pretty(&v).expect("the mapping serialises");
        text.push('\n');
        text
    }
}

/// The remap of what was found: declared ids sorted, numbered from `start`. Refuses
/// duplicate category ids, and annotations of undeclared categories unless `drop_undeclared`.
pub fn plan(found: &Found, start: i64, drop_undeclared: bool) -> Result<Remap, CocoError> {
    if !found.has_categories {
        return Err(CocoError::Invalid(
            "not a COCO instances file: no top-level \"categories\" array".into(),
        ));
    }
    let mut by_id: BTreeMap<i64, &Category> = BTreeMap::new();
    let mut dups = BTreeSet::new();
    for c in &found.categories {
        if by_id.insert(c.id, c).is_some() {
            dups.insert(c.id);
        }
    }
    if !dups.is_empty() {
        return Err(CocoError::Invalid(format!(
            "categories declare the id{} {} more than once: which name the annotations mean is ambiguous; fix categories first",
            if dups.len() == 1 { "" } else { "s" },
            join(dups.iter())
        )));
    }
    let mut old_to_new = BTreeMap::new();
    let mut names = BTreeMap::new();
    for (rank, (id, c)) in by_id.iter().enumerate() {
        let new = start + rank as i64;
        old_to_new.insert(*id, new);
        names.insert(new, c.name.clone().unwrap_or_default());
    }
    let mut undeclared: BTreeMap<Option<i64>, u64> = BTreeMap::new();
    for a in &found.annotations {
        let id = a.category.map(|c| c.0);
        if id.is_none_or(|id| !old_to_new.contains_key(&id)) {
            *undeclared.entry(id).or_default() += 1;
        }
    }
    if !undeclared.is_empty() && !drop_undeclared {
        let list: Vec<String> = undeclared
            .iter()
            .take(20)
            .map(|(id, n)| {
                let what = id.map_or("no category_id".to_string(), |i| i.to_string());
                format!("{what} ({n} annotation{})", if *n == 1 { "" } else { "s" })
            })
            .collect();
        return Err(CocoError::Invalid(format!(
            "annotations reference category ids that \"categories\" does not declare: {}{}; \
             fix will not guess what they are: declare them in categories, or rerun with \
             --drop-undeclared to leave those annotations out of the output",
            list.join(", "),
            if undeclared.len() > 20 { ", ..." } else { "" }
        )));
    }
    Ok(Remap {
        start,
        old_to_new,
        names,
        undeclared,
        drop_undeclared,
    })
}

fn join<T: std::fmt::Display>(it: impl Iterator<Item = T>) -> String {
    it.map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// One change to the input: bytes `start..end` replaced by a number, or deleted.
struct Edit {
    start: usize,
    end: usize,
    to: Option<i64>,
}

/// The edits of a remap, in file order.
fn edits(found: &Found, remap: &Remap) -> Vec<Edit> {
    let mut v = Vec::with_capacity(found.categories.len() + found.annotations.len());
    for c in &found.categories {
        let to = remap.old_to_new[&c.id];
        if to != c.id {
            v.push(Edit {
                start: c.span.0,
                end: c.span.1,
                to: Some(to),
            });
        }
    }
    let anns = &found.annotations;
    let drop = |a: &Annotation| {
        remap.drop_undeclared
            && a.category
                .is_none_or(|(id, _)| !remap.old_to_new.contains_key(&id))
    };
    let mut i = 0;
    while i < anns.len() {
        if drop(&anns[i]) {
            // A run of dropped elements a..=b: delete it with one separator.
            let a = i;
            while i < anns.len() && drop(&anns[i]) {
                i += 1;
            }
            let b = i - 1;
            let (start, end) = if a > 0 {
                (anns[a - 1].span.1, anns[b].span.1)
            } else if b + 1 < anns.len() {
                (anns[a].span.0, anns[b + 1].span.0)
            } else {
                (anns[a].span.0, anns[b].span.1)
            };
            v.push(Edit {
                start,
                end,
                to: None,
            });
            continue;
        }
        if let Some((id, (s, e))) = anns[i].category {
            let to = remap.old_to_new[&id];
            if to != id {
                v.push(Edit {
                    start: s,
                    end: e,
                    to: Some(to),
                });
            }
        }
        i += 1;
    }
    v.sort_unstable_by_key(|e| e.start);
    v
}

/// Writes the input with the remap applied.
pub fn write(
    bytes: &[u8],
    found: &Found,
    remap: &Remap,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut at = 0;
    let mut num = itoa_buf();
    for e in edits(found, remap) {
        out.write_all(&bytes[at..e.start])?;
        if let Some(to) = e.to {
            num.clear();
            write!(num, "{to}")?;
            out.write_all(&num)?;
        }
        at = e.end;
    }
    out.write_all(&bytes[at..])
}

fn itoa_buf() -> Vec<u8> {
    Vec::with_capacity(24)
}

/// The remapped file in memory (tests and small files).
pub fn rewrite(bytes: &[u8], start: i64, drop_undeclared: bool) -> Result<Vec<u8>, CocoError> {
    let found = scan(bytes)?;
    let remap = plan(&found, start, drop_undeclared)?;
    let mut out = Vec::with_capacity(bytes.len());
    write(bytes, &found, &remap, &mut out).expect("writing to memory");
    Ok(out)
}

/// What the verification of an output counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Verified {
    pub categories: usize,
    pub annotations: usize,
    /// What is wrong with the output (empty: the output is what was meant).
    pub problems: Vec<String>,
}

/// Checks a written output on its own: it parses as JSON (serde_json, not the scanner that
/// wrote it), its category ids are exactly `start..start+K` in the order of the input's old
/// ids, the names are kept, every annotation's category is declared, and the annotation count
/// is the input's less the dropped ones.
pub fn verify(out: &[u8], remap: &Remap, expected_annotations: usize) -> Verified {
    let mut v = Verified::default();
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(out) {
        v.problems
            .push(format!("the output does not parse as JSON: {e}"));
        return v;
    }
    let found = match scan(out) {
        Ok(f) => f,
        Err(e) => {
            v.problems
                .push(format!("the output cannot be read back: {e}"));
            return v;
        }
    };
    v.categories = found.categories.len();
    v.annotations = found.annotations.len();
    let ids: Vec<i64> = found.categories.iter().map(|c| c.id).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    let want: Vec<i64> = (0..ids.len() as i64).map(|k| remap.start + k).collect();
    if sorted != want {
        v.problems.push(format!(
            "category ids are not the contiguous range {}..={}",
            remap.start,
            remap.start + ids.len() as i64 - 1
        ));
    }
    for c in &found.categories {
        let name = c.name.clone().unwrap_or_default();
        if remap.names.get(&c.id) != Some(&name) {
            v.problems.push(format!(
                "category {} is named '{name}', not as mapped",
                c.id
            ));
        }
    }
    let declared: BTreeSet<i64> = ids.into_iter().collect();
    let bad = found
        .annotations
        .iter()
        .filter(|a| a.category.is_none_or(|(id, _)| !declared.contains(&id)))
        .count();
    if bad > 0 {
        v.problems.push(format!(
            "{bad} annotations have a category_id that categories does not declare"
        ));
    }
    if found.annotations.len() != expected_annotations {
        v.problems.push(format!(
            "{} annotations written, {expected_annotations} expected",
            found.annotations.len()
        ));
    }
    v
}

#[cfg(test)]
mod tests;
