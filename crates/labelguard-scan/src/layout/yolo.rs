//! The **yolo** layout: YOLO label files, one `.txt` per image, in a `labels` folder that
//! mirrors an `images` folder: ultralytics' `images/train/x.jpg` + `labels/train/x.txt`, or a
//! Roboflow export's `train/images/x.jpg` + `train/labels/x.txt`; the classes from the
//! `data.yaml` beside them (`names`, `nc`), or a darknet `classes.txt`.
//!
//! A label file without its image is LG707; an image without a label file is a background
//! sample, as ultralytics trains it, and no finding.

use super::declare::{At, Found, Layout, Tree};
use super::item::{Item, RootScan, Task};
use super::paths::{has_ext, stem_of};
use crate::checks::data_yaml;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{holds, Holds};
use labelguard_formats::read::data_yaml::DataYaml;
use labelguard_formats::walk::{Entry, Sniff};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Text files a `labels` folder may hold that are not label files.
const NOT_LABELS: &[&str] = &["classes.txt", "readme.txt", "license.txt", "notes.txt"];

/// Whether `rel` is a YOLO label file: a `.txt` below a `labels` folder (not `classes.txt`,
/// a README or a licence). No allocation: it runs on every file of the tree.
fn is_label_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    is_label_name(name) && labels_dir(rel).is_some()
}

/// Whether a file named `name` in a `labels` folder is a label file.
fn is_label_name(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 4
        && b[b.len() - 4..].eq_ignore_ascii_case(b".txt")
        && !NOT_LABELS.iter().any(|n| name.eq_ignore_ascii_case(n))
}

/// The byte offset in `rel` of its last folder named `labels` (the one ultralytics maps from
/// `images`: it replaces the last `/images/` of an image's path).
fn labels_dir(rel: &str) -> Option<usize> {
    rel.rmatch_indices("labels/")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || rel.as_bytes()[i - 1] == b'/')
}

/// Whether `rel` is a YOLO `data.yaml`: a YAML file whose first lines name the classes.
fn is_data_yaml(e: &Entry) -> bool {
    has_ext(&e.rel, &["yaml", "yml"]) && e.sniffed(Sniff::DataYaml, DataYaml::sniff)
}

/// (base, owned folders and files below the base) of every YOLO tree among `files`: the
/// folder holding `labels/` and `images/`, or, for a Roboflow export, the parent of the split
/// folders that hold them; it owns those folders and its `data.yaml`.
pub(crate) fn trees(files: &[&Entry]) -> Vec<(String, Vec<String>)> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // The folders named `images`, as slices of the paths (a tree of 100,000 files has a few).
    let mut image_dirs: HashSet<&str> = HashSet::new();
    // The distinct `.../labels` folders that hold label files.
    let mut label_dirs: HashSet<&str> = HashSet::new();
    // Each folder is looked at once, with its first file (a folder's files are listed
    // together): its `images` and `labels` folders, and whether one of its files is a label.
    let mut folder: Option<(&str, Option<&str>, bool)> = None;
    for e in files {
        let rel = e.rel.as_str();
        // The folder with its trailing `/` (`images/` ends within it).
        let dir = &rel[..rel.rfind('/').map_or(0, |i| i + 1)];
        let (labels, found) = match &mut folder {
            Some((d, labels, found)) if *d == dir => (*labels, found),
            _ => {
                for (i, _) in dir.match_indices("images/") {
                    if i == 0 || dir.as_bytes()[i - 1] == b'/' {
                        image_dirs.insert(&dir[..i + "images".len()]);
                    }
                }
                let labels = labels_dir(dir).map(|i| &dir[..i + "labels".len()]);
                let (_, _, found) = folder.insert((dir, labels, false));
                (labels, found)
            }
        };
        if let Some(l) = labels {
            if !*found && is_label_name(&rel[dir.len()..]) {
                *found = true;
                label_dirs.insert(l);
            }
        }
    }
    let mut label_dirs: Vec<&str> = label_dirs.into_iter().collect();
    label_dirs.sort_unstable();
    for dir in label_dirs {
        let parent = &dir[..dir.len() - "labels".len()];
        if !image_dirs.contains(format!("{parent}images").as_str()) {
            continue;
        }
        let parent = parent.trim_end_matches('/');
        let (up, last) = parent.rsplit_once('/').unwrap_or(("", parent));
        // A Roboflow export: `train/labels`; the dataset is the split folder's parent.
        if !last.is_empty() && super::paths::is_split_name(last) {
            out.entry(up.to_string())
                .or_default()
                .push(last.to_string());
        } else {
            out.entry(parent.to_string())
                .or_default()
                .extend(["labels".to_string(), "images".to_string()]);
        }
    }
    for e in files.iter().filter(|e| is_data_yaml(e)) {
        let (dir, name) = e.rel.rsplit_once('/').unwrap_or(("", e.rel.as_str()));
        if let Some(owned) = out.get_mut(dir) {
            owned.push(name.to_string());
        }
    }
    super::paths::trees_of(out)
}

