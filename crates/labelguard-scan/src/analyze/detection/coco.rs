//! COCO instances JSON: streamed by [`labelguard_formats::read::coco`], checked element by element, counted.
//!
//! The top-level arrays may come in any order. The checks that need an annotation's image
//! (LG706 box or polygon outside it, LG707 unknown `image_id`, LG708 RLE size) run as the
//! annotation is read when `images` came first (the usual order), and otherwise from a compact
//! record kept per annotation (64 bytes) until the file is read. Categories are counted by id
//! as the annotations come ([`ClassTally`]), so LG702 and the head's rules
//! ([`Head::judge`]: LG701, LG703, LG704) are decided after the file, whatever the order.
//! LG711 (identical annotations) keeps one 64-bit hash of (image_id, category_id, bbox) per
//! annotation: two different annotations taken for one would need a hash collision, about one
//! chance in 10^7 for a million annotations.

use super::head::{ClassTally, Head};
use crate::analyze::{Ctx, FileKind, FileResult};
use crate::checks::lg601_unreadable_file::io_problem;
use crate::checks::lg603_empty_file::empty_file;
use crate::checks::lg702_unknown_category::coco as lg702;
use crate::checks::lg705_invalid_box::coco as lg705;
use crate::checks::lg706_box_outside_image::coco as lg706;
use crate::checks::lg707_annotation_without_image::coco as lg707;
use crate::checks::lg708_annotation_size_mismatch::coco as lg708;
use crate::checks::lg709_malformed_annotation::coco as lg709;
use crate::checks::lg711_duplicate_annotation::coco as lg711;
use crate::layout::Item;
use labelguard_core::finding::MAX_LOCATIONS;
use labelguard_core::Location;
use labelguard_formats::read::coco::{
    read_coco, Annotation, Category, Image, ReadError, Section, Segmentation, Sink,
};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::Path;

/// How many missing image files are named.
const MISSING_NAMES: usize = 5;

/// Analyses one COCO annotation file whose images are in `images`.
pub fn coco_file(item: &Item, images: Option<&Path>, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Annotations);
    r.shape = None;
    let file = match item.source.open(u64::MAX) {
        Ok((f, _)) => f,
        Err(f) => {
            r.findings.push(f);
            return r;
        }
    };
    analyze(file, images, ctx, &mut r);
    r
}

/// Analyses COCO JSON `bytes` as a file named `display` without an image folder (the fuzz
/// harness's entry point: every byte string returns, none panics).
pub fn coco_bytes(bytes: &[u8], display: &str, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::named(
        display.to_string(),
        "all".to_string(),
        FileKind::Annotations,
    );
    r.unit = crate::analyze::Unit::Objects;
    if bytes.is_empty() {
        r.findings.push(empty_file());
    } else {
        analyze(bytes, None, ctx, &mut r);
    }
    r
}

fn analyze(read: impl std::io::Read, images: Option<&Path>, ctx: &Ctx<'_>, r: &mut FileResult) {
    let mut state = Coco::new(images);
    match read_coco(read, &mut state) {
        Ok(()) => state.finish(ctx, r),
        Err(ReadError::Corrupt(f)) => r.findings.push(f),
        Err(ReadError::Io(e)) => r.findings.push(io_problem("cannot read", &e)),
    }
}

