//! LG610 class-in-one-split, for ImageFolder datasets: splits whose class folders differ, so
//! that each split numbers its classes its own way. The layout lists each split's folders; the
//! decision and the finding are here. (The histogram variant, a class seen in one split only,
//! is decided when the report is finalised: `crate::report::dataset_checks`.)
//! Documentation: `labelguard_core::rules::lg610_class_in_one_split`.

use labelguard_core::rules::LG610;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;
use std::collections::{BTreeMap, BTreeSet};

/// ImageFolder splits (`per_split`: each split's class folders, sorted) whose folders differ:
/// each split numbers its own folders, so the same id means different classes.
pub fn class_folders_differ(per_split: &BTreeMap<String, Vec<String>>) -> Option<Finding> {
    if per_split.len() < 2 {
        return None;
    }
    let union: BTreeSet<&String> = per_split.values().flatten().collect();
    let differing: Vec<String> = per_split
        .iter()
        .filter(|(_, c)| c.len() != union.len())
        .map(|(s, c)| {
            let missing: Vec<&str> = union
                .iter()
                .filter(|u| !c.contains(u))
                .map(|s| s.as_str())
                .collect();
            format!("{s} lacks {}", missing.join(", "))
        })
        .collect();
    (!differing.is_empty()).then(|| {
        problem(
            &LG610,
            format!("the splits have different class folders ({}): ImageFolder numbers each split's folders on its own, so the ids of later classes differ between splits", differing.join("; ")),
        )
        .hint("the same id then means different classes in train and val: the labels are silently wrong")
        .fix("create the missing folders, or build every split with the train split's class_to_idx")
    })
}
