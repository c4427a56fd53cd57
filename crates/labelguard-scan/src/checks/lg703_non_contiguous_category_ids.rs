//! LG703 non-contiguous-category-ids: category ids used as stored (torchvision, plain PyTorch)
//! that do not run `1..K`: gaps (COCO's 1..90 for 80 categories) or a category with id 0,
//! which torchvision trains as background.
//! Documentation: `labelguard_core::rules::lg703_non_contiguous_category_ids`.

use crate::framework::Framework;
use labelguard_core::rules::LG703;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// The finding for declared ids `ids` (sorted, distinct) used as stored by `framework`.
pub fn check(framework: Framework, ids: &[i64], id_name: &str) -> Option<Finding> {
    let k = ids.len() as i64;
    let first = if framework.counts_background() { 1 } else { 0 };
    let (lo, hi) = (*ids.first()?, *ids.last()?);
    if lo == first && hi == first + k - 1 {
        return None;
    }
    let message = if framework.counts_background() && lo == 0 {
        format!("a category has {id_name} 0, which torchvision's heads reserve for background: its objects train as background")
    } else {
        format!(
            "the {k} categories have {id_name}s {lo}..{hi}, not {first}..{}: used as stored the head needs {} outputs, {} of them never trained",
            first + k - 1,
            hi + 1,
            hi + 1 - k - first
        )
    };
    Some(
        problem(&LG703, message)
            .hint(format!(
                "{} uses the ids as stored; mmdet and detectron2 map the categories to 0..{} themselves",
                framework.as_str(),
                k - 1
            ))
            .fix(format!(
                "remap the ids to {first}..{} with `labelguard fix` (writes a new annotation file and the mapping), or size the head by {}",
                first + k - 1,
                hi + 1
            )),
    )
}
