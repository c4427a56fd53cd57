//! LG706 box-outside-image: boxes and polygon points outside the image (COCO, VOC), and YOLO
//! coordinates outside `[0, 1]`.
//! Documentation: `labelguard_core::rules::lg706_box_outside_image`.

// ---- Pascal VOC XML ----

use labelguard_core::rules::LG706;
use labelguard_core::{Finding, Location};
use labelguard_formats::problem::problem;

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

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use crate::checks::lg709_malformed_annotation::coco::examples;
    use labelguard_core::finding::count;
    use labelguard_core::rules::LG706;
    use labelguard_core::{Finding, Location};
    use labelguard_formats::problem::problem;

    /// How far (in pixels) a COCO box or point may lie outside its image before it is reported:
    /// converters round coordinates, and `x + w` of a box along the border lands a fraction over.
    pub const TOLERANCE_PX: f64 = 1.0;

    /// Whether `bounds` (min x, min y, max x, max y) reach outside an image of `width` x `height`
    /// by more than [`TOLERANCE_PX`].
    pub fn outside(bounds: [f64; 4], width: f64, height: f64) -> bool {
        let t = TOLERANCE_PX;
        bounds[0] < -t || bounds[1] < -t || bounds[2] > width + t || bounds[3] > height + t
    }

    /// `n` COCO annotations whose box or polygon reaches outside the image's `width`/`height`.
    pub fn outside_image(n: u64, first: &[Location]) -> Finding {
        problem(
            &LG706,
            format!(
                "{} {} a bbox or polygon outside the image's width x height (by more than {TOLERANCE_PX} px): {}",
                count(n, "annotation"),
                if n == 1 { "has" } else { "have" },
                examples(first)
            ),
        )
        .hint("boxes from another resolution of the image (annotated on a resized copy), or an `images` entry whose width/height are swapped")
        .fix("clip the boxes and polygons to the image, or correct the image's width and height in `images`")
        .evidence(first.to_vec(), n, Vec::new())
    }
}

// --- YOLO label files ---------------------------------------------------------------------

/// How far a YOLO coordinate may go outside `[0, 1]` before ultralytics refuses the file
/// (`verify_image_label` allows 1%).
pub const YOLO_TOLERANCE: f64 = 0.01;

/// The objects of one YOLO label file with a coordinate outside `[0, 1]` (beyond
/// [`YOLO_TOLERANCE`]).
#[derive(Debug, Default)]
pub struct YoloOutside {
    /// Lines with such a coordinate.
    pub lines: u64,
    /// The largest and smallest coordinate seen on them.
    pub max: f64,
    pub min: f64,
    pub first: Vec<labelguard_core::Location>,
}

/// An Error for YOLO: ultralytics refuses the whole file. `None` when no line is outside.
pub fn yolo_outside(o: &YoloOutside) -> Option<labelguard_core::Finding> {
    use labelguard_core::finding::count;
    use labelguard_core::{Severity, Verdict};
    if o.lines == 0 {
        return None;
    }
    let message = format!(
        "{} {} coordinates outside [0, 1] (from {} to {}); YOLO coordinates are fractions of the image's width and height",
        count(o.lines, "object"),
        if o.lines == 1 { "has" } else { "have" },
        o.min,
        o.max
    );
    let hint = if o.max > 2.0 {
        format!("values up to {}: pixel coordinates, not divided by the image's width and height; ultralytics refuses the whole file ('non-normalized or out of bounds coordinates') and ignores the image and all its labels", o.max)
    } else {
        "ultralytics refuses the whole file ('non-normalized or out of bounds coordinates', 1% tolerance) and ignores the image and all its labels; slightly out of range values come from a converter that does not clip".to_string()
    };
    let mut f = labelguard_formats::problem::problem(&labelguard_core::rules::LG706, message)
        .hint(hint)
        .fix("divide x and w by the image's width and y and h by its height, and clip to [0, 1]")
        .severity(Severity::Error);
    f.verdict = Verdict::Silent;
    f.count = Some(o.lines);
    f.locations = o.first.clone();
    Some(f)
}
