//! The **camvid** layout: CamVid's widely used copy (Kaggle's, from the
//! Semantic-Segmentation-Suite): `class_dict.csv` (`name,r,g,b`, one class a row) beside image
//! folders and their colour masks, `train/<stem>.png` with `train_labels/<stem>_L.png` (and
//! `val`, `test`). The colours of `class_dict.csv` are the classes, each row's id its row, as
//! the loaders that read it number them (see `labelguard_formats::read::class_colours`): the
//! masks are labels mapped with it (a colour it does not list is LG621), and the class count
//! and names are its rows. A file it cannot read as they do is LG622; a mask without its image
//! or an image without its mask is LG608.

use super::declare::{At, DeclaredPalette, Found, Layout, Tree};
use super::item::RootScan;
use super::pairing::pair;
use super::paths::{split_of, stem_of};
use crate::checks::lg622_malformed_class_colours as lg622;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{extensions, holds, Holds};
use labelguard_formats::read::class_colours::parse_class_dict;
use labelguard_formats::walk::Entry;
use std::collections::BTreeSet;

/// The file that lists the classes and their colours.
const CLASS_DICT: &str = "class_dict.csv";
/// What names a folder of masks after its folder of images (`train_labels` for `train`).
const LABELS: &str = "_labels";
/// What ends a mask's stem after its image's (`0001TP_006690_L.png` for `0001TP_006690.png`).
const MASK_SUFFIX: &str = "_L";
/// The largest `class_dict.csv` read (a real one is under 1 KB).
const MAX_BYTES: u64 = 1 << 20;

/// The folders directly below `base` (`""`: the root) among `files`.
fn children<'e>(files: &[&'e Entry], base: &str) -> BTreeSet<&'e str> {
    files
        .iter()
        .filter_map(|e| {
            let below = if base.is_empty() {
                e.rel.as_str()
            } else {
                e.rel.strip_prefix(base)?.strip_prefix('/')?
            };
            below.split_once('/').map(|(d, _)| d)
        })
        .collect()
}

/// The image folders of a tree at `base` that have their mask folders (`train` with
/// `train_labels`).
fn image_folders<'e>(files: &[&'e Entry], base: &str) -> Vec<&'e str> {
    let dirs = children(files, base);
    dirs.iter()
        .copied()
        .filter(|d| dirs.contains(format!("{d}{LABELS}").as_str()))
        .collect()
}

/// The CamVid trees: each folder that holds `class_dict.csv` and an image folder beside its
/// mask folder.
fn trees(files: &[&Entry]) -> Vec<Tree> {
    let bases: BTreeSet<&str> = files
        .iter()
        .filter_map(|e| match e.rel.strip_suffix(CLASS_DICT)? {
            "" => Some(""),
            base => base.strip_suffix('/'),
        })
        .collect();
    bases
        .into_iter()
        .filter_map(|base| {
            let images = image_folders(files, base);
            if images.is_empty() {
                return None;
            }
            let mut owned = vec![CLASS_DICT.to_string()];
            for d in images {
                owned.push(d.to_string());
                owned.push(format!("{d}{LABELS}"));
            }
            Some((base.to_string(), owned))
        })
        .collect()
}

/// The classes of `class_dict.csv`, or its problem as a finding of the dataset.
fn read_classes(scan: &mut RootScan<'_>) -> Option<Vec<(String, [u8; 3])>> {
    let mut buf = Vec::new();
    let problem = match scan.source_of(CLASS_DICT).read_all(MAX_BYTES, &mut buf) {
        Err(f) => f,
        Ok(()) => match parse_class_dict(&String::from_utf8_lossy(&buf)) {
            Ok(classes) => return Some(classes),
            Err(p) => lg622::finding(&p),
        },
    };
    let item = scan.synthetic(CLASS_DICT, "all".into(), problem);
    scan.items.push(item);
    None
}

fn collect(scan: &mut RootScan<'_>) -> Found {
    let classes = read_classes(scan);
    let files = scan.files.clone();
    for dir in image_folders(&files, "") {
        let labels = format!("{dir}{LABELS}/");
        let split = split_of(dir);
        let masks: Vec<(&Entry, String)> = files
            .iter()
            .filter(|e| e.rel.starts_with(&labels) && holds(&e.rel, Holds::Mask))
            .map(|e| (*e, split.clone()))
            .collect();
        let images = dir.to_string();
        let expected = move |e: &Entry| -> Vec<String> {
            let below = &e.rel[labels.len()..];
            let stem = stem_of(below);
            let stem = stem.strip_suffix(MASK_SUFFIX).unwrap_or(stem);
            extensions(Holds::Image)
                .map(|x| format!("{images}/{stem}.{x}"))
                .collect()
        };
        pair(
            scan,
            masks,
            expected,
            Some((vec![dir.to_string()], &|r: &str| holds(r, Holds::Image))),
        );
    }
    let Some(classes) = classes else {
        return Found::default();
    };
    Found {
        num_classes: Some(classes.len() as u32),
        palette: Some(DeclaredPalette {
            file: CLASS_DICT.to_string(),
            colours: classes.iter().map(|(_, c)| *c).collect(),
        }),
        class_names: Some(classes.into_iter().map(|(n, _)| n).collect()),
    }
}

/// The camvid layout (see the module's doc).
pub(crate) struct Camvid;

impl Layout for Camvid {
    fn kind(&self) -> LayoutKind {
        LayoutKind::Camvid
    }
    fn name(&self) -> &'static str {
        "camvid"
    }
    fn help(&self) -> &'static str {
        "class_dict.csv + train/ beside train_labels/*_L.png (colour masks)"
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        trees(files)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        collect(scan)
    }
}
