//! LG708 annotation-size-mismatch: the size an annotation records (a COCO RLE's `size`, VOC's
//! `<size>`, a COCO image's `width`/`height`) against the image.
//! Documentation: `labelguard_core::rules::lg708_annotation_size_mismatch`.

// ---- Pascal VOC XML ----

use crate::problem::problem;
use labelguard_core::rules::LG708;
use labelguard_core::Finding;
use std::path::Path;

/// A VOC `<size>` of `recorded` (width, height) that is not the `actual` size the image
/// `image`'s header says.
pub fn voc_size(image: &Path, recorded: (u64, u64), actual: (u64, u64)) -> Finding {
    let name = image
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let swapped = recorded == (actual.1, actual.0);
    problem(
        &LG708,
        format!(
            "<size> says {}x{} but {name} is {}x{}",
            recorded.0, recorded.1, actual.0, actual.1
        ),
    )
    .hint(if swapped {
        "width and height swapped: an EXIF-rotated photo, or a converter that wrote height first".to_string()
    } else {
        "the image was resized or replaced after labelling: the boxes were drawn on the image the <size> describes".to_string()
    })
    .fix("relabel on the current image, or scale the boxes to it and correct <size>")
}
