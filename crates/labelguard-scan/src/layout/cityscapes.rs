//! The **cityscapes** layout: `gtFine/<split>/<city>/<stem>_gtFine_labelTrainIds.png` (or
//! `gtCoarse`) paired with `leftImg8bit/<split>/<city>/<stem>_leftImg8bit.png`; a stem without
//! a `labelTrainIds` file is scanned through its `labelIds` file, so the trap is named (LG105).

use super::declare::{At, Found, Layout, Tree};
use super::item::{RootScan, Task};
use super::pairing::pair;
use super::paths::{components, split_of};
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{holds, Holds};
use labelguard_formats::walk::Entry;
use std::collections::{BTreeMap, BTreeSet};

/// The folders of the label masks.
const LABEL_DIRS: &[&str] = &["gtFine", "gtCoarse"];
/// The folders a Cityscapes tree owns: its labels and its images.
const OWNED: &[&str] = &["gtFine", "gtCoarse", "leftImg8bit"];

/// The Cityscapes trees: the folder above each `gtFine`/`gtCoarse` that holds a label mask
/// (`*_labelTrainIds.png`, `*_labelIds.png`).
fn trees(files: &[&Entry]) -> Vec<Tree> {
    let mut bases: BTreeSet<String> = BTreeSet::new();
    for e in files {
        // The name first: it rules out almost every file without splitting its path.
        if !(e.rel.ends_with("_labelTrainIds.png") || e.rel.ends_with("_labelIds.png")) {
            continue;
        }
        let comps = components(&e.rel);
        if let Some(pos) = comps.iter().position(|c| LABEL_DIRS.contains(c)) {
            bases.insert(comps[..pos].join("/"));
        }
    }
    let owned: Vec<String> = OWNED.iter().map(|d| d.to_string()).collect();
    bases.into_iter().map(|b| (b, owned.clone())).collect()
}

pub(crate) fn collect(scan: &mut RootScan<'_>, opts: &ScanOptions) {
    // (base, kind, subdir, stem) -> which label files exist.
    struct Labels<'e> {
        train: Option<&'e Entry>,
        ids: Option<&'e Entry>,
        other: Option<&'e Entry>,
    }
    let mut groups: BTreeMap<(String, String, String, String), Labels<'_>> = BTreeMap::new();
    let forced = opts.mask_suffix.clone();
    let mut bases: BTreeSet<String> = BTreeSet::new();
    let mut strays: Vec<&Entry> = Vec::new();
    for e in &scan.files {
        let comps = components(&e.rel);
        let Some(pos) = comps.iter().position(|c| LABEL_DIRS.contains(c)) else {
            continue;
        };
        let name = comps[comps.len() - 1];
        let kind = comps[pos];
        let base = comps[..pos].join("/");
        let subdir = comps[pos + 1..comps.len() - 1].join("/");
        let (stem, slot) = if let Some(f) = &forced {
            match name.strip_suffix(f.as_str()) {
                Some(s) => (s, 2),
                None => continue,
            }
        } else if let Some(s) = name.strip_suffix(&format!("_{kind}_labelTrainIds.png")) {
            (s, 0)
        } else if let Some(s) = name.strip_suffix(&format!("_{kind}_labelIds.png")) {
            (s, 1)
        } else if CITYSCAPES_OTHER
            .iter()
            .any(|o| name.ends_with(&format!("_{kind}_{o}")))
        {
            continue;
        } else if holds(name, Holds::Mask) || holds(name, Holds::Array) {
            // A file in the label tree that follows no Cityscapes name: scanned on its own.
            strays.push(*e);
            continue;
        } else {
            continue;
        };
        bases.insert(base.clone());
        let g = groups
            .entry((base, kind.to_string(), subdir, stem.to_string()))
            .or_insert(Labels {
                train: None,
                ids: None,
                other: None,
            });
        match slot {
            0 => g.train = Some(e),
            1 => g.ids = Some(e),
            _ => g.other = Some(e),
        }
    }
    let join = |base: &str, rest: String| {
        if base.is_empty() {
            rest
        } else {
            format!("{base}/{rest}")
        }
    };
    let masks: Vec<(&Entry, String)> = groups
        .iter()
        .filter_map(|((_, _, subdir, _), f)| {
            f.other.or(f.train).or(f.ids).map(|e| (e, split_of(subdir)))
        })
        .collect();
    let expected = |e: &Entry| -> Vec<String> {
        let comps = components(&e.rel);
        let pos = comps
            .iter()
            .position(|c| *c == "gtFine" || *c == "gtCoarse")
            .unwrap_or(0);
        let base = comps[..pos].join("/");
        let subdir = comps[pos + 1..comps.len() - 1].join("/");
        let name = comps[comps.len() - 1];
        let stem = name
            .split(&format!("_{}_", comps[pos]))
            .next()
            .unwrap_or(name);
        let stem = forced
            .as_deref()
            .and_then(|f| name.strip_suffix(f))
            .unwrap_or(stem);
        vec![join(
            &base,
            format!("leftImg8bit/{subdir}/{stem}_leftImg8bit.png"),
        )]
    };
    let prefixes: Vec<String> = bases
        .iter()
        .map(|b| join(b, "leftImg8bit".into()))
        .collect();
    pair(
        scan,
        masks,
        expected,
        Some((prefixes, &|r: &str| r.ends_with("_leftImg8bit.png"))),
    );
    for e in strays {
        let item = scan.item(e, split_of(&e.rel), Task::unpaired_label(&e.rel));
        scan.items.push(item);
    }
}

/// The other files cityscapesScripts puts beside the label masks: not class-id masks.
const CITYSCAPES_OTHER: &[&str] = &[
    "color.png",
    "instanceIds.png",
    "instanceTrainIds.png",
    "polygons.json",
    "labelTrainIds_color.png",
];

/// The cityscapes layout's kind: `--layout cityscapes`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("cityscapes");

/// The cityscapes layout (see the module's doc).
pub(crate) struct Cityscapes;

impl Layout for Cityscapes {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn help(&self) -> &'static str {
        "gtFine + leftImg8bit"
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        trees(files)
    }
    fn collect(&self, scan: &mut RootScan<'_>, opts: &ScanOptions) -> Found {
        collect(scan, opts);
        Found::default()
    }
}