/// One item per label file, paired with its image; the classes from `data.yaml`, whose
/// problems are dataset findings.
pub(crate) fn collect(scan: &mut RootScan<'_>) -> Found {
    let mut classes = Found::default();
    let yamls: Vec<&Entry> = scan
        .files
        .iter()
        .copied()
        .filter(|e| !e.rel.contains('/') && is_data_yaml(e))
        .collect();
    if let Some(y) = yamls.first() {
        match DataYaml::read(&y.source) {
            Ok(d) => {
                for p in d.problems() {
                    let item = scan.synthetic(&y.rel, "all".into(), data_yaml::finding(p));
                    scan.items.push(item);
                }
                classes.num_classes = d.class_count();
                classes.class_names = Some(d.names);
            }
            Err(p) => {
                let item = scan.synthetic(&y.rel, "all".into(), data_yaml::finding(p));
                scan.items.push(item);
            }
        }
    } else if let Some(c) = scan
        .files
        .iter()
        .find(|e| e.rel.rsplit('/').next() == Some("classes.txt"))
    {
        if let Some(Ok(names)) = c.path().map(crate::config::read_class_names) {
            classes.num_classes = Some(names.len() as u32);
            classes.class_names = Some(names);
        }
    }
    // Images by their path without the extension, which ultralytics compares without case
    // (`x.JPG` is an image, and its label is `x.txt`).
    let images: HashMap<&str, &Entry> = scan
        .files
        .iter()
        .copied()
        .filter(|e| holds(&e.rel, Holds::Image))
        .map(|e| (stem_of(&e.rel), e))
        .collect();
    // One item per label file, made on the pool's threads (in the files' order).
    let this = &*scan;
    let items: Vec<Item> = this
        .files
        .par_iter()
        .with_min_len(1024)
        .filter(|e| is_label_file(&e.rel))
        .filter_map(|e| {
            let at = labels_dir(&e.rel)?;
            // The image's path without its extension: the last `labels` folder replaced by
            // `images` (`labels/train/x.txt` -> `images/train/x`).
            let below = stem_of(&e.rel[at + "labels".len()..]);
            let mut key = String::with_capacity(e.rel.len());
            key.push_str(&e.rel[..at]);
            key.push_str("images");
            key.push_str(below);
            let image = images.get(key.as_str()).copied();
            let missing_image = image
                .is_none()
                .then(|| super::paths::display(&this.root, &format!("{key}.jpg")));
            let split = super::paths::loose_split(&e.rel);
            let task = Task::Yolo {
                image: image.map(|i| i.source.clone()),
                missing_image,
            };
            Some(this.item(e, split, task))
        })
        .collect();
    scan.items.extend(items);
    classes
}

/// The yolo layout's kind: `--layout yolo`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("yolo");

/// The yolo layout (see the module's doc).
pub(crate) struct Yolo;

impl Layout for Yolo {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["ultralytics"]
    }
    fn help(&self) -> &'static str {
        "labels/**/*.txt mirroring images/ (ultralytics, Roboflow), data.yaml"
    }
    fn pairs_by_name(&self) -> bool {
        false
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        trees(files)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        collect(scan)
    }
}
