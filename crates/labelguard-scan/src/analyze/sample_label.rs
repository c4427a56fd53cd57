//! The class label of a WebDataset sample: a text integer (`.cls`, read as WebDataset's
//! `basichandlers` reads it, `int(data)`) or a JSON object's label field. One label is one
//! sample of the histogram; past `--num-classes` it is LG101, as an ImageFolder class past the
//! head is. A label that is not an id
//! (nor, with `--classes`, a class name) is LG612, as in a label table.

use super::buffers::Buffers;
use super::class_ids::class_check;
use super::ctx::Ctx;
use super::result::{FileKind, FileResult, Unit};
use crate::checks::lg101_class_id_out_of_range as lg101;
use crate::checks::lg602_corrupt_file as lg602;
use crate::checks::lg612_unknown_label;
use crate::layout::Item;
use labelguard_core::TensorView;
use labelguard_formats::bad_cell::BadCell;

/// The JSON fields that hold a sample's class, in the order they are looked for.
pub const JSON_LABEL_FIELDS: &[&str] = &["label", "class", "class_id", "category_id", "cls"];

/// A class label file is a few bytes: anything past this is not one label.
const MAX_LABEL_BYTES: u64 = 1 << 20;

/// A `.cls` part (`ext`): its text, stripped of whitespace as Python's `int()` strips it.
pub(crate) fn class_text(item: &Item, ext: &str, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    let mut r = labelled(item);
    if let Err(p) = item.source.read_all(MAX_LABEL_BYTES, &mut bufs.file) {
        r.findings.push(p);
        return r;
    }
    let text = String::from_utf8_lossy(&bufs.file);
    label(&mut r, ext, text.trim(), ctx);
    r
}

/// A `.json` part (`ext`): the first of [`JSON_LABEL_FIELDS`] it has, when it is an integer or
/// a string; a JSON without one of them holds no label and is not counted.
pub(crate) fn class_json(item: &Item, ext: &str, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    let mut r = labelled(item);
    if let Err(p) = item.source.read_all(ctx.max_file_bytes(), &mut bufs.file) {
        r.findings.push(p);
        return r;
    }
    let value: serde_json::Value = match serde_json::from_slice(&bufs.file) {
        Ok(v) => v,
        Err(e) => {
            r.findings
                .push(lg602::corrupt_text(&format!("{ext} part"), &e.to_string()));
            return r;
        }
    };
    let Some((field, v)) = JSON_LABEL_FIELDS
        .iter()
        .find_map(|f| value.get(f).map(|v| (*f, v)))
    else {
        return r;
    };
    let name = format!("{ext}.{field}");
    match v {
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(id) => check_id(&mut r, &name, id, ctx),
            None => label(&mut r, &name, &n.to_string(), ctx),
        },
        serde_json::Value::String(s) => label(&mut r, &name, s, ctx),
        _ => {}
    }
    r
}

fn labelled(item: &Item) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Table);
    r.unit = Unit::Samples;
    r
}

/// One label as text: an integer id, a class name of `--classes`, or LG612.
fn label(r: &mut FileResult, name: &str, text: &str, ctx: &Ctx<'_>) {
    let id = text
        .parse::<i64>()
        .ok()
        .or_else(|| ctx.class_map.get(text).copied());
    match id {
        Some(id) => check_id(r, name, id, ctx),
        None => {
            let cell = BadCell {
                row: 0,
                text: labelguard_core::clip::echo(text),
            };
            let have_classes = !ctx.class_map.is_empty();
            let values = [(cell.text.clone(), 1)];
            if let Some(f) = lg612_unknown_label::finding(
                name,
                1,
                1,
                std::slice::from_ref(&cell),
                &values,
                have_classes,
            ) {
                r.bad += 1;
                r.findings.push(f);
            }
        }
    }
}

/// One id: a sample of the histogram, as an ImageFolder image is. Past the class count it is
/// the plain LG101 ([`lg101::sample_label_out_of_range`]); a negative id goes through the
/// core's class-id analysis, which names it (LG102, or LG103-style causes for the ignore value).
fn check_id(r: &mut FileResult, name: &str, id: i64, ctx: &Ctx<'_>) {
    r.shape = Some(vec![1]);
    let too_large = ctx
        .opts
        .num_classes
        .filter(|&c| id >= i64::from(c) && id != ctx.opts.ignore_index);
    match too_large {
        Some(c) => {
            r.findings
                .push(lg101::sample_label_out_of_range(name, id, c));
            r.bad += 1;
            r.elements += 1;
            r.histogram = vec![(id, 1)];
        }
        None => class_check(r, &TensorView::of_i64(&[id]), name, ctx, None),
    }
}
