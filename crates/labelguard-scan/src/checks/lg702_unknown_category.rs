//! LG702 unknown-category: objects whose category the dataset does not declare: a COCO
//! `category_id` that no `categories` entry has, a VOC `<name>` outside the class list (with
//! the nearest name when it looks like a typo).
//! Documentation: `labelguard_core::rules::lg702_unknown_category`.

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use crate::checks::lg709_malformed_annotation::coco::examples;
    use crate::problem::problem;
    use labelguard_core::finding::{count, ValueCount};
    use labelguard_core::rules::LG702;
    use labelguard_core::{Finding, Location};

    /// COCO annotations whose `category_id` (`unknown`: id and annotations, by id) is not the id
    /// of any of the `declared` categories; `first` are the first such annotations in the file.
    pub fn unknown(unknown: &[(i64, u64)], first: &[Location], declared: usize) -> Finding {
        let n: u64 = unknown.iter().map(|(_, c)| c).sum();
        let ids: Vec<String> = unknown.iter().take(8).map(|(i, _)| i.to_string()).collect();
        let more = if unknown.len() > 8 { ", ..." } else { "" };
        let message = format!(
            "{} {} a category_id that no `categories` entry declares ({}{more}): {}",
            count(n, "annotation"),
            if n == 1 { "has" } else { "have" },
            ids.join(", "),
            examples(first),
        );
        let values = unknown
            .iter()
            .map(|(i, c)| ValueCount {
                value: i.to_string(),
                count: *c,
            })
            .collect();
        problem(&LG702, message)
            .hint(format!(
                "the file declares {declared} {}; a category removed from `categories` (or a merge of two exports) left its annotations behind. detectron2 raises KeyError ('category_id ... does not exist in categories'), mmdet's cat2label raises KeyError",
                if declared == 1 { "category" } else { "categories" }
            ))
            .fix("add the category to `categories`, correct the annotations' category_id, or drop the annotations")
            .evidence(first.to_vec(), n, values)
    }
}
