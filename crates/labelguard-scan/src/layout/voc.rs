//! The **voc** layout: `SegmentationClass/<stem>.png` with `JPEGImages/<stem>.jpg`, splits
//! from `ImageSets/Segmentation/{train,val,test}.txt`; a listed stem without its mask is LG608.

use super::item::RootScan;
use super::pairing::pair;
use super::paths::{components, ext_of, stem_of, MASK_EXTS};
use crate::checks::lg608_missing_pair;
use crate::walk::Entry;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

pub(crate) fn collect(scan: &mut RootScan<'_>) {
    let mut bases: BTreeSet<String> = BTreeSet::new();
    for e in &scan.files {
        let comps = components(&e.rel);
        if comps.len() >= 2 && comps[comps.len() - 2] == "SegmentationClass" {
            bases.insert(comps[..comps.len() - 2].join("/"));
        }
    }
    let join = |base: &str, rest: &str| {
        if base.is_empty() {
            rest.to_string()
        } else {
            format!("{base}/{rest}")
        }
    };
    for base in bases {
        // Splits from the ImageSets lists; a stem in train.txt and trainval.txt is train.
        let mut split_of_stem: HashMap<String, String> = HashMap::new();
        let mut listed: Vec<(String, String)> = Vec::new();
        for split in ["test", "trainval", "val", "train"] {
            let list = scan
                .root
                .join(join(&base, &format!("ImageSets/Segmentation/{split}.txt")));
            if let Ok(text) = read_small(&list) {
                for stem in text.split_whitespace() {
                    let s = if split == "trainval" { "train" } else { split };
                    split_of_stem.insert(stem.to_string(), s.to_string());
                    if split != "test" && split != "trainval" {
                        listed.push((stem.to_string(), split.to_string()));
                    }
                }
            }
        }
        let prefix = join(&base, "SegmentationClass/");
        let masks: Vec<(&Entry, String)> = scan
            .files
            .iter()
            .filter(|e| {
                e.rel.starts_with(&prefix)
                    && !e.rel[prefix.len()..].contains('/')
                    && MASK_EXTS.contains(&ext_of(&e.rel).as_str())
            })
            .map(|e| {
                let stem = stem_of(&e.rel[prefix.len()..]);
                (
                    *e,
                    split_of_stem
                        .get(stem)
                        .cloned()
                        .unwrap_or_else(|| "all".into()),
                )
            })
            .collect();
        let have: HashSet<String> = masks
            .iter()
            .map(|(e, _)| stem_of(&e.rel[prefix.len()..]).to_string())
            .collect();
        let base2 = base.clone();
        pair(
            scan,
            masks,
            move |e: &Entry| {
                let stem = stem_of(e.rel.rsplit('/').next().unwrap_or(""));
                vec![
                    join(&base2, &format!("JPEGImages/{stem}.jpg")),
                    join(&base2, &format!("JPEGImages/{stem}.jpeg")),
                    join(&base2, &format!("JPEGImages/{stem}.png")),
                ]
            },
            // JPEGImages also holds the detection images, which have no masks: no orphans.
            None,
        );
        for (stem, split) in listed {
            if !have.contains(&stem) {
                let rel = format!("{prefix}{stem}.png");
                let p = lg608_missing_pair::listed_without_mask(&split);
                let item = scan.synthetic(&rel, split, p);
                scan.items.push(item);
            }
        }
    }
}

fn read_small(path: &Path) -> std::io::Result<String> {
    let (file, len) =
        crate::read::file::open_regular(path).map_err(|p| std::io::Error::other(p.message))?;
    if len > 64 << 20 {
        return Err(std::io::Error::other("too large"));
    }
    std::io::read_to_string(file)
}
