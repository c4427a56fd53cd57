//! LG706 box-outside-image: boxes and polygon points outside the image (COCO, VOC), and YOLO
//! coordinates outside `[0, 1]`.
//! Documentation: `labelguard_core::rules::lg706_box_outside_image`.

// ---- Pascal VOC XML ----

use crate::problem::problem;
use labelguard_core::rules::LG706;
use labelguard_core::{Finding, Location};

/// VOC boxes outside an image of `width x height` (`from`: where the size comes from, the
/// image's header or `<size>`); VOC's pixel coordinates are 1-based, so `1..=width` is inside.
pub fn voc_outside(
    n: u64,
    width: u64,
    height: u64,
    from: &str,
    zero_based: bool,
    first: Vec<Location>,
) -> Finding {
    let hint = if zero_based {
        "VOC's coordinates are 1-based (1..width): a 0 comes from a converter that writes 0-based pixels; mmdet's VOC loader subtracts 1 and gets -1".to_string()
    } else {
        "the boxes were drawn on another size of the image (resized after labelling), or by a converter that does not clip them; random crops and flips then place the object where it is not".to_string()
    };
    let mut f = problem(
        &LG706,
        format!(
            "{} outside the {width}x{height} image (size from {from}; VOC coordinates run 1..{width}, 1..{height})",
            if n == 1 { "1 box is".to_string() } else { format!("{n} boxes are") },
        ),
    )
    .hint(hint)
    .fix("clip the boxes to the image (xmin, ymin >= 1, xmax <= width, ymax <= height), or relabel them on the image as it is");
    f.count = Some(n);
    f.locations = first;
    f
}
