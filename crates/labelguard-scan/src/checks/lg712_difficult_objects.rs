//! LG712 difficult-objects: objects flagged difficult, truncated or crowd, counted.
//! Documentation: `labelguard_core::rules::lg712_difficult_objects`.

use labelguard_core::finding::count;
use labelguard_core::rules::LG712;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// The dataset's objects flagged difficult, truncated (VOC) or crowd (COCO), of `objects`
/// objects in all; `None` when none is flagged.
pub fn counted(difficult: u64, truncated: u64, crowd: u64, objects: u64) -> Option<Finding> {
    if difficult + truncated + crowd == 0 {
        return None;
    }
    let mut parts = Vec::new();
    let mut hints = Vec::new();
    if difficult > 0 {
        parts.push(format!("{difficult} flagged difficult"));
        hints.push("difficult objects: torchvision's VOCDetection returns them like any other, mmdet's VOC loader keeps them as ignored boxes and its VOC mAP leaves them out");
    }
    if truncated > 0 {
        parts.push(format!("{truncated} flagged truncated"));
        hints.push("truncated objects: every framework trains on them as usual (the flag says the box does not cover the whole object)");
    }
    if crowd > 0 {
        parts.push(format!("{crowd} flagged crowd (iscrowd 1)"));
        hints.push("crowd regions (iscrowd 1): pycocotools, detectron2 and mmdet leave them out of training targets and matching, torchvision's reference scripts drop them");
    }
    let flagged = difficult + truncated + crowd;
    let mut f = problem(
        &LG712,
        format!(
            "of the dataset's {}: {}",
            count(objects, "object"),
            parts.join(", ")
        ),
    )
    .hint(hints.join("; "))
    .fix("decide whether training uses the flagged objects and evaluate the same way (torchvision: filter them in the dataset; mmdet: filter_empty_gt and the difficult handling of the VOC metric)");
    f.count = Some(flagged);
    Some(f)
}
