//! LG702 unknown-category: objects whose category the dataset does not declare: a COCO
//! `category_id` that no `categories` entry has, a VOC `<name>` outside the class list (with
//! the nearest name when it looks like a typo).
//! Documentation: `labelguard_core::rules::lg702_unknown_category`.

// ---- Pascal VOC XML ----

use labelguard_core::finding::{count, ValueCount};
use labelguard_core::rules::LG702;
use labelguard_core::{Finding, Location};
use labelguard_formats::problem::problem;

/// The edit distance (insertions, deletions, substitutions) between `a` and `b`, by
/// characters; names are short (the XML reader cuts them at 256 bytes).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The name of `known` that `name` looks like a typo of: the same but for case, or at most
/// one edit away (two for names of six or more characters), the nearest first.
pub fn did_you_mean<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if let Some(k) = known.iter().find(|k| k.eq_ignore_ascii_case(name)) {
        return Some(k);
    }
    let lower = name.to_lowercase();
    let most = if name.chars().count() >= 6 { 2 } else { 1 };
    known
        .iter()
        .map(|k| (edit_distance(&lower, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= most)
        .min()
        .map(|(_, k)| k)
}

/// VOC objects whose `<name>` is not in the class list: `unknown` is (name, objects) sorted by
/// name, `first` the first object of each, `known` the class list's names.
pub fn voc_unknown_names(
    unknown: &[(String, u64)],
    first: Vec<Location>,
    known: &[&str],
) -> Finding {
    let objects: u64 = unknown.iter().map(|(_, n)| n).sum();
    let shown: Vec<String> = unknown
        .iter()
        .take(8)
        .map(|(n, c)| {
            format!(
                "'{}' ({})",
                labelguard_core::clip::echo(n),
                count(*c, "object")
            )
        })
        .collect();
    let more = if unknown.len() > 8 { ", ..." } else { "" };
    let message = format!(
        "{} {} a <name> outside the class list of {} classes: {}{more}",
        count(objects, "object"),
        if objects == 1 { "has" } else { "have" },
        known.len(),
        shown.join(", "),
    );
    let typos: Vec<(String, &str)> = unknown
        .iter()
        .filter_map(|(n, _)| Some((n.clone(), did_you_mean(n, known)?)))
        .collect();
    let (hint, fix) = if typos.is_empty() {
        (
            "a class the list does not have (another dataset's class list, or a class added while labelling); a loader that maps names with class_to_idx[name] raises KeyError, mmdet's XMLDataset skips the object silently".to_string(),
            "add the class to the class list (--classes, and the model's class count), or rename or drop the objects".to_string(),
        )
    } else {
        let pairs: Vec<String> = typos
            .iter()
            .take(4)
            .map(|(n, k)| {
                let n = labelguard_core::clip::echo(n);
                if n.eq_ignore_ascii_case(k) {
                    format!("'{n}' differs from '{k}' only in case")
                } else {
                    format!("'{n}' looks like a typo of '{k}'")
                }
            })
            .collect();
        (
            format!("{}: names are compared exactly, so a loader's class_to_idx[name] raises KeyError (mmdet's XMLDataset skips the object silently)", pairs.join("; ")),
            format!(
                "rename the objects' <name> to the class list's spelling ({})",
                typos
                    .iter()
                    .take(4)
                    .map(|(n, k)| format!("{} -> {k}", labelguard_core::clip::echo(n)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    };
    let mut f = problem(&LG702, message).hint(hint).fix(fix);
    f.count = Some(objects);
    f.values = unknown
        .iter()
        .map(|(n, c)| ValueCount {
            value: labelguard_core::clip::echo(n),
            count: *c,
        })
        .collect();
    f.locations = first;
    f
}

#[cfg(test)]
mod voc_tests {
    use super::*;

    #[test]
    fn typos_and_case_are_named() {
        let known = ["aeroplane", "person", "dog"];
        assert_eq!(did_you_mean("Person", &known), Some("person"));
        assert_eq!(did_you_mean("aeroplan", &known), Some("aeroplane"));
        assert_eq!(did_you_mean("persn", &known), Some("person"));
        assert_eq!(did_you_mean("cat", &known), None);
        assert_eq!(did_you_mean("dot", &known), Some("dog"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}

/// The COCO instances JSON's findings (`crate::analyze::detection::coco` decides with them).
pub mod coco {
    use crate::checks::lg709_malformed_annotation::coco::examples;
    use labelguard_core::finding::{count, ValueCount};
    use labelguard_core::rules::LG702;
    use labelguard_core::{Finding, Location};
    use labelguard_formats::problem::problem;

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
