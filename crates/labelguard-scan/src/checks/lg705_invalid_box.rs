//! LG705 invalid-box: boxes without area (zero or negative width or height, inverted corners)
//! or with a coordinate that is not a finite number.
//! Documentation: `labelguard_core::rules::lg705_invalid_box`.

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
    let mut f = crate::problem::problem(
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
