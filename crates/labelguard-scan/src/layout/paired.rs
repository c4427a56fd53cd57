//! The **paired** layout: a mask directory (`annotations`, `masks`, `labels`, `gt`, ...) beside
//! an image directory (`images`, `imgs`, ...) with matching stems below them: ADE20K's
//! `annotations/training` + `images/training`, or a plain `images/` + `masks/`.

use super::declare::{At, Found, Layout, Tree};
use super::item::RootScan;
use super::pairing::pair;
use super::paths::{components, split_of, stem_of};
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{extensions, holds, Holds};
use labelguard_formats::walk::Entry;
use std::collections::{BTreeMap, BTreeSet};

const MASK_DIRS: &[&str] = &[
    "annotations",
    "masks",
    "mask",
    "labels",
    "label",
    "gt",
    "groundtruth",
    "ground_truth",
    "segmentations",
    "segmentation",
    "SegmentationClassPNG",
];
const IMAGE_DIRS: &[&str] = &["images", "imgs", "img", "image", "JPEGImages", "rgb"];

/// (base, mask dir, image dir) triples: a mask directory beside an image directory.
pub(crate) fn paired_bases<'e>(
    rels: impl IntoIterator<Item = &'e str>,
) -> Vec<(String, String, String)> {
    let mut dirs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Each folder split once, with its first file (a folder's files are listed together).
    let mut last = None;
    for dir in rels
        .into_iter()
        .filter_map(|rel| rel.rsplit_once('/').map(|(d, _)| d))
    {
        if last == Some(dir) {
            continue;
        }
        last = Some(dir);
        let comps = components(dir);
        for i in 0..comps.len() {
            dirs.entry(comps[..i].join("/"))
                .or_default()
                .insert(comps[i].to_string());
        }
    }
    let mut out = Vec::new();
    for (base, children) in dirs {
        let mask = MASK_DIRS.iter().find(|m| children.contains(**m));
        let image = IMAGE_DIRS.iter().find(|m| children.contains(**m));
        if let (Some(m), Some(i)) = (mask, image) {
            out.push((base, m.to_string(), i.to_string()));
        }
    }
    out
}

pub(crate) fn collect(scan: &mut RootScan<'_>, opts: &ScanOptions) {
    let join = |base: &str, rest: &str| {
        if base.is_empty() {
            rest.to_string()
        } else {
            format!("{base}/{rest}")
        }
    };
    for (base, mask_dir, image_dir) in paired_bases(scan.files.iter().map(|e| e.rel.as_str())) {
        let prefix = join(&base, &format!("{mask_dir}/"));
        let masks: Vec<(&Entry, String)> = scan
            .files
            .iter()
            .filter(|e| {
                e.rel.starts_with(&prefix)
                    && (holds(&e.rel, Holds::Mask) || holds(&e.rel, Holds::Array))
            })
            .map(|e| (*e, split_of(&e.rel)))
            .collect();
        let suffix = opts.mask_suffix.clone();
        let (b2, p2, i2) = (base.clone(), prefix.clone(), image_dir.clone());
        let expected = move |e: &Entry| -> Vec<String> {
            let below = &e.rel[p2.len()..];
            let (subdir, name) = below.rsplit_once('/').unwrap_or(("", below));
            let mut stems = vec![stem_of(name).to_string()];
            if let Some(s) = &suffix {
                if let Some(x) = name
                    .strip_suffix(s.as_str())
                    .or_else(|| stem_of(name).strip_suffix(s.as_str()))
                {
                    stems.insert(0, x.to_string());
                }
            }
            for common in [
                "_mask",
                "_label",
                "_labels",
                "_gt",
                "_seg",
                "_segmentation",
                "_annotation",
            ] {
                if let Some(x) = stem_of(name).strip_suffix(common) {
                    stems.push(x.to_string());
                }
            }
            let dir = if subdir.is_empty() {
                i2.clone()
            } else {
                format!("{i2}/{subdir}")
            };
            stems
                .iter()
                .flat_map(|s| extensions(Holds::Image).map(move |x| (s, x)))
                .map(|(s, x)| join(&b2, &format!("{dir}/{s}.{x}")))
                .collect()
        };
        let image_prefix = vec![join(&base, &image_dir)];
        pair(
            scan,
            masks,
            expected,
            Some((image_prefix, &|r: &str| holds(r, Holds::Image))),
        );
    }
}

/// The paired layout's kind: `--layout paired`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("paired");

/// The paired layout (see the module's doc).
pub(crate) struct Paired;

impl Layout for Paired {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["ade20k", "imagesmasks"]
    }
    fn help(&self) -> &'static str {
        "annotations|masks|labels beside images (ADE20K)"
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        paired_bases(files.iter().map(|e| e.rel.as_str()))
            .into_iter()
            .map(|(base, mask, image)| (base, vec![mask, image]))
            .collect()
    }
    fn collect(&self, scan: &mut RootScan<'_>, opts: &ScanOptions) -> Found {
        collect(scan, opts);
        Found::default()
    }
}
