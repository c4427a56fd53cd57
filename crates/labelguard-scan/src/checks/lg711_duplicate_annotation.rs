//! LG711 duplicate-annotation: the same object annotated twice (identical YOLO lines, identical
//! COCO annotations).
//! Documentation: `labelguard_core::rules::lg711_duplicate_annotation`.

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use crate::checks::lg709_malformed_annotation::coco::examples;
    use labelguard_core::finding::count;
    use labelguard_core::rules::LG711;
    use labelguard_core::{Finding, Location};
    use labelguard_formats::problem::problem;

    /// `n` COCO annotations identical (image_id, category_id and bbox) to an earlier one.
    pub fn duplicates(n: u64, first: &[Location]) -> Finding {
        problem(
            &LG711,
            format!(
                "{} {} an earlier annotation's image_id, category_id and bbox: {}",
                count(n, "annotation"),
                if n == 1 { "repeats" } else { "repeat" },
                examples(first)
            ),
        )
        .hint("two exports concatenated, or an annotation tool that saved an object twice; the object weighs twice in the loss")
        .fix("drop the repeated annotations (keep the first of each)")
        .evidence(first.to_vec(), n, Vec::new())
    }
}

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
    let mut f = labelguard_formats::problem::problem(
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
