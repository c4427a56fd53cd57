//! The **camvid** layout: CamVid's widely used copy (Kaggle's, from the
//! Semantic-Segmentation-Suite): `class_dict.csv` (`name,r,g,b`, one class a row) beside image
//! folders and their colour masks, `train/<stem>.png` with `train_labels/<stem>_L.png` (and
//! `val`, `test`). The colours of `class_dict.csv` are the classes, each row's id its row, as
//! the loaders that read it number them (see `labelguard_formats::read::class_colours`): the
//! masks are labels mapped with it (a colour it does not list is LG621), and the class count
//! and names are its rows. A file it cannot read as they do is LG622; a mask without its image
//! or an image without its mask is LG608. And SegNet's copy of CamVid: `train/x.png` with its
//! grey index mask `trainannot/x.png` (and `val`, `test`), paired the same way.

use super::class_colours::{found, read_classes, CLASS_DICT};
use super::declare::{At, Found, Layout, Tree};
use super::item::RootScan;
use super::pairing::pair;
use super::paths::{is_split_name, split_of, stem_of};
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{extensions, holds, Holds};
use labelguard_formats::walk::Entry;
use std::collections::BTreeSet;

/// How a copy of CamVid names its mask folders and masks.
struct Copy {
    /// What names a folder of masks after its folder of images.
    folder: &'static str,
    /// What ends a mask's stem after its image's.
    stem: &'static str,
    /// Whether only split folders (`train`, not `city`) have mask folders.
    splits_only: bool,
}

/// Kaggle's copy: `train_labels/0001TP_006690_L.png` for `train/0001TP_006690.png`, colour
/// masks mapped with `class_dict.csv`.
const KAGGLE: Copy = Copy {
    folder: "_labels",
    stem: "_L",
    splits_only: false,
};
/// SegNet's copy (the SegNet tutorial's `CamVid/`): `trainannot/x.png` for `train/x.png`, grey
/// index masks of 11 classes and 11 for unlabelled (no class count is assumed: SegNet's
/// `ignore_label` is a training setting, `--num-classes 11 --ignore-index 11`).
const SEGNET: Copy = Copy {
    folder: "annot",
    stem: "",
    splits_only: true,
};

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

/// The image folders of a tree at `base` that have their mask folders in `copy`'s naming
/// (`train` with `train_labels`); SegNet's only for split folders (`trainannot`).
fn image_folders<'e>(files: &[&'e Entry], base: &str, copy: &Copy) -> Vec<&'e str> {
    let dirs = children(files, base);
    dirs.iter()
        .copied()
        .filter(|d| dirs.contains(format!("{d}{}", copy.folder).as_str()))
        .filter(|d| !copy.splits_only || is_split_name(d))
        .collect()
}

/// The folders a tree of `copy` at `base` owns: its image folders and their mask folders.
fn owned(files: &[&Entry], base: &str, copy: &Copy) -> Vec<String> {
    image_folders(files, base, copy)
        .into_iter()
        .flat_map(|d| [d.to_string(), format!("{d}{}", copy.folder)])
        .collect()
}

/// The CamVid trees: each folder that holds `class_dict.csv` and an image folder beside its
/// Kaggle mask folder, or a split folder beside its SegNet mask folder (`train/` +
/// `trainannot/`).
fn trees(files: &[&Entry]) -> Vec<Tree> {
    let mut out: Vec<Tree> = Vec::new();
    let kaggle: BTreeSet<&str> = files
        .iter()
        .filter_map(|e| match e.rel.strip_suffix(CLASS_DICT.file)? {
            "" => Some(""),
            base => base.strip_suffix('/'),
        })
        .collect();
    for base in kaggle {
        let folders = owned(files, base, &KAGGLE);
        if !folders.is_empty() {
            let mut all = vec![CLASS_DICT.file.to_string()];
            all.extend(folders);
            out.push((base.to_string(), all));
        }
    }
    // SegNet's: the folders above a `<split>annot/` (checked on the files whose path says so).
    let segnet: BTreeSet<&str> = files
        .iter()
        .filter(|e| e.rel.contains("annot/"))
        .filter_map(|e| {
            let (dir, _) = e.rel.rsplit_once('/')?;
            let (base, name) = dir.rsplit_once('/').unwrap_or(("", dir));
            is_split_name(name.strip_suffix(SEGNET.folder)?).then_some(base)
        })
        .collect();
    for base in segnet {
        let folders = owned(files, base, &SEGNET);
        if !folders.is_empty() && !out.iter().any(|(b, _)| b == base) {
            out.push((base.to_string(), folders));
        }
    }
    out
}

/// Pairs the masks of `copy`'s mask folders with their images.
fn pair_masks(scan: &mut RootScan<'_>, copy: &'static Copy) {
    let files = scan.files.clone();
    for dir in image_folders(&files, "", copy) {
        let labels = format!("{dir}{}/", copy.folder);
        let split = split_of(dir);
        let masks: Vec<(&Entry, String)> = files
            .iter()
            .filter(|e| e.rel.starts_with(&labels) && holds(&e.rel, Holds::Mask))
            .map(|e| (*e, split.clone()))
            .collect();
        let images = dir.to_string();
        let expected = move |e: &Entry| -> Vec<String> {
            let stem = stem_of(&e.rel[labels.len()..]);
            let stem = stem.strip_suffix(copy.stem).unwrap_or(stem);
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
}

fn collect(scan: &mut RootScan<'_>) -> Found {
    if !scan.present.contains(CLASS_DICT.file) {
        pair_masks(scan, &SEGNET);
        return Found::default();
    }
    let classes = read_classes(scan, &CLASS_DICT);
    pair_masks(scan, &KAGGLE);
    classes.map_or_else(Found::default, |c| found(&CLASS_DICT, c))
}

/// The camvid layout's kind: `--layout camvid`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("camvid");

/// The camvid layout (see the module's doc).
pub(crate) struct Camvid;

impl Layout for Camvid {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn help(&self) -> &'static str {
        "class_dict.csv + train/ beside train_labels/*_L.png; SegNet's train/ + trainannot/"
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        trees(files)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        collect(scan)
    }
}
