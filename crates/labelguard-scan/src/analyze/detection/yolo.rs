//! YOLO label files: one object per line (`class cx cy w h`, or `class x1 y1 ...` for
//! polygons), normalised coordinates. Each line is parsed ([`labelguard_formats::read::yolo`]) into a
//! buffer reused from line to line, checked (LG705, LG706, LG709, LG711, and LG710 for a file
//! mixing boxes and polygons) and its class counted; [`Head::judge`] then decides the classes
//! (LG701) and fills the histogram.
//!
//! The image is not read: the layout checks that it exists (LG707), and YOLO's coordinates are
//! fractions of its size, so its pixels decide nothing here.

use super::head::{ClassTally, Head};
use super::overlay::{boxes_overlay, BoxMark};
use crate::analyze::{Buffers, Ctx, FileKind, FileResult};
use crate::checks::lg602_corrupt_file;
use crate::checks::lg705_invalid_box as lg705;
use crate::checks::lg706_box_outside_image as lg706;
use crate::checks::lg709_malformed_annotation as lg709;
use crate::checks::lg710_mixed_boxes_and_polygons as lg710;
use crate::checks::lg711_duplicate_annotation as lg711;
use crate::layout::Item;
use labelguard_core::finding::MAX_LOCATIONS;
use labelguard_core::rules::{LG603, LG704};
use labelguard_core::Location;
use labelguard_formats::read::yolo::{
    class_id, lines, looks_binary, parse_line, row_hash, shape, Line, Shape, MAX_LABEL_BYTES,
};
use labelguard_formats::source::Source;
use std::collections::HashMap;

/// The most characters of a line a location shows.
const LINE_ECHO: usize = 80;

fn location(line: usize, text: &[u8]) -> Location {
    Location {
        tensor: "line".into(),
        index: vec![line],
        value: labelguard_core::clip::clip(String::from_utf8_lossy(text).trim(), LINE_ECHO),
    }
}

fn keep(first: &mut Vec<Location>, line: usize, text: &[u8]) {
    if first.len() < MAX_LOCATIONS {
        first.push(location(line, text));
    }
}

