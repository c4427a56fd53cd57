//! Pascal VOC annotation XML: one file, read by [`labelguard_formats::read::voc_xml`], its objects checked
//! against the class list and the image, counted and judged by the [`Head`].
//!
//! The class list is `--classes` or a preset (`--preset pascal-voc`: background and the 20
//! VOC classes); without one, the layout infers it from the names every annotation uses
//! (`crate::layout::voc`): the 20 VOC classes when every name is one of them or a typo of one,
//! else the sorted set of names found. Names map to stored ids as torchvision's code does:
//! the list's index when it starts with a background entry, else the index plus one
//! (torchvision counts background as class 0); mmdet and detectron2 map the declared
//! classes to `0..K-1` ([`Head::model_id`]).
//!
//! Checks: names outside the list (LG702, with a did-you-mean for typos), boxes without area
//! or with non-numeric corners (LG705), boxes outside the image (LG706, VOC's coordinates are
//! 1-based: `1..=width` is inside), a `<size>` the image's header contradicts (LG708),
//! objects without `<name>`/`<bndbox>` and a missing or zero `<size>` (LG709), corrupt XML
//! (LG602, with the line and column) and an empty file (LG603). `difficult` and `truncated`
//! objects are counted into [`ObjectStats`](crate::analyze::ObjectStats) for the dataset's
//! LG712.

use super::head::{ClassTally, Head};
use super::overlay::{boxes_overlay, BoxMark};
use crate::analyze::{Ctx, FileKind, FileResult, Unit};
use crate::checks::lg602_corrupt_file as lg602;
use crate::checks::lg702_unknown_category as lg702;
use crate::checks::lg705_invalid_box as lg705;
use crate::checks::lg706_box_outside_image as lg706;
use crate::checks::lg708_annotation_size_mismatch as lg708;
use crate::checks::lg709_malformed_annotation as lg709;
use crate::layout::Item;
use labelguard_core::finding::MAX_LOCATIONS;
use labelguard_core::Location;
use labelguard_formats::read::header::image_header;
use labelguard_formats::read::voc_xml::{flag_set, parse, RawBox, VocObject};
use labelguard_formats::source::Source;
use std::collections::BTreeMap;

/// The largest VOC XML read (a real one is a few kilobytes).
const MAX_XML_BYTES: u64 = 64 << 20;

/// The class list as the analysis uses it: name -> stored id, and the declared (stored id,
/// name) pairs sorted by id, background excluded.
struct Classes {
    ids: BTreeMap<String, i64>,
    declared: Vec<(i64, String)>,
}

impl Classes {
    fn from_ctx(ctx: &Ctx<'_>) -> Classes {
        let mut by_index: Vec<(i64, String)> =
            ctx.class_map.iter().map(|(n, i)| (*i, n.clone())).collect();
        if by_index.is_empty() {
            // Scanned without a layout's inference (one file): the preset's VOC classes.
            by_index = labelguard_labels::preset::PASCAL_VOC
                .classes
                .iter()
                .enumerate()
                .map(|(i, n)| (i as i64, n.to_string()))
                .collect();
        }
        by_index.sort();
        let background = by_index
            .first()
            .is_some_and(|(i, n)| *i == 0 && is_background(n));
        let shift = i64::from(!background && ctx.framework.counts_background());
        let declared: Vec<(i64, String)> = by_index
            .into_iter()
            .filter(|(i, n)| !(background && *i == 0 && is_background(n)))
            .map(|(i, n)| (i + shift, n))
            .collect();
        Classes {
            ids: declared.iter().map(|(i, n)| (n.clone(), *i)).collect(),
            declared,
        }
    }
}

fn is_background(name: &str) -> bool {
    matches!(name, "background" | "__background__" | "_background_")
}

fn opt(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("?")
}

/// How an object is shown in a location: `name 'persn' bndbox (12, 30, 50, 80)`.
fn describe(o: &VocObject) -> String {
    let name = match &o.name {
        Some(n) => format!("name '{}'", labelguard_core::clip::echo(n)),
        None => "no <name>".to_string(),
    };
    match &o.bndbox {
        Some(b) => format!(
            "{name} bndbox ({}, {}, {}, {})",
            labelguard_core::clip::echo(opt(&b.xmin)),
            labelguard_core::clip::echo(opt(&b.ymin)),
            labelguard_core::clip::echo(opt(&b.xmax)),
            labelguard_core::clip::echo(opt(&b.ymax)),
        ),
        None => format!("{name}, no <bndbox>"),
    }
}

