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
//!
//! One tokenizer ([`tokens`]) serves both readers of the format: this stream (lenient between
//! elements, serde_json within them) and [`spans`], the strict walk of a whole file that
//! records where the category ids lie for `labelguard fix` to rewrite them.

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

pub mod spans;
mod stream;
pub mod tokens;
pub use stream::{read_coco, ReadError};

#[cfg(test)]
mod tests;
