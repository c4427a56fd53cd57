//! The **coco** layout: COCO instances JSON files (`annotations/instances_train2017.json`, a
//! Roboflow export's `train/_annotations.coco.json`, or any JSON whose first bytes show COCO's
//! `images`/`annotations`/`categories` keys), each one item, with the folder its
//! `file_name`s are relative to when one is found (`train2017/`, `images/train2017/`,
//! `images/`, or the JSON's own folder).

use super::declare::{At, Found, Layout, Tree};
use super::item::{RootScan, Task};
use super::paths::{components, has_ext, loose_split, split_of};
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{holds, Holds};
use labelguard_formats::source::Source;
use labelguard_formats::walk::{Entry, Sniff};
use std::collections::BTreeMap;
use std::path::Path;

/// How much of a `.json` file is read to tell a COCO file from other JSON.
const SNIFF_BYTES: u64 = 64 << 10;

/// Whether the JSON file at `path` looks like a COCO annotation file: an object whose first
/// 64 KiB name one of COCO's top-level keys, or an empty file named like one
/// (`instances_*.json`, `*.coco.json`), which the analysis reports as empty (LG603).
pub(crate) fn is_coco_json(source: &Source) -> bool {
    let mut head = Vec::new();
    if source.read_head(SNIFF_BYTES, &mut head).is_err() {
        return false;
    }
    if head.is_empty() {
        let name = source
            .path()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        return name.starts_with("instances_") || name.ends_with(".coco.json");
    }
    let text = String::from_utf8_lossy(&head);
    let body = text.trim_start_matches('\u{feff}').trim_start();
    body.starts_with('{')
        && ["\"annotations\"", "\"images\"", "\"categories\""]
            .iter()
            .any(|k| body.contains(k))
}

/// The COCO JSON files among `files` (each file's first bytes read once, however often
/// discovery asks).
fn coco_files<'a, 'e>(files: &'a [&'e Entry]) -> impl Iterator<Item = &'e Entry> + 'a {
    files
        .iter()
        .copied()
        .filter(|e| has_ext(&e.rel, &["json"]) && e.sniffed(Sniff::CocoJson, is_coco_json))
}

/// A JSON's split folder part: `instances_train2017.json` -> `train2017`.
fn part_of(rel: &str) -> &str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let stem = name.split('.').next().unwrap_or(name);
    stem.rsplit('_').next().unwrap_or(stem)
}

/// (base, owned folders and files below the base) of every COCO tree among `files`: a JSON in
/// `annotations/` makes that folder's parent the base, one in a split folder (Roboflow) the
/// split folder's parent; the base owns the annotation folder and the image folders.
pub(crate) fn trees(files: &[&Entry]) -> Vec<(String, Vec<String>)> {
    let found: Vec<&Entry> = coco_files(files).collect();
    if found.is_empty() {
        return Vec::new();
    }
    // Every folder that holds a file, with the folders above it (each distinct folder split
    // once: a folder's files are listed together).
    let mut dirs: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut last = None;
    for d in files
        .iter()
        .filter_map(|e| e.rel.rsplit_once('/').map(|(d, _)| d))
    {
        if last == Some(d) {
            continue;
        }
        last = Some(d);
        let comps: Vec<&str> = d.split('/').collect();
        dirs.extend((1..=comps.len()).map(|i| comps[..i].join("/")));
    }
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in found {
        let comps = components(&e.rel);
        let parent = comps.len().checked_sub(2).map(|i| comps[i]);
        let (base, own): (String, String) = match parent {
            Some(p) if p.eq_ignore_ascii_case("annotations") || split_of(p) != "all" => {
                (comps[..comps.len() - 2].join("/"), p.to_string())
            }
            _ => (
                comps[..comps.len() - 1].join("/"),
                comps[comps.len() - 1].to_string(),
            ),
        };
        let owned = out.entry(base.clone()).or_default();
        owned.push(own);
        let part = part_of(&e.rel);
        for image_dir in [part.to_string(), "images".to_string()] {
            let full = if base.is_empty() {
                image_dir.clone()
            } else {
                format!("{base}/{image_dir}")
            };
            if dirs.contains(&full) {
                owned.push(image_dir);
            }
        }
    }
    super::paths::trees_of(out)
}

/// The image folder of a COCO JSON scanned on its own (`annotations/instances_val2017.json`
/// -> `val2017/`), found as [`collect`] finds it in a scanned tree: the split folder beside
/// `annotations/`, `images/<split>`, `images/`, or the JSON's own folder.
pub(crate) fn images_beside(json: &Path) -> Option<std::path::PathBuf> {
    let dir = json.parent()?;
    let base = if dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("annotations"))
    {
        dir.parent()?
    } else {
        dir
    };
    let part = part_of(&json.to_string_lossy()).to_string();
    let holds_images = |d: &Path| {
        std::fs::read_dir(d).is_ok_and(|entries| {
            entries
                .flatten()
                .take(64)
                .any(|e| holds(&e.file_name().to_string_lossy(), Holds::Image))
        })
    };
    [
        base.join(&part),
        base.join("images").join(&part),
        base.join("images"),
        dir.to_path_buf(),
    ]
    .into_iter()
    .find(|d| holds_images(d))
}

/// One item per COCO JSON, with the folder its images are in.
pub(crate) fn collect(scan: &mut RootScan<'_>) {
    let has_images = |dir: &str| {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        scan.files.iter().any(|e| {
            e.rel.starts_with(&prefix)
                && holds(&e.rel, Holds::Image)
                && !e.rel[prefix.len()..].is_empty()
        })
    };
    let found: Vec<&Entry> = coco_files(&scan.files).collect();
    for e in found {
        let comps = components(&e.rel);
        let dir = comps[..comps.len() - 1].join("/");
        let base = match comps.len().checked_sub(2).map(|i| comps[i]) {
            Some(p) if p.eq_ignore_ascii_case("annotations") => comps[..comps.len() - 2].join("/"),
            _ => dir.clone(),
        };
        let join = |a: &str, b: &str| match (a.is_empty(), b.is_empty()) {
            (true, _) => b.to_string(),
            (_, true) => a.to_string(),
            _ => format!("{a}/{b}"),
        };
        let part = part_of(&e.rel);
        let candidates = [
            join(&base, part),
            join(&base, &format!("images/{part}")),
            join(&base, "images"),
            dir.clone(),
        ];
        let images = candidates
            .iter()
            .find(|c| has_images(c))
            // Images are looked up on disk: not for a JSON in a tar shard or a bucket.
            .filter(|_| e.path().is_some())
            .map(|c| scan.root.join(c));
        // `instances_train2017.json` names its split in the file name; a Roboflow export in
        // its folder (`train/_annotations.coco.json`).
        let split = match loose_split(part) {
            s if s == "all" => loose_split(&e.rel),
            s => s,
        };
        let item = scan.item(e, split, Task::Coco { images });
        scan.items.push(item);
    }
}

/// The coco layout's kind: `--layout coco`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("coco");

/// The coco layout (see the module's doc).
pub(crate) struct Coco;

impl Layout for Coco {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn help(&self) -> &'static str {
        "annotations/instances_*.json (+ train2017/ ...), or *_annotations.coco.json"
    }
    fn pairs_by_name(&self) -> bool {
        false
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        trees(files)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        collect(scan);
        Found::default()
    }
}