/// Analyses one YOLO label file whose image is `image` (only its header is read, and only for
/// the HTML report's picture of a file with findings).
pub fn label_file(
    item: &Item,
    image: Option<&Source>,
    ctx: &Ctx<'_>,
    bufs: &mut Buffers,
) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Annotations);
    let head = Head::of(ctx, &ctx.declared, "class id");
    let mut tally = ClassTally::default();
    match item.source.read_all(MAX_LABEL_BYTES, &mut bufs.file) {
        Ok(()) => {}
        // An empty label file is a background image, as ultralytics trains it.
        Err(f) if f.code == LG603.code => {
            judge(&head, &tally, &mut r);
            return r;
        }
        Err(f) => {
            r.findings.push(f);
            return r;
        }
    }
    let bytes = &bufs.file[..];
    if looks_binary(bytes) {
        r.findings.push(lg602_corrupt_file::corrupt_text(
            "YOLO label file",
            "it holds binary data (NUL bytes), not lines of numbers: an image or an archive saved under a label's name",
        ));
        return r;
    }
    let mut values: Vec<f64> = Vec::with_capacity(16);
    let mut earlier: Vec<f64> = Vec::new();
    let mut malformed = lg709::YoloMalformed::default();
    let mut outside = lg706::YoloOutside {
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
        ..Default::default()
    };
    let mut invalid = lg705::YoloInvalid::default();
    let (mut boxes, mut polygons) = (0u64, 0u64);
    // The first box lines, as (line number, byte range): shown only if the file turns out to
    // mix boxes and polygons (LG710), so not made into locations for every clean file.
    let mut first_boxes: Vec<(usize, usize, usize)> = Vec::new();
    // Row hash -> (line number, byte range) of the first line with those numbers.
    let mut seen: HashMap<u64, (usize, usize, usize)> = HashMap::new();
    let (mut repeats, mut first_repeats) = (0u64, Vec::new());
    let tol = lg706::YOLO_TOLERANCE;
    // Where an id's first object is: only LG701 shows it, so only ids it may be about get one
    // (three strings per id and file saved on clean files).
    let c = ctx.opts.num_classes;
    let remaps = ctx.framework.remaps();
    let located =
        |id: i64| c.is_some() && (remaps || id < 0 || c.is_some_and(|c| id >= i64::from(c)));
    for (n, text) in lines(bytes) {
        match parse_line(text, &mut values) {
            Line::Blank => continue,
            Line::NotANumber { .. } => {
                malformed.lines += 1;
                malformed.not_numbers += 1;
                keep(&mut malformed.first, n, text);
                continue;
            }
            Line::Numbers => malformed.lines += 1,
        }
        let is_box = match shape(values.len()) {
            Shape::Malformed => {
                malformed.wrong_columns += 1;
                malformed.six_columns += u64::from(values.len() == 6);
                keep(&mut malformed.first, n, text);
                continue;
            }
            Shape::Box => true,
            Shape::Polygon { .. } => false,
        };
        let Some(id) = class_id(values[0]) else {
            malformed.class_not_integer += 1;
            keep(&mut malformed.first, n, text);
            continue;
        };
        let coords = &values[1..];
        if coords.iter().any(|c| !c.is_finite()) {
            invalid.not_finite += 1;
            keep(&mut invalid.first, n, text);
        } else {
            // What ultralytics bounds: a box's `cx cy w h` as written, a polygon's box (the
            // centre and size of its points' bounds), each within [0, 1] give or take 1%.
            let judged = if is_box {
                [coords[0], coords[1], coords[2], coords[3]]
            } else {
                polygon_box(coords)
            };
            if judged.iter().any(|c| *c < -tol || *c > 1.0 + tol) {
                outside.lines += 1;
                for c in coords {
                    outside.min = outside.min.min(*c);
                    outside.max = outside.max.max(*c);
                }
                keep(&mut outside.first, n, text);
            }
            if is_box && (coords[2] <= 0.0 || coords[3] <= 0.0) {
                invalid.no_area += 1;
                keep(&mut invalid.first, n, text);
            }
        }
        let start = text.as_ptr() as usize - bytes.as_ptr() as usize;
        if is_box {
            boxes += 1;
            if first_boxes.len() < MAX_LOCATIONS {
                first_boxes.push((n, start, start + text.len()));
            }
        } else {
            polygons += 1;
        }
        if located(id) {
            tally.add(id, || location(n, text));
        } else {
            *tally.counts.entry(id).or_insert(0) += 1;
        }
        match seen.entry(row_hash(&values)) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert((n, start, start + text.len()));
            }
            std::collections::hash_map::Entry::Occupied(o) => {
                let (m, a, b) = *o.get();
                parse_line(&bytes[a..b], &mut earlier);
                let same = earlier.len() == values.len()
                    && earlier
                        .iter()
                        .zip(&values)
                        .all(|(x, y)| (*x as f32) == (*y as f32));
                if same {
                    repeats += 1;
                    if first_repeats.len() < MAX_LOCATIONS {
                        let mut l = location(n, text);
                        l.value = format!("{} (line {m} again)", l.value);
                        first_repeats.push(l);
                    }
                }
            }
        }
    }
    r.findings.extend(lg709::yolo_lines(&malformed));
    r.findings.extend(lg706::yolo_outside(&outside));
    r.findings.extend(lg705::yolo_invalid(&invalid));
    if boxes > 0 && polygons > 0 {
        let first_boxes = first_boxes
            .iter()
            .map(|&(n, a, b)| location(n, &bytes[a..b]))
            .collect();
        r.findings
            .push(lg710::yolo_file_mixes(boxes, polygons, first_boxes));
    }
    r.findings.extend(lg711::yolo_duplicates(
        repeats,
        malformed.lines,
        first_repeats,
    ));
    r.objects.files_with_polygons = u64::from(polygons > 0);
    r.objects.files_with_boxes = u64::from(polygons == 0 && boxes > 0);
    judge(&head, &tally, &mut r);
    if ctx.opts.overlays && !r.findings.is_empty() {
        r.overlay = overlay(bytes, image, &r.findings, ctx.opts.max_pixels);
    }
    r
}

