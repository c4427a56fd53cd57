//! Path helpers every layout uses: split names, extensions, stems and display paths.

use std::collections::BTreeMap;
use std::path::Path;

pub(crate) const MASK_EXTS: &[&str] = &["png", "tif", "tiff"];
pub(crate) const ARRAY_EXTS: &[&str] = &["npy", "npz", "safetensors"];
/// torchvision's `IMG_EXTENSIONS`.
pub(crate) const IMAGE_EXTS: &[&str] = &[
    "jpg", "jpeg", "png", "ppm", "bmp", "pgm", "tif", "tiff", "webp",
];

/// The split a path belongs to: the first component that names one.
pub fn split_of(rel: &str) -> String {
    for comp in rel.split('/') {
        let c = comp.to_ascii_lowercase();
        let s = match c.as_str() {
            "train" | "training" | "trn" => "train",
            "val" | "valid" | "validation" | "dev" => "val",
            "test" | "testing" | "tst" => "test",
            _ => continue,
        };
        return s.to_string();
    }
    "all".to_string()
}

pub(crate) fn ext_of(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

pub(crate) fn stem_of(name: &str) -> &str {
    name.rsplit_once('.').map(|(s, _)| s).unwrap_or(name)
}

pub(crate) fn display(root: &Path, rel: &str) -> String {
    let r = root.to_string_lossy();
    if rel.is_empty() {
        r.into_owned()
    } else if r.ends_with('/') {
        format!("{r}{rel}")
    } else {
        format!("{r}/{rel}")
    }
}

pub(crate) fn components(rel: &str) -> Vec<&str> {
    rel.split('/').collect()
}

pub(crate) fn is_split_name(name: &str) -> bool {
    split_of(name) != "all"
}

/// The split of a name such as `train2017` or `val`: its letters' split.
pub(crate) fn loose_split(rel: &str) -> String {
    let s = split_of(rel);
    if s != "all" {
        return s;
    }
    for comp in components(rel) {
        let s = split_of(comp.trim_end_matches(|c: char| c.is_ascii_digit()));
        if s != "all" {
            return s;
        }
    }
    "all".into()
}

/// A detection layout's trees as `partition` takes them: (base, owned paths sorted and
/// distinct), by base.
pub(crate) fn trees_of(found: BTreeMap<String, Vec<String>>) -> Vec<(String, Vec<String>)> {
    found
        .into_iter()
        .map(|(base, mut owned)| {
            owned.sort();
            owned.dedup();
            (base, owned)
        })
        .collect()
}
