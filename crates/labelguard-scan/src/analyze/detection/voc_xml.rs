//! Pascal VOC annotation XML. (Being written: issue 24.)

use crate::analyze::{Ctx, FileResult};
use crate::layout::Item;
use std::path::Path;

/// Analyses one VOC XML file whose image is `image`.
pub fn xml_file(item: &Item, image: Option<&Path>, ctx: &Ctx<'_>) -> FileResult {
    let _ = (image, ctx);
    todo!("VOC XML reader: {}", item.display)
}