/// A polygon's box as ultralytics derives it (`segments2boxes`): the centre and size of the
/// bounds of its points.
fn polygon_box(points: &[f64]) -> [f64; 4] {
    let (mut x0, mut y0) = (f64::INFINITY, f64::INFINITY);
    let (mut x1, mut y1) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    for p in points.chunks_exact(2) {
        x0 = x0.min(p[0]);
        x1 = x1.max(p[0]);
        y0 = y0.min(p[1]);
        y1 = y1.max(p[1]);
    }
    [(x0 + x1) / 2.0, (y0 + y1) / 2.0, x1 - x0, y1 - y0]
}

/// The picture of a label file with findings, for the HTML report: its image with every
/// object's box (a polygon's bounds), the lines a finding names in red. Coordinates are
/// normalised: the image header gives the pixels (a grey canvas of 640x640 without one).
fn overlay(
    bytes: &[u8],
    image: Option<&Source>,
    findings: &[labelguard_core::Finding],
    max_pixels: u64,
) -> Option<crate::overlay::Overlay> {
    let size = image
        .and_then(|p| labelguard_formats::read::header::image_header(p).ok())
        .map(|h| (h.width, h.height));
    let (w, h) = size.map_or((640.0, 640.0), |(w, h)| (w as f64, h as f64));
    let bad: std::collections::HashSet<usize> = findings
        .iter()
        .flat_map(|f| &f.locations)
        .filter(|l| l.tensor == "line")
        .filter_map(|l| l.index.first().copied())
        .collect();
    let mut values = Vec::new();
    let mut marks = Vec::new();
    for (n, text) in lines(bytes) {
        if !matches!(parse_line(text, &mut values), Line::Numbers) || values.len() < 5 {
            continue;
        }
        let c = &values[1..];
        let (x0, y0, x1, y1) = match shape(values.len()) {
            Shape::Box => (
                c[0] - c[2] / 2.0,
                c[1] - c[3] / 2.0,
                c[0] + c[2] / 2.0,
                c[1] + c[3] / 2.0,
            ),
            Shape::Polygon { .. } => {
                let xs = c.iter().step_by(2);
                let ys = c.iter().skip(1).step_by(2);
                (
                    xs.clone().fold(f64::INFINITY, |a, b| a.min(*b)),
                    ys.clone().fold(f64::INFINITY, |a, b| a.min(*b)),
                    xs.fold(f64::NEG_INFINITY, |a, b| a.max(*b)),
                    ys.fold(f64::NEG_INFINITY, |a, b| a.max(*b)),
                )
            }
            Shape::Malformed => continue,
        };
        if [x0, y0, x1, y1].iter().all(|v| v.is_finite()) {
            marks.push(BoxMark {
                x0: x0 * w,
                y0: y0 * h,
                x1: x1 * w,
                y1: y1 * h,
                bad: bad.contains(&n),
            });
        }
    }
    boxes_overlay(image, size.or(Some((640, 640))), &marks, max_pixels)
}

/// [`Head::judge`], less LG704: every file of the dataset has the same declared classes, so a
/// head larger than they need is the dataset's finding
/// (`crate::report::dataset_checks::lg704_head_class_count_mismatch`), not every file's.
///
/// The declared classes (data.yaml's names) are handed to the head only where they change the
/// outcome: a framework that remaps them, or a file with a class outside the head (LG701 names
/// the cause from them). Otherwise they would be copied into every file's result, 80 names
/// times 100,000 files, for rows the report already has: its class names and the rows
/// `0..num_classes` come from the settings.
fn judge(head: &Head<'_>, tally: &ClassTally, r: &mut FileResult) {
    let c = head.num_classes;
    let needed = head.framework.remaps()
        || tally
            .counts
            .keys()
            .any(|&id| id < 0 || c.is_some_and(|c| id >= i64::from(c)));
    let lean = Head {
        declared: &[],
        ..*head
    };
    if needed { head } else { &lean }.judge(tally, r);
    r.findings.retain(|f| f.code != LG704.code);
}
