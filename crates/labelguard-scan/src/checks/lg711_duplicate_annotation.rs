//! LG711 duplicate-annotation: the same object annotated twice (identical YOLO lines, identical
//! COCO annotations).
//! Documentation: `labelguard_core::rules::lg711_duplicate_annotation`.

// --- YOLO label files ---------------------------------------------------------------------

/// Lines of one YOLO label file that repeat an earlier line (`first`: the repeats, with the
/// line they repeat in their value).
pub fn yolo_duplicates(
    repeats: u64,
    lines: u64,
    first: Vec<labelguard_core::Location>,
) -> Option<labelguard_core::Finding> {
    use labelguard_core::finding::count;
    if repeats == 0 {
        return None;
    }
    let mut f = crate::problem::problem(
        &labelguard_core::rules::LG711,
        format!(
            "{} of {lines} {} an earlier line: the same object annotated twice",
            count(repeats, "line"),
            if repeats == 1 { "repeats" } else { "repeat" }
        ),
    )
    .hint("ultralytics removes duplicate labels with a warning ('duplicate labels removed'); other loaders train the object twice. Concatenated exports are the usual cause")
    .fix("remove the repeated lines");
    f.count = Some(repeats);
    f.locations = first;
    Some(f)
}
