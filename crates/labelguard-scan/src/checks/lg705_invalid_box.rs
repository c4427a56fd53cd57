//! LG705 invalid-box: boxes without area (zero or negative width or height, inverted corners)
//! or with a coordinate that is not a finite number.
//! Documentation: `labelguard_core::rules::lg705_invalid_box`.

// ---- Pascal VOC XML ----

use labelguard_core::rules::LG705;
use labelguard_core::{Finding, Location};
use labelguard_formats::problem::problem;

/// VOC `<bndbox>`es without area (`empty`: `xmax <= xmin` or `ymax <= ymin`) or with a
/// coordinate that is not a finite number (`not_numbers`); `first` the first of them.
pub fn voc_invalid_boxes(empty: u64, not_numbers: u64, first: Vec<Location>) -> Finding {
    let n = empty + not_numbers;
    let mut parts = Vec::new();
    if empty > 0 {
        parts.push(format!(
            "{empty} without area (xmax <= xmin or ymax <= ymin)"
        ));
    }
    if not_numbers > 0 {
        parts.push(format!(
            "{not_numbers} with a coordinate that is not a number"
        ));
    }
    let hint = if not_numbers > 0 {
        "a coordinate written as text a loader cannot convert: int()/float() raise ValueError when the file is read; an empty <xmin/> comes from an export that lost the value"
    } else {
        "corners swapped by a converter (xmin written where xmax belongs), or a click-without-drag box; torchvision's detection models raise 'All bounding boxes should have positive height and width'"
    };
    let mut f = problem(
        &LG705,
        format!(
            "{} invalid: {}",
            if n == 1 {
                "1 box is".to_string()
            } else {
                format!("{n} boxes are")
            },
            parts.join(", ")
        ),
    )
    .hint(hint)
    .fix("correct the corners (xmin < xmax, ymin < ymax, in pixels) or drop the objects");
    f.count = Some(n);
    f.locations = first;
    f
}

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use crate::checks::lg709_malformed_annotation::coco::examples;
    use labelguard_core::finding::count;
    use labelguard_core::rules::LG705;
    use labelguard_core::{Finding, Location};
    use labelguard_formats::problem::problem;

    /// What is wrong with a COCO `bbox` `[x, y, w, h]` (`finite`: every value is a finite number),
    /// if anything.
    pub fn box_problem(b: &[f64; 4], finite: bool) -> Option<&'static str> {
        if !finite || b.iter().any(|v| !v.is_finite()) {
            Some("a value that is not a finite number")
        } else if b[2] <= 0.0 && b[3] <= 0.0 {
            Some("width and height not positive")
        } else if b[2] <= 0.0 {
            Some("width not positive")
        } else if b[3] <= 0.0 {
            Some("height not positive")
        } else {
            None
        }
    }

    /// `n` COCO annotations whose `bbox` has no area or is not finite; `first` the first of them.
    pub fn invalid_boxes(n: u64, first: &[Location]) -> Finding {
        problem(
            &LG705,
            format!(
                "{} {} a bbox without area or with a value that is not finite: {}",
                count(n, "annotation"),
                if n == 1 { "has" } else { "have" },
                examples(first)
            ),
        )
        .hint("COCO's bbox is [x, y, width, height]: a converter that writes [x1, y1, x2, y2] makes boxes whose 'width' is negative, and json.dump writes NaN for a failed computation. torchvision raises 'All bounding boxes should have positive height and width'")
        .fix("correct the boxes (width = x2 - x1, height = y2 - y1) or drop the annotations")
        .evidence(first.to_vec(), n, Vec::new())
    }
}

// --- YOLO label files ---------------------------------------------------------------------

/// The objects of one YOLO label file without area or with a coordinate that is not finite.
#[derive(Debug, Default)]
pub struct YoloInvalid {
    /// Box lines whose `w` or `h` is zero or negative.
    pub no_area: u64,
    /// Lines with a NaN or infinite coordinate.
    pub not_finite: u64,
    pub first: Vec<labelguard_core::Location>,
}

/// `None` when every object is valid.
pub fn yolo_invalid(v: &YoloInvalid) -> Option<labelguard_core::Finding> {
    use labelguard_core::finding::count;
    let n = v.no_area + v.not_finite;
    if n == 0 {
        return None;
    }
    let mut parts = Vec::new();
    if v.no_area > 0 {
        parts.push(format!(
            "{} {} with a width or height of zero or less",
            v.no_area,
            if v.no_area == 1 { "box" } else { "boxes" }
        ));
    }
    if v.not_finite > 0 {
        parts.push(format!(
            "{} with a coordinate that is NaN or infinite",
            count(v.not_finite, "object")
        ));
    }
    let hint = if v.not_finite > 0 {
        "a NaN coordinate comes from a division by a zero image size in the converter; ultralytics ignores the image ('ignoring corrupt image/label'), other loaders pass the NaN on to the loss"
    } else {
        "a converter that writes 'x2 y2' where 'w h' belong, or a point annotated as a box; box regression divides by the box's size"
    };
    let mut f = labelguard_formats::problem::problem(
        &labelguard_core::rules::LG705,
        format!("{} {} invalid: {}", count(n, "object"), if n == 1 { "is" } else { "are" }, parts.join("; ")),
    )
    .hint(hint)
    .fix("drop the objects named or correct their boxes (w and h are the box's width and height, as fractions of the image's)");
    // Ultralytics trains on (or, for NaN, drops) the file without an error.
    f.verdict = labelguard_core::Verdict::Silent;
    f.count = Some(n);
    f.locations = v.first.clone();
    Some(f)
}