fn at(i: usize, o: &VocObject) -> Location {
    Location {
        tensor: "object".into(),
        index: vec![i],
        value: describe(o),
    }
}

/// A box's corners as numbers; `Err(())` when one is not a finite number, `Ok(None)` when one
/// is missing.
fn corners(b: &RawBox) -> Result<Option<[f64; 4]>, ()> {
    let mut out = [0.0; 4];
    for (k, v) in [&b.xmin, &b.ymin, &b.xmax, &b.ymax].into_iter().enumerate() {
        let Some(v) = v else { return Ok(None) };
        match v.parse::<f64>() {
            Ok(x) if x.is_finite() => out[k] = x,
            _ => return Err(()),
        }
    }
    Ok(Some(out))
}

fn size_value(v: &Option<String>) -> Option<u64> {
    v.as_deref()?
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 1.0)
        .map(|x| x as u64)
}

fn push_first(v: &mut Vec<Location>, i: usize, o: &VocObject) {
    if v.len() < MAX_LOCATIONS {
        v.push(at(i, o));
    }
}

/// Analyses one VOC XML file whose image is `image`.
pub fn xml_file(item: &Item, image: Option<&Source>, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Annotations);
    r.unit = Unit::Objects;
    let mut bytes = Vec::new();
    let limit = ctx.max_file_bytes().min(MAX_XML_BYTES);
    if let Err(f) = item.source.read_all(limit, &mut bytes) {
        r.findings.push(f);
        return r;
    }
    let doc = match parse(&bytes) {
        Ok(d) => d,
        Err(e) => {
            r.findings.push(lg602::corrupt_text("VOC XML", &e.detail));
            return r;
        }
    };
    drop(bytes);
    let classes = Classes::from_ctx(ctx);

    // The size: the image's header when it can be read, else <size>.
    let recorded = doc
        .size
        .as_ref()
        .map(|s| (size_value(&s.width), size_value(&s.height)));
    let header = image
        .and_then(|p| image_header(p).ok())
        .map(|h| (h.width, h.height));
    match (&doc.size, recorded) {
        (None, _) => r.findings.push(lg709::voc_size("is missing")),
        (Some(s), Some((None, _) | (_, None))) => r.findings.push(lg709::voc_size(&format!(
            "says {}x{}: not a size (width and height must be whole numbers of at least 1)",
            labelguard_core::clip::echo(opt(&s.width)),
            labelguard_core::clip::echo(opt(&s.height)),
        ))),
        (_, Some((Some(w), Some(h)))) => {
            if let (Some(img), Some(actual)) = (image, header) {
                if actual != (w, h) {
                    r.findings
                        .push(lg708::voc_size(&img.describe(), (w, h), actual));
                }
            }
        }
        _ => {}
    }
    let from_size = match recorded {
        Some((Some(w), Some(h))) => Some(((w, h), "the annotation's <size>")),
        _ => None,
    };
    let reference = header.map(|s| (s, "the image's header")).or(from_size);

    let mut tally = ClassTally::default();
    let mut unknown: BTreeMap<String, u64> = BTreeMap::new();
    let mut unknown_first: BTreeMap<String, Location> = BTreeMap::new();
    let (mut no_name, mut no_box, mut no_corner) = (0u64, 0u64, 0u64);
    let mut malformed_first = Vec::new();
    let (mut empty, mut not_numbers) = (0u64, 0u64);
    let mut invalid_first = Vec::new();
    let (mut outside, mut zero_based) = (0u64, true);
    let mut outside_first = Vec::new();
    let mut marks = Vec::new();
    for (i, o) in doc.objects.iter().enumerate() {
        let mut bad = false;
        if flag_set(o.difficult.as_deref()) {
            r.objects.difficult += 1;
        }
        if flag_set(o.truncated.as_deref()) {
            r.objects.truncated += 1;
        }
        match &o.name {
            Some(n) if !n.is_empty() => match classes.ids.get(n) {
                Some(&id) => tally.add(id, || at(i, o)),
                None => {
                    bad = true;
                    *unknown.entry(n.clone()).or_insert(0) += 1;
                    unknown_first.entry(n.clone()).or_insert_with(|| at(i, o));
                }
            },
            _ => {
                bad = true;
                no_name += 1;
                push_first(&mut malformed_first, i, o);
            }
        }
        let Some(b) = &o.bndbox else {
            no_box += 1;
            r.bad += 1;
            if o.name.as_deref().is_some_and(|n| !n.is_empty()) {
                push_first(&mut malformed_first, i, o);
            }
            continue;
        };
        match corners(b) {
            Ok(None) => {
                bad = true;
                no_corner += 1;
                if o.name.as_deref().is_some_and(|n| !n.is_empty()) {
                    push_first(&mut malformed_first, i, o);
                }
            }
            Err(()) => {
                bad = true;
                not_numbers += 1;
                push_first(&mut invalid_first, i, o);
            }
            Ok(Some([x0, y0, x1, y1])) => {
                if x1 <= x0 || y1 <= y0 {
                    bad = true;
                    empty += 1;
                    push_first(&mut invalid_first, i, o);
                } else if let Some(((w, h), _)) = reference {
                    if x0 < 1.0 || y0 < 1.0 || x1 > w as f64 || y1 > h as f64 {
                        bad = true;
                        outside += 1;
                        zero_based &= x0 >= 0.0 && y0 >= 0.0 && x1 <= w as f64 && y1 <= h as f64;
                        push_first(&mut outside_first, i, o);
                    }
                }
                marks.push(BoxMark {
                    x0: x0 - 1.0,
                    y0: y0 - 1.0,
                    x1: x1 - 1.0,
                    y1: y1 - 1.0,
                    bad,
                });
            }
        }
        if bad {
            r.bad += 1;
        }
    }
    Head::of(ctx, &classes.declared, "class").judge(&tally, &mut r);
    if ctx.opts.class_names.is_empty() {
        // A class list inferred from the names found (or VOC's, when every name is one of
        // its classes) is not the user's: its classes no file uses are not findings (LG609),
        // so only the names of the classes seen are declared.
        let seen: Vec<i64> = r.histogram.iter().map(|(id, _)| *id).collect();
        r.declared.retain(|(id, _)| seen.contains(id));
    }
    let unknown_objects: u64 = unknown.values().sum();
    r.elements += unknown_objects;
    if !unknown.is_empty() {
        let known: Vec<&str> = classes.declared.iter().map(|(_, n)| n.as_str()).collect();
        let list: Vec<(String, u64)> = unknown.into_iter().collect();
        let first = list
            .iter()
            .filter_map(|(n, _)| unknown_first.get(n).cloned())
            .take(MAX_LOCATIONS)
            .collect();
        r.findings
            .push(lg702::voc_unknown_names(&list, first, &known));
    }
    if empty + not_numbers > 0 {
        r.findings
            .push(lg705::voc_invalid_boxes(empty, not_numbers, invalid_first));
    }
    if outside > 0 {
        if let Some(((w, h), from)) = reference {
            r.findings.push(lg706::voc_outside(
                outside,
                w,
                h,
                from,
                zero_based,
                outside_first,
            ));
        }
    }
    if no_name + no_box + no_corner > 0 {
        let mut what = Vec::new();
        if no_name > 0 {
            what.push(format!("{no_name} without <name>"));
        }
        if no_box > 0 {
            what.push(format!("{no_box} without <bndbox>"));
        }
        if no_corner > 0 {
            what.push(format!("{no_corner} without a <bndbox> corner"));
        }
        let n = doc
            .objects
            .iter()
            .filter(|o| {
                o.name.as_deref().is_none_or(str::is_empty)
                    || o.bndbox
                        .as_ref()
                        .is_none_or(|b| matches!(corners(b), Ok(None)))
            })
            .count() as u64;
        r.findings
            .push(lg709::voc_objects(n, &what, malformed_first));
    }
    if ctx.opts.overlays && !r.findings.is_empty() {
        let size = reference.map(|(s, _)| s);
        r.overlay = boxes_overlay(image, size, &marks, ctx.opts.max_pixels);
    }
    r
}
