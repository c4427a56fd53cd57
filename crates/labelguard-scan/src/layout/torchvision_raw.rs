//! The **torchvision** layout: the raw files of torchvision's classification datasets, read as
//! class labels. MNIST, FashionMNIST and KMNIST keep `{train,t10k}-labels-idx1-ubyte` (and the
//! `-images-idx3-ubyte` files) in `<root>/<Class>/raw/` (torchvision `datasets/mnist.py`);
//! CIFAR-10 keeps `data_batch_1`..`5` and `test_batch` in `cifar-10-batches-py/`, CIFAR-100
//! `train` and `test` in `cifar-100-python/` (`datasets/cifar.py`). Each label file is one item;
//! the class count is the dataset's own (10, or CIFAR-100's 100 fine classes) unless
//! `--num-classes` says otherwise.

use super::declare::{At, Found, Layout, Tree};
use super::item::{RootScan, Task};
use super::paths::folder_name;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::read::torchvision_raw::RawLabels;
use labelguard_formats::walk::Entry;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// CIFAR-100's folder: its `train` and `test` files are batches only there.
const CIFAR100_DIR: &str = "cifar-100-python";

fn split_path(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

/// A raw file of the layout: its split, whether it holds labels, and its dataset's class count.
struct Raw<'a> {
    split: &'static str,
    labels: bool,
    classes: u32,
    /// The MNIST split's name prefix (`train`, `t10k`), to find its images file.
    prefix: Option<&'a str>,
}

/// The raw file at `rel`, if it is one; `root_name` is the name of the folder `rel` is relative
/// to (a file directly in it is in that folder).
fn raw_file<'a>(rel: &'a str, root_name: &str) -> Option<Raw<'a>> {
    let (dir, name) = split_path(rel);
    let folder = if dir.is_empty() {
        root_name
    } else {
        split_path(dir).1
    };
    let plain = name.strip_suffix(".gz").unwrap_or(name);
    for (prefix, split) in [("train", "train"), ("t10k", "test")] {
        let Some(rest) = plain.strip_prefix(prefix) else {
            continue;
        };
        let labels = match rest {
            "-labels-idx1-ubyte" => true,
            "-images-idx3-ubyte" => false,
            _ => continue,
        };
        return Some(Raw {
            split,
            labels,
            classes: 10,
            prefix: Some(prefix),
        });
    }
    let batch = |split, classes| {
        Some(Raw {
            split,
            labels: true,
            classes,
            prefix: None,
        })
    };
    if name == "test_batch" {
        return batch("test", 10);
    }
    if name
        .strip_prefix("data_batch_")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
    {
        return batch("train", 10);
    }
    let cifar100 = folder == CIFAR100_DIR;
    match name {
        "train" if cifar100 => batch("train", 100),
        "test" if cifar100 => batch("test", 100),
        "batches.meta" | "meta" | "readme.html" if folder.ends_with("-py") || cifar100 => {
            Some(Raw {
                split: "all",
                labels: false,
                classes: 0,
                prefix: None,
            })
        }
        _ => None,
    }
}

/// The folders holding torchvision raw files, with the names each owns: (base, owned);
/// `root_name` is the name of the folder the paths are relative to.
pub(crate) fn trees(files: &[&Entry], root_name: &str) -> Vec<(String, Vec<String>)> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut with_labels: HashSet<String> = HashSet::new();
    for e in files {
        if let Some(r) = raw_file(&e.rel, root_name) {
            let (dir, name) = split_path(&e.rel);
            out.entry(dir.to_string())
                .or_default()
                .insert(name.to_string());
            if r.labels {
                with_labels.insert(dir.to_string());
            }
        }
    }
    out.into_iter()
        .filter(|(b, _)| with_labels.contains(b))
        .map(|(b, o)| (b, o.into_iter().collect()))
        .collect()
}

/// One item per label file (an uncompressed MNIST file rather than its `.gz`, as torchvision
/// reads it); returns the datasets' class count when they agree on one.
pub(crate) fn collect(scan: &mut RootScan<'_>) -> Option<u32> {
    let present: HashSet<&str> = scan.files.iter().map(|e| e.rel.as_str()).collect();
    let root_name = folder_name(&scan.root);
    let mut items = Vec::new();
    let mut classes: BTreeSet<u32> = BTreeSet::new();
    for e in &scan.files {
        let Some(r) = raw_file(&e.rel, &root_name) else {
            continue;
        };
        if !r.labels {
            continue;
        }
        if let Some(plain) = e.rel.strip_suffix(".gz") {
            if present.contains(plain) {
                continue;
            }
        }
        let task = match r.prefix {
            Some(prefix) => {
                let dir = split_path(&e.rel).0;
                let name = format!("{prefix}-images-idx3-ubyte");
                let images = [name.clone(), format!("{name}.gz")]
                    .into_iter()
                    .map(|n| {
                        if dir.is_empty() {
                            n
                        } else {
                            format!("{dir}/{n}")
                        }
                    })
                    .find(|p| present.contains(p.as_str()))
                    .and_then(|p| scan.source_of(&p).path().map(|p| p.to_path_buf()));
                RawLabels::Mnist { images }
            }
            None => RawLabels::Cifar,
        };
        classes.insert(r.classes);
        items.push(scan.item(e, r.split.to_string(), Task::RawLabels(task)));
    }
    scan.items.extend(items);
    match classes.len() {
        1 => classes.first().copied(),
        _ => None,
    }
}

/// The torchvision layout's kind: `--layout torchvision`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("torchvision");

/// The torchvision layout (see the module's doc).
pub(crate) struct Torchvision;

impl Layout for Torchvision {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["mnist", "cifar"]
    }
    fn help(&self) -> &'static str {
        "raw MNIST (train-labels-idx1-ubyte) and CIFAR (data_batch_1) files: class ids"
    }
    fn claim(&self, files: &[&Entry], at: &At<'_>) -> Vec<Tree> {
        trees(files, at.root_name)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        Found {
            class_names: None,
            num_classes: collect(scan),
            palette: None,
        }
    }
}
