//! Mask-to-image pairing shared by the paired layouts: each mask gets its image (or an LG608
//! finding naming the image it expected), and images that no mask claimed are LG608 too.

use super::item::{RootScan, Task};
use super::paths::{display, split_of};
use crate::checks::lg608_missing_pair;
use labelguard_formats::walk::Entry;
use std::collections::HashSet;

/// Where to look for images that no mask claimed: directory prefixes, and which files there
/// are images.
pub(crate) type Orphans<'a> = Option<(Vec<String>, &'a dyn Fn(&str) -> bool)>;

/// Pairs masks with images: `expected(mask_rel) -> candidate image rels`; orphan images are
/// those under the `orphan_images` prefixes that no mask claimed.
pub(crate) fn pair(
    scan: &mut RootScan<'_>,
    masks: Vec<(&Entry, String)>,
    expected: impl Fn(&Entry) -> Vec<String>,
    orphan_images: Orphans<'_>,
) {
    let mut claimed: HashSet<String> = HashSet::new();
    for (e, split) in masks {
        let candidates = expected(e);
        let found = candidates
            .iter()
            .find(|c| scan.present.contains(c.as_str()));
        let task = match found {
            Some(rel) => {
                claimed.insert(rel.clone());
                Task::Mask {
                    image: Some(scan.source_of(rel)),
                    missing_image: None,
                }
            }
            None => Task::Mask {
                image: None,
                missing_image: candidates.first().map(|c| display(&scan.root, c)),
            },
        };
        let item = scan.item(e, split, task);
        scan.items.push(item);
    }
    if let Some((prefixes, is_image)) = orphan_images {
        let orphans: Vec<&Entry> = scan
            .files
            .iter()
            .filter(|e| {
                prefixes.iter().any(|p| e.rel.starts_with(&format!("{p}/")))
                    && is_image(&e.rel)
                    && !claimed.contains(&e.rel)
            })
            .copied()
            .collect();
        for e in orphans {
            let p = lg608_missing_pair::image_without_mask();
            let item = scan.item(e, split_of(&e.rel), Task::Problem(p));
            scan.items.push(item);
        }
    }
}
