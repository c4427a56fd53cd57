//! YOLO label files: one object per line (`class cx cy w h`, or `class x1 y1 ...` for
//! polygons), normalised coordinates. (Being written: issue 24.)

use crate::analyze::{Ctx, FileKind, FileResult};
use crate::layout::Item;
use std::path::Path;

/// Analyses one YOLO label file whose image is `image`. (Being written: issue 24.)
pub fn label_file(item: &Item, image: Option<&Path>, ctx: &Ctx<'_>) -> FileResult {
    let _ = (image, ctx, FileKind::Annotations);
    todo!("YOLO reader: {}", item.display)
}
