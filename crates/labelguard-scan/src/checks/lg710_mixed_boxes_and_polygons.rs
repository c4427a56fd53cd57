//! LG710 mixed-boxes-and-polygons: a YOLO dataset whose label lines are boxes in some places
//! and polygons in others.
//! Documentation: `labelguard_core::rules::lg710_mixed_boxes_and_polygons`.

// --- YOLO label files ---------------------------------------------------------------------

/// One YOLO label file with both box lines and polygon lines (`first`: its first box lines).
pub fn yolo_file_mixes(
    boxes: u64,
    polygons: u64,
    first: Vec<labelguard_core::Location>,
) -> labelguard_core::Finding {
    use labelguard_core::finding::count;
    let mut f = labelguard_formats::problem::problem(
        &labelguard_core::rules::LG710,
        format!(
            "the file mixes {} and {}",
            count(boxes, "box line"),
            count(polygons, "polygon line")
        ),
    )
    .hint("ultralytics reads a file with any line over 6 columns as polygons: each box line's 'cx cy w h' becomes two points (cx, cy) and (w, h), and the object trains with a wrong box")
    .fix("write the boxes as polygons (their four corners), or convert the polygons to boxes");
    f.count = Some(boxes);
    f.locations = first;
    f
}