/// splitmix64's finalizer: a bijection of 64-bit words that spreads every input bit.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The hasher of the id maps and sets: ids are integers and the duplicate keys are already
/// mixed, so one [`mix`] per key replaces SipHash (a fifth of the scan's time with it).
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = mix(self.0 ^ u64::from(*b));
        }
    }
    fn write_i64(&mut self, v: i64) {
        self.0 = mix(self.0 ^ v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = mix(self.0 ^ v);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Ids = BuildHasherDefault<IdHasher>;

/// The 64-bit key of (image_id, category_id, bbox) for LG711.
fn duplicate_key(image_id: i64, category_id: i64, bbox: &[f64; 4]) -> u64 {
    let words = [
        image_id as u64,
        category_id as u64,
        bbox[0].to_bits(),
        bbox[1].to_bits(),
        bbox[2].to_bits(),
        bbox[3].to_bits(),
    ];
    words.iter().fold(0x9e37_79b9_7f4a_7c15, |h, w| {
        mix(h.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ w)
    })
}

/// Count and first locations of one kind of problem.
#[derive(Default)]
struct Hits {
    count: u64,
    first: Vec<Location>,
}

impl Hits {
    fn add(&mut self, at: impl FnOnce() -> Location) {
        self.count += 1;
        if self.first.len() < MAX_LOCATIONS {
            self.first.push(at());
        }
    }
}

/// What an annotation's image checks need, kept when the annotation comes before `images`.
/// Missing values are NaN (coordinates) or `i64::MIN` (the id).
struct Deferred {
    index: u32,
    id: i64,
    image_id: i64,
    /// The box as written (x, y, w, h), NaN when it is not checked.
    bbox: [f32; 4],
    /// Polygon bounds, NaN when none.
    poly: [f32; 4],
    /// RLE size [height, width], NaN when none.
    rle: [f32; 2],
}

const NO_ID: i64 = i64::MIN;

fn who(id: i64, image_id: i64) -> String {
    match (id, image_id) {
        (NO_ID, NO_ID) => "no id".to_string(),
        (NO_ID, im) => format!("image_id {im}"),
        (id, NO_ID) => format!("id {id}"),
        (id, im) => format!("id {id}, image_id {im}"),
    }
}

fn ann_at(index: usize, id: i64, image_id: i64, what: String) -> Location {
    Location {
        tensor: "annotations".into(),
        index: vec![index],
        value: format!("{}: {what}", who(id, image_id)),
    }
}

fn num(v: f64) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn num32(v: f32) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e7 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn bbox_text(b: &[f64]) -> String {
    let parts: Vec<String> = b.iter().map(|v| num(*v)).collect();
    format!("bbox [{}]", parts.join(", "))
}

struct Coco<'p> {
    images_dir: Option<&'p Path>,
    /// id -> (width, height), NaN when not given.
    images: HashMap<i64, (f64, f64), Ids>,
    seen: [bool; 3],
    images_done: bool,
    categories: Vec<(i64, String)>,
    category_ids: HashSet<i64>,
    ann_ids: HashSet<i64, Ids>,
    dup_keys: HashSet<u64, Ids>,
    tally: ClassTally,
    deferred: Vec<Deferred>,
    crowd: u64,
    malformed: Vec<(String, Hits)>,
    not_arrays: Vec<Section>,
    missing_files: Hits,
    missing_names: Vec<String>,
    invalid_box: Hits,
    outside: Hits,
    unknown_image: Hits,
    rle_size: Hits,
    duplicate: Hits,
}

impl<'p> Coco<'p> {
    fn new(images_dir: Option<&'p Path>) -> Coco<'p> {
        Coco {
            images_dir,
            images: HashMap::default(),
            seen: [false; 3],
            images_done: false,
            categories: Vec::new(),
            category_ids: HashSet::new(),
            ann_ids: HashSet::default(),
            dup_keys: HashSet::default(),
            tally: ClassTally::default(),
            deferred: Vec::new(),
            crowd: 0,
            malformed: Vec::new(),
            not_arrays: Vec::new(),
            missing_files: Hits::default(),
            missing_names: Vec::new(),
            invalid_box: Hits::default(),
            outside: Hits::default(),
            unknown_image: Hits::default(),
            rle_size: Hits::default(),
            duplicate: Hits::default(),
        }
    }

    fn malformed(&mut self, what: String, at: impl FnOnce() -> Location) {
        match self.malformed.iter_mut().find(|(w, _)| *w == what) {
            Some((_, h)) => h.add(at),
            None => {
                let mut h = Hits::default();
                h.add(at);
                self.malformed.push((what, h));
            }
        }
    }

    /// The checks of annotation `d` against its image.
    fn against_image(&mut self, d: &Deferred) {
        let Some(&(w, h)) = self.images.get(&d.image_id) else {
            if d.image_id != NO_ID {
                self.unknown_image.add(|| {
                    ann_at(
                        d.index as usize,
                        d.id,
                        d.image_id,
                        format!("no images entry has id {}", d.image_id),
                    )
                });
            }
            return;
        };
        if w.is_finite() && h.is_finite() {
            let b = d.bbox.map(f64::from);
            let corners = [b[0], b[1], b[0] + b[2], b[1] + b[3]];
            let p = d.poly.map(f64::from);
            let box_out = !b[0].is_nan() && lg706::outside(corners, w, h);
            let poly_out = !p[0].is_nan() && lg706::outside(p, w, h);
            if box_out || poly_out {
                self.outside.add(|| {
                    // Shown as the file writes them: f32's shortest form of each value.
                    let what = if box_out {
                        let v: Vec<String> = d.bbox.iter().map(|x| num32(*x)).collect();
                        format!("bbox [{}]", v.join(", "))
                    } else {
                        let q = d.poly;
                        format!(
                            "polygon points x {}..{}, y {}..{}",
                            num32(q[0]),
                            num32(q[2]),
                            num32(q[1]),
                            num32(q[3])
                        )
                    };
                    ann_at(
                        d.index as usize,
                        d.id,
                        d.image_id,
                        format!("{what} in an image of {}x{}", num(w), num(h)),
                    )
                });
            }
        }
        if !d.rle[0].is_nan() {
            let size = [f64::from(d.rle[0]), f64::from(d.rle[1])];
            if lg708::rle_mismatch(size, h, w) {
                self.rle_size.add(|| {
                    ann_at(
                        d.index as usize,
                        d.id,
                        d.image_id,
                        format!(
                            "RLE size [{}, {}], image height {} width {}",
                            num32(d.rle[0]),
                            num32(d.rle[1]),
                            num(h),
                            num(w)
                        ),
                    )
                });
            }
        }
    }

    fn finish(mut self, ctx: &Ctx<'_>, r: &mut FileResult) {
        let deferred = std::mem::take(&mut self.deferred);
        if self.seen[0] {
            for d in &deferred {
                self.against_image(d);
            }
        }
        drop(deferred);
        for s in [Section::Images, Section::Annotations, Section::Categories] {
            let i = s as usize;
            if self.not_arrays.contains(&s) {
                r.findings.push(lg709::section(s.key(), false));
            } else if !self.seen[i] {
                r.findings.push(lg709::section(s.key(), true));
            }
        }
        for (what, h) in &self.malformed {
            r.findings.push(lg709::malformed(what, h.count, &h.first));
        }
        let mut declared = self.categories.clone();
        declared.sort_by_key(|(i, _)| *i);
        declared.dedup_by_key(|(i, _)| *i);
        if self.seen[Section::Categories as usize] {
            let unknown: Vec<(i64, u64)> = self
                .tally
                .counts
                .iter()
                .filter(|(id, _)| !self.category_ids.contains(id))
                .map(|(id, n)| (*id, *n))
                .collect();
            if !unknown.is_empty() {
                let mut first: Vec<Location> = unknown
                    .iter()
                    .filter_map(|(id, _)| self.tally.first.get(id).cloned())
                    .collect();
                first.sort_by_key(|l| l.index.clone());
                first.truncate(MAX_LOCATIONS);
                r.findings
                    .push(lg702::unknown(&unknown, &first, declared.len()));
            }
        }
        Head::of(ctx, &declared, "category_id").judge(&self.tally, r);
        let groups = [
            (
                &self.invalid_box,
                lg705::invalid_boxes as fn(u64, &[Location]) -> _,
            ),
            (&self.outside, lg706::outside_image),
            (&self.unknown_image, lg707::unknown_image),
        ];
        for (h, build) in groups {
            if h.count > 0 {
                r.findings.push(build(h.count, &h.first));
            }
        }
        if self.missing_files.count > 0 {
            let folder = self
                .images_dir
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            r.findings.push(lg707::missing_files(
                self.missing_files.count,
                &self.missing_names,
                &folder,
                &self.missing_files.first,
            ));
        }
        if self.rle_size.count > 0 {
            r.findings
                .push(lg708::rle_size(self.rle_size.count, &self.rle_size.first));
        }
        if self.duplicate.count > 0 {
            r.findings.push(lg711::duplicates(
                self.duplicate.count,
                &self.duplicate.first,
            ));
        }
        r.objects.crowd = self.crowd;
    }
}

fn entry_at(section: Section, index: usize, value: String) -> Location {
    Location {
        tensor: section.key().into(),
        index: vec![index],
        value,
    }
}

impl Sink for Coco<'_> {
    fn image(&mut self, index: usize, im: Image) {
        let name = im.file_name.clone().unwrap_or_default();
        let label = move |what: &str| match im.id {
            Some(id) => format!("id {id}: {what}"),
            None => format!("no id: {what}"),
        };
        for (field, detail) in &im.problems {
            let what = if field.is_empty() {
                "images entries that are not objects".to_string()
            } else {
                format!("images entries whose `{field}` has the wrong type")
            };
            self.malformed(what, || entry_at(Section::Images, index, label(detail)));
        }
        for (field, missing) in [
            ("id", im.id.is_none()),
            ("file_name", im.file_name.is_none()),
            ("width", im.width.is_none()),
            ("height", im.height.is_none()),
        ] {
            let wrong_type = im.problems.iter().any(|(f, _)| *f == field || f.is_empty());
            if missing && !wrong_type {
                self.malformed(format!("images entries without `{field}`"), || {
                    entry_at(Section::Images, index, label(&format!("no {field}")))
                });
            }
        }
        if let Some(id) = im.id {
            let dims = (im.width.unwrap_or(f64::NAN), im.height.unwrap_or(f64::NAN));
            if self.images.insert(id, dims).is_some() {
                self.malformed("images entries with a duplicate id".into(), || {
                    entry_at(Section::Images, index, label(&format!("id {id} again")))
                });
            }
        }
        if let (Some(dir), Some(file)) = (self.images_dir, &im.file_name) {
            if !dir.join(file).is_file() {
                if self.missing_names.len() < MISSING_NAMES {
                    self.missing_names
                        .push(labelguard_core::clip::echo(file).to_string());
                }
                self.missing_files
                    .add(|| entry_at(Section::Images, index, label(&format!("file_name {name}"))));
            }
        }
    }

    fn annotation(&mut self, index: usize, a: Annotation) {
        let id = a.id.unwrap_or(NO_ID);
        let image_id = a.image_id.unwrap_or(NO_ID);
        let at = |what: String| ann_at(index, id, image_id, what);
        for (field, detail) in &a.problems {
            let what = if field.is_empty() {
                "annotations that are not objects".to_string()
            } else {
                format!("annotations whose `{field}` has the wrong type")
            };
            self.malformed(what, || at(format!("{field} {detail}")));
        }
        for (field, missing) in [
            ("id", a.id.is_none()),
            ("image_id", a.image_id.is_none()),
            ("category_id", a.category_id.is_none()),
            ("bbox", a.bbox.is_none()),
        ] {
            let wrong_type = a.problems.iter().any(|(f, _)| *f == field || f.is_empty());
            if missing && !wrong_type {
                self.malformed(format!("annotations without `{field}`"), || {
                    at(format!("no {field}"))
                });
            }
        }
        if let Some(i) = a.id {
            if !self.ann_ids.insert(i) {
                self.malformed("annotations with a duplicate id".into(), || {
                    at(format!("id {i} again"))
                });
            }
        }
        if let Some(c) = a.category_id {
            self.tally.add(c, || at(format!("category_id {c}")));
        }
        if a.iscrowd {
            self.crowd += 1;
        }
        let mut checked = [f32::NAN; 4];
        if let Some(b) = a.bbox {
            if b.len != 4 {
                self.malformed("annotations whose bbox is not 4 numbers".into(), || {
                    at(format!("bbox of {} values", b.len))
                });
            } else if lg705::box_problem(&b.values, b.finite).is_some() {
                let why = lg705::box_problem(&b.values, b.finite).unwrap_or_default();
                self.invalid_box
                    .add(|| at(format!("{} ({why})", bbox_text(&b.values))));
            } else {
                checked = b.values.map(|x| x as f32);
            }
            if let (Some(im), Some(c), 4) = (a.image_id, a.category_id, b.len) {
                if !self.dup_keys.insert(duplicate_key(im, c, &b.values)) {
                    self.duplicate
                        .add(|| at(format!("category_id {c}, {} again", bbox_text(&b.values))));
                }
            }
        }
        let (mut poly, mut rle) = ([f32::NAN; 4], [f32::NAN; 2]);
        match a.segmentation {
            Some(Segmentation::Polygons { bounds, odd }) => {
                if odd {
                    self.malformed(
                        "annotations with a polygon of an odd number of coordinates, or a value that is not a number".into(),
                        || at("segmentation".into()),
                    );
                }
                if let Some(b) = bounds {
                    poly = b.map(|x| x as f32);
                }
            }
            Some(Segmentation::Rle { size: Some(s) }) => rle = s.map(|x| x as f32),
            Some(Segmentation::Rle { size: None }) => {
                self.malformed(
                    "annotations with an RLE segmentation without `size`".into(),
                    || at("segmentation without size".into()),
                );
            }
            None => {}
        }
        let d = Deferred {
            index: u32::try_from(index).unwrap_or(u32::MAX),
            id,
            image_id,
            bbox: checked,
            poly,
            rle,
        };
        if self.images_done {
            self.against_image(&d);
        } else {
            self.deferred.push(d);
        }
    }

    fn category(&mut self, index: usize, c: Category) {
        let label = |what: &str| match c.id {
            Some(id) => format!("id {id}: {what}"),
            None => format!("no id: {what}"),
        };
        for (field, detail) in &c.problems {
            let what = if field.is_empty() {
                "categories entries that are not objects".to_string()
            } else {
                format!("categories entries whose `{field}` has the wrong type")
            };
            self.malformed(what, || entry_at(Section::Categories, index, label(detail)));
        }
        for (field, missing) in [("id", c.id.is_none()), ("name", c.name.is_none())] {
            let wrong_type = c.problems.iter().any(|(f, _)| *f == field || f.is_empty());
            if missing && !wrong_type {
                self.malformed(format!("categories entries without `{field}`"), || {
                    entry_at(Section::Categories, index, label(&format!("no {field}")))
                });
            }
        }
        if let Some(id) = c.id {
            if !self.category_ids.insert(id) {
                self.malformed("categories entries with a duplicate id".into(), || {
                    entry_at(Section::Categories, index, label(&format!("id {id} again")))
                });
            }
            self.categories
                .push((id, c.name.clone().unwrap_or_default()));
        }
    }

    fn section_done(&mut self, section: Section) {
        self.seen[section as usize] = true;
        if section == Section::Images {
            self.images_done = true;
        }
    }

    fn not_an_array(&mut self, section: Section) {
        self.not_arrays.push(section);
    }
}

#[cfg(test)]
mod tests;
