//! LG706 box-outside-image: boxes and polygon points outside the image (COCO, VOC), and YOLO
//! coordinates outside `[0, 1]`.
//! Documentation: `labelguard_core::rules::lg706_box_outside_image`.

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
    let mut f = crate::problem::problem(&labelguard_core::rules::LG706, message)
        .hint(hint)
        .fix("divide x and w by the image's width and y and h by its height, and clip to [0, 1]")
        .severity(Severity::Error);
    f.verdict = Verdict::Silent;
    f.count = Some(o.lines);
    f.locations = o.first.clone();
    Some(f)
}
