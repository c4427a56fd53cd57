//! The **imagefolder** layout: torchvision's `root/[split/]class/[sub/...]image.jpg`,
//! recognised when the tree holds photos in class folders (at any depth below them, as
//! torchvision's `os.walk` of each class folder finds them) and nothing else matched. The class
//! folders are the labels: the layout lists them and hands them to the checks of LG101 (more
//! folders than classes), LG603 (an empty class folder) and LG610 (splits with different
//! folders), which decide and word the findings.

use super::declare::{whole, At, Found, Layout, Scope, Tree};
use super::item::{RootScan, Task};
use super::paths::{components, ext_of, is_split_name, split_of};
use super::photos;
use crate::checks::lg101_class_id_out_of_range as lg101;
use crate::checks::lg603_empty_file as lg603;
use crate::checks::lg610_class_in_one_split as lg610;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{holds, Holds};
use labelguard_formats::read::table::TableFormat;
use labelguard_formats::walk::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// Photos in class folders below the root (`class/x.jpg`, `split/class/x.jpg`), at any depth
/// below their class folder (`class/sub/x.jpg`: torchvision walks each class folder with
/// `os.walk`): JPEG files, or images whose pixels are a photo's (`photos`), in at least two
/// class folders that are not images beside their masks (`train/` beside `train_labels/`).
/// An image directly in the root is not one of a class: no ImageFolder tree.
fn looks_like_image_folder(files: &[&Entry]) -> bool {
    let mut jpegs = 0usize;
    let mut classes: BTreeSet<String> = BTreeSet::new();
    for e in files {
        let comps = components(&e.rel);
        let ext = ext_of(&e.rel);
        if holds(&e.rel, Holds::Array) || TableFormat::of(&e.rel).is_some() {
            return false;
        }
        if !holds(&e.rel, Holds::Image) {
            continue;
        }
        if matches!(ext.as_str(), "jpg" | "jpeg") {
            jpegs += 1;
        }
        let Some((_, class)) = split_and_class(&comps) else {
            return false;
        };
        classes.insert(class.to_string());
    }
    classes.len() >= 2
        && !photos::masks_beside_images(classes.iter().map(String::as_str))
        && (jpegs > 0 || photos::sampled_photos(files.iter().copied(), class_of))
}

/// The split folder (if any) and the class folder of an image at `comps`: `class/..../x.png`,
/// or `split/class/.../x.png` when the first folder is a split's and the image is below a
/// folder of it; `None` for an image directly in the root.
fn split_and_class<'a>(comps: &[&'a str]) -> Option<(Option<&'a str>, &'a str)> {
    match comps.len() {
        0 | 1 => None,
        n if n >= 3 && is_split_name(comps[0]) => Some((Some(comps[0]), comps[1])),
        _ => Some((None, comps[0])),
    }
}

/// The class folder of an image of an ImageFolder tree (`class/x.png`, `split/class/x.png`).
fn class_of(rel: &str) -> Option<String> {
    match split_and_class(&components(rel))? {
        (Some(split), class) => Some(format!("{split}/{class}")),
        (None, class) => Some(class.to_string()),
    }
}

/// torchvision's `ImageFolder`: each split root's sub-folders, sorted by name, are the classes
/// 0..K-1 of that split. Returns the union of class names (sorted), the ids the histogram uses.
pub(crate) fn collect(scan: &mut RootScan<'_>, opts: &ScanOptions) -> Vec<String> {
    // Split roots: top-level split folders if there are any, else the root itself.
    let top = sub_dirs(scan, "");
    let split_roots: Vec<(String, String)> = if top.iter().any(|d| is_split_name(d)) {
        top.iter()
            .filter(|d| is_split_name(d))
            .map(|d| (d.clone(), split_of(d)))
            .collect()
    } else {
        vec![(String::new(), "all".into())]
    };
    let mut per_split: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (dir, split) in &split_roots {
        let classes = sub_dirs(scan, dir);
        let class_ids: HashMap<&str, i64> = classes
            .iter()
            .enumerate()
            .map(|(i, c)| (c.as_str(), i as i64))
            .collect();
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let files = scan.files.clone();
        for e in files {
            let Some(below) = e.rel.strip_prefix(&prefix) else {
                continue;
            };
            let Some((class, _)) = below.split_once('/') else {
                continue;
            };
            let Some(&id) = class_ids.get(class) else {
                continue;
            };
            if !holds(&e.rel, Holds::Image) {
                continue;
            }
            *counts.entry(class).or_insert(0) += 1;
            let item = scan.item(
                e,
                split.clone(),
                Task::Image {
                    class: class.to_string(),
                    class_index: id,
                },
            );
            scan.items.push(item);
        }
        for c in &classes {
            if !counts.contains_key(c.as_str()) {
                let rel = format!("{prefix}{c}");
                let p = lg603::class_folder_without_images();
                let item = scan.synthetic(&rel, split.clone(), p);
                scan.items.push(item);
            }
        }
        if let Some(p) = opts
            .num_classes
            .and_then(|c| lg101::too_many_class_folders(&classes, c))
        {
            let item = scan.synthetic(if dir.is_empty() { "." } else { dir }, split.clone(), p);
            scan.items.push(item);
        }
        per_split.insert(split.clone(), classes);
    }
    if let Some(p) = lg610::class_folders_differ(&per_split) {
        let item = scan.synthetic(".", "all".into(), p);
        scan.items.push(item);
    }
    let union: BTreeSet<String> = per_split.into_values().flatten().collect();
    union.into_iter().collect()
}

/// The folders directly in `dir` (below the dataset's root), sorted: read from the disk, which
/// sees empty class folders too (torchvision counts them), or, for a listed root (a tar shard,
/// a bucket), from the entries' paths.
fn sub_dirs(scan: &RootScan<'_>, dir: &str) -> Vec<String> {
    if scan.listed.is_none() {
        return list_dirs(&scan.root.join(dir));
    }
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let names: BTreeSet<&str> = scan
        .files
        .iter()
        .filter_map(|e| e.rel.strip_prefix(&prefix)?.split_once('/').map(|(d, _)| d))
        .collect();
    names.into_iter().map(String::from).collect()
}

fn list_dirs(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            std::fs::metadata(e.path())
                .map(|m| m.is_dir())
                .unwrap_or(false)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// The imagefolder layout's kind: `--layout imagefolder`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::IMAGE_FOLDER;

/// The imagefolder layout (see the module's doc).
pub(crate) struct ImageFolder;

impl Layout for ImageFolder {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn help(&self) -> &'static str {
        "class folders of photos"
    }
    fn scope(&self) -> Scope {
        Scope::Loose
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        whole(looks_like_image_folder(files))
    }
    fn spans_folders(&self, loose: &[&Entry]) -> bool {
        looks_like_image_folder(loose)
    }
    fn collect(&self, scan: &mut RootScan<'_>, opts: &ScanOptions) -> Found {
        Found {
            class_names: Some(collect(scan, opts)),
            num_classes: None,
            palette: None,
        }
    }
}
