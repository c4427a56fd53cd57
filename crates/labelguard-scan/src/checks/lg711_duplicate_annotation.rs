//! LG711 duplicate-annotation: the same object annotated twice (identical YOLO lines, identical
//! COCO annotations).
//! Documentation: `labelguard_core::rules::lg711_duplicate_annotation`.

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use crate::checks::lg709_malformed_annotation::coco::examples;
    use crate::problem::problem;
    use labelguard_core::finding::count;
    use labelguard_core::rules::LG711;
    use labelguard_core::{Finding, Location};

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
