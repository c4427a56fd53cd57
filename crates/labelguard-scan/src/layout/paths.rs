//! Path helpers every layout uses: split names, extensions, stems and display paths.

use labelguard_formats::walk::Entry;
use std::collections::BTreeMap;
use std::path::Path;

/// The split a path belongs to: the first component that names one.
pub fn split_of(rel: &str) -> String {
    rel.split('/')
        .find_map(split_named)
        .unwrap_or("all")
        .to_string()
}

/// The split a folder name names, ignoring case (no allocation: it runs on every file).
fn split_named(name: &str) -> Option<&'static str> {
    const NAMES: &[(&str, &str)] = &[
        ("train", "train"),
        ("training", "train"),
        ("trn", "train"),
        ("val", "val"),
        ("valid", "val"),
        ("validation", "val"),
        ("dev", "val"),
        ("test", "test"),
        ("testing", "test"),
        ("tst", "test"),
    ];
    NAMES
        .iter()
        .find(|(n, _)| name.eq_ignore_ascii_case(n))
        .map(|(_, s)| *s)
}

pub(crate) fn ext_of(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Whether [`ext_of`]`(name)` is one of `exts` (lower case), without allocating: for the
/// checks that run on every file of a tree.
pub(crate) fn has_ext(name: &str, exts: &[&str]) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, e)| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// (the folder above `rel`'s folder, the name of `rel`'s folder): `a/b/SegmentationClass/x.png`
/// -> (`a/b`, `SegmentationClass`); `None` for a file at the top.
pub(crate) fn folder_of(rel: &str) -> Option<(&str, &str)> {
    let (dir, _) = rel.rsplit_once('/')?;
    Some(dir.rsplit_once('/').unwrap_or(("", dir)))
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
    name.split('/').any(|c| split_named(c).is_some())
}

/// The split of a name such as `train2017` or `val`: its letters' split.
pub(crate) fn loose_split(rel: &str) -> String {
    rel.split('/')
        .find_map(split_named)
        .or_else(|| {
            rel.split('/')
                .find_map(|c| split_named(c.trim_end_matches(|c: char| c.is_ascii_digit())))
        })
        .unwrap_or("all")
        .to_string()
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

/// The name of a folder (`""` for a path without one): what names a dataset's root.
pub(crate) fn folder_name(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// (folder, names of the files directly in it) of every folder of some files.
pub(crate) type Folders<'e> = BTreeMap<String, Vec<&'e str>>;

/// The [`Folders`] of `files`.
pub(crate) fn folders<'e>(files: &[&'e Entry]) -> Folders<'e> {
    let mut out: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for e in files {
        let comps = components(&e.rel);
        if let Some((name, dir)) = comps.split_last() {
            out.entry(dir.join("/")).or_default().push(name);
        }
    }
    out
}
