//! Where a COCO file's category ids lie, byte for byte: the strict walk of a whole file in
//! memory (the [`tokens`](super::tokens) tokenizer validates every value on the way) that
//! records the byte spans of `categories[*].id` and `annotations[*].category_id`, and each
//! annotation's own span. `labelguard fix` rewrites those bytes and copies the rest, so a
//! half-gigabyte `instances_train2017.json` is never loaded into a JSON tree.

use super::tokens::{self, Cursor, Kind, Slice, Syntax};

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CocoError {
    /// The bytes are not JSON (or end early), with the byte offset.
    #[error("not valid JSON at byte {at}: {what}")]
    Syntax { at: usize, what: String },
    /// Valid JSON, but not a COCO file fix can remap.
    #[error("{0}")]
    Invalid(String),
}

impl From<Syntax> for CocoError {
    fn from(s: Syntax) -> CocoError {
        CocoError::Syntax {
            at: s.at as usize,
            what: s.what,
        }
    }
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

/// What the walk found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Whether the top level has a `categories` array.
    pub has_categories: bool,
    pub categories: Vec<Category>,
    pub annotations: Vec<Annotation>,
}

/// Where a value sits, as far as the spans go.
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

struct Walk<'a> {
    bytes: &'a [u8],
    found: Found,
}

/// Walks a whole COCO file: validates the JSON and records the spans of the ids.
pub fn scan(bytes: &[u8]) -> Result<Found, CocoError> {
    // JSON is UTF-8 (RFC 8259): checked once for the whole file, so strings need no check.
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(syntax(e.valid_up_to(), "not UTF-8 text"));
    }
    let mut c = Slice::new(bytes);
    let mut w = Walk {
        bytes,
        found: Found::default(),
    };
    tokens::ws(&mut c);
    match c.peek() {
        Some(b'{') => {}
        None => return Err(syntax(c.at, "the file is empty")),
        Some(_) => {
            return Err(CocoError::Invalid(
                "not a COCO file: the top level is not a JSON object".to_string(),
            ))
        }
    }
    w.value(&mut c, At::Root, 0)?;
    tokens::ws(&mut c);
    if c.at != bytes.len() {
        return Err(syntax(c.at, "data after the end of the top-level object"));
    }
    Ok(w.found)
}

impl Walk<'_> {
    /// One value at `at`; returns its kind and span.
    fn value(
        &mut self,
        c: &mut Slice,
        at: At,
        depth: usize,
    ) -> Result<(Kind, usize, usize), CocoError> {
        tokens::ws(c);
        let start = c.at;
        let first = c.peek();
        let kind = match (first, at) {
            (Some(b'{'), At::Root | At::Category | At::Annotation) => {
                self.object(c, at, depth)?;
                Kind::Object
            }
            (Some(b'['), At::Categories | At::Annotations) => {
                self.array(c, at, depth)?;
                Kind::Array
            }
            _ => tokens::value_at(c, first, depth)?,
        };
        Ok((kind, start, c.at))
    }

    /// The key's text: raw bytes, decoded only when it has escapes.
    fn key_text(&self, (start, end): (u64, u64)) -> Option<String> {
        let raw = &self.bytes[start as usize..end as usize];
        if raw.contains(&b'\\') {
            serde_json::from_slice(raw).ok()
        } else {
            std::str::from_utf8(&raw[1..raw.len() - 1])
                .ok()
                .map(str::to_string)
        }
    }

    fn object(&mut self, c: &mut Slice, at: At, depth: usize) -> Result<(), CocoError> {
        let mut id: Option<(i64, (usize, usize))> = None;
        let mut name: Option<String> = None;
        let mut seen_id = false;
        tokens::object(c, depth, |c, key, depth| {
            let key = self.key_text(key).unwrap_or_default();
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
            let (kind, vs, ve) = self.value(c, child, depth)?;
            match child {
                At::Categories => {
                    if kind != Kind::Array {
                        return Err(CocoError::Invalid("\"categories\" is not an array".into()));
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
                    let text = String::from_utf8_lossy(&self.bytes[vs..ve]).into_owned();
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
                    name = serde_json::from_slice(&self.bytes[vs..ve]).ok();
                }
                _ => {}
            }
            Ok(())
        })?;
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

    fn array(&mut self, c: &mut Slice, at: At, depth: usize) -> Result<(), CocoError> {
        let (child, what) = match at {
            At::Categories => (At::Category, "categories"),
            _ => (At::Annotation, "annotations"),
        };
        tokens::array(c, depth, |c, index, depth| {
            let (kind, vs, ve) = self.value(c, child, depth)?;
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
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests;
