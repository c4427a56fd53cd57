//! The **yolo** layout: YOLO label files, one `.txt` per image, in a `labels` folder that
//! mirrors an `images` folder: ultralytics' `images/train/x.jpg` + `labels/train/x.txt`, or a
//! Roboflow export's `train/images/x.jpg` + `train/labels/x.txt`; the classes from the
//! `data.yaml` beside them (`names`, `nc`), or a darknet `classes.txt`.
//!
//! A label file without its image is LG707; an image without a label file is a background
//! sample, as ultralytics trains it, and no finding.

use super::item::{RootScan, Task};
use super::paths::{components, ext_of, stem_of, IMAGE_EXTS};
use crate::read::data_yaml::DataYaml;
use crate::walk::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Text files a `labels` folder may hold that are not label files.
const NOT_LABELS: &[&str] = &["classes.txt", "readme.txt", "license.txt", "notes.txt"];

/// Whether `rel` is a YOLO label file: a `.txt` below a `labels` folder (not `classes.txt`,
/// a README or a licence). No allocation: it runs on every file of the tree.
fn is_label_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let b = name.as_bytes();
    b.len() > 4
        && b[b.len() - 4..].eq_ignore_ascii_case(b".txt")
        && labels_dir(rel).is_some()
        && !NOT_LABELS.iter().any(|n| name.eq_ignore_ascii_case(n))
}

/// The byte offset in `rel` of its last folder named `labels` (the one ultralytics maps from
/// `images`: it replaces the last `/images/` of an image's path).
fn labels_dir(rel: &str) -> Option<usize> {
    rel.rmatch_indices("labels/")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || rel.as_bytes()[i - 1] == b'/')
}

/// The position of the `labels` component that mirrors `images` (the last one).
fn labels_at(comps: &[&str]) -> Option<usize> {
    comps[..comps.len().saturating_sub(1)]
        .iter()
        .rposition(|c| *c == "labels")
}

/// Whether `rel` is a YOLO `data.yaml`: a YAML file whose first lines name the classes.
fn is_data_yaml(e: &Entry) -> bool {
    matches!(ext_of(&e.rel).as_str(), "yaml" | "yml") && DataYaml::sniff(&e.path)
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
    for e in files {
        let rel = e.rel.as_str();
        for (i, _) in rel.match_indices("images/") {
            if i == 0 || rel.as_bytes()[i - 1] == b'/' {
                image_dirs.insert(&rel[..i + "images".len()]);
            }
        }
        if is_label_file(rel) {
            if let Some(i) = labels_dir(rel) {
                label_dirs.insert(&rel[..i + "labels".len()]);
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

/// What the layout learnt about the classes: from `data.yaml` or `classes.txt`.
#[derive(Default)]
pub(crate) struct YoloClasses {
    pub names: Option<Vec<String>>,
    pub nc: Option<u32>,
}

/// One item per label file, paired with its image; the classes from `data.yaml`, whose
/// problems are dataset findings.
pub(crate) fn collect(scan: &mut RootScan<'_>) -> YoloClasses {
    let mut classes = YoloClasses::default();
    let yamls: Vec<&Entry> = scan
        .files
        .iter()
        .copied()
        .filter(|e| !e.rel.contains('/') && is_data_yaml(e))
        .collect();
    if let Some(y) = yamls.first() {
        match DataYaml::read(&y.path) {
            Ok(d) => {
                for p in d.problems() {
                    let item = scan.synthetic(&y.rel, "all".into(), p);
                    scan.items.push(item);
                }
                classes.nc = d.class_count();
                classes.names = Some(d.names);
            }
            Err(p) => {
                let item = scan.synthetic(&y.rel, "all".into(), p);
                scan.items.push(item);
            }
        }
    } else if let Some(c) = scan
        .files
        .iter()
        .find(|e| e.rel.rsplit('/').next() == Some("classes.txt"))
    {
        if let Ok(names) = crate::config::read_class_names(&c.path) {
            classes.nc = Some(names.len() as u32);
            classes.names = Some(names);
        }
    }
    // Images by their path without the extension, which ultralytics compares without case
    // (`x.JPG` is an image, and its label is `x.txt`).
    let images: HashMap<&str, &str> = scan
        .files
        .iter()
        .copied()
        .filter(|e| IMAGE_EXTS.contains(&ext_of(&e.rel).as_str()))
        .map(|e| (stem_of(&e.rel), e.rel.as_str()))
        .collect();
    let labels: Vec<&Entry> = scan
        .files
        .iter()
        .copied()
        .filter(|e| is_label_file(&e.rel))
        .collect();
    for e in labels {
        let comps = components(&e.rel);
        let Some(at) = labels_at(&comps) else {
            continue;
        };
        let mut parts: Vec<&str> = comps.clone();
        parts[at] = "images";
        let last = parts.len() - 1;
        let stem = stem_of(comps[last]);
        let dir = parts[..last].join("/");
        let key = if dir.is_empty() {
            stem.to_string()
        } else {
            format!("{dir}/{stem}")
        };
        let image = images.get(key.as_str()).copied();
        let missing_image = image
            .is_none()
            .then(|| super::paths::display(&scan.root, &format!("{key}.jpg")));
        let split = super::paths::loose_split(&e.rel);
        let task = Task::Yolo {
            image: image.map(|p| scan.root.join(p)),
            missing_image,
        };
        let item = scan.item(e, split, task);
        scan.items.push(item);
    }
    classes
}
