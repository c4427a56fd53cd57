//! ImageFolder samples: an image's header (its size, checked against `--max-pixels`) and one
//! histogram sample for its class folder (none for a photo without a class).

use super::ctx::Ctx;
use super::result::{FileKind, FileResult, Unit};
use crate::layout::Item;
use labelguard_formats::read::header::image_header;
use labelguard_formats::read::mask::check_pixels;

pub(crate) fn image_sample(item: &Item, class: &str, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Image);
    r.unit = Unit::Samples;
    match image_header(&item.source) {
        Ok(h) => {
            if let Err(p) = check_pixels(h.format, h.width, h.height, 1, ctx.opts.max_pixels) {
                r.findings.push(p);
                return r;
            }
            r.shape = Some(vec![h.height as usize, h.width as usize]);
            // A photo without a class (`Task::photo`) is no sample of any class.
            if !class.is_empty() {
                let id = ctx.class_map.get(class).copied().unwrap_or(-1);
                r.histogram = vec![(id, 1)];
                r.elements = 1;
            }
        }
        Err(p) => r.findings.push(p),
    }
    r
}
