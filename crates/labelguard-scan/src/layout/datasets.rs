//! Which datasets a scanned folder holds. A parent folder often holds several (a VOC tree, an
//! ADE20K tree, a folder of binary masks, an ImageFolder tree, loose arrays and label tables):
//! each becomes a group of files with its own layout, scanned and reported on its own, so that
//! recognising one layout never hides the files of the others.
//!
//! The layouts that claim trees claim them first, each tree going to the first layout of
//! `list::LAYOUTS` that claims it (Cityscapes `gtFine`/`gtCoarse` + `leftImg8bit`, VOC's
//! `SegmentationClass` and siblings, ..., a mask folder beside an image folder); what is left
//! is grouped by top-level folder (split folders such as `train/` stay with the root), the label
//! tables of each folder are a dataset of their own, and each group goes to the first layout
//! of loose files that claims it (keyed samples, an ImageFolder tree, files).
//! A folder with a single group is scanned as one dataset exactly as before.

use super::declare::{At, Scope};
use super::files::{self, json_lines};
use super::list::first_claim;
use super::paths::{components, is_split_name};
use super::LAYOUTS;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::read::table::TableFormat;
use labelguard_formats::walk::Entry;
use std::collections::BTreeMap;

/// One dataset's files, before its layout runs.
pub(crate) struct Group<'a> {
    /// The folder the layout runs in, relative to the scanned root (`""`: the root).
    pub sub: String,
    /// What the report calls it, relative to the scanned root (a table's own path).
    pub name: String,
    /// `Auto`: detect within the group.
    pub kind: LayoutKind,
    pub files: Vec<&'a Entry>,
    /// Report the dataset even when its layout finds nothing (the root of a plain scan).
    pub keep_empty: bool,
}

fn join(base: &str, rest: &str) -> String {
    if base.is_empty() {
        rest.to_string()
    } else {
        format!("{base}/{rest}")
    }
}

fn under(rel: &str, prefix: &str) -> bool {
    rel.len() > prefix.len() && rel.starts_with(prefix) && rel.as_bytes()[prefix.len()] == b'/'
}

/// Whether `rel` is the owned path `owned` (a file a tree owns, such as `data.yaml`) or below
/// it.
fn owns(rel: &str, owned: &str) -> bool {
    rel == owned || under(rel, owned)
}

/// The groups of a walked folder. A forced `--layout` or `--mask-glob` keeps the whole folder
/// as one dataset.
pub(crate) fn partition<'a>(files: &[&'a Entry], opts: &ScanOptions) -> Vec<Group<'a>> {
    let whole = |kind| {
        vec![Group {
            sub: String::new(),
            name: String::new(),
            kind,
            files: files.to_vec(),
            keep_empty: true,
        }]
    };
    if opts.layout != LayoutKind::AUTO || opts.mask_glob.is_some() {
        return whole(opts.layout);
    }
    // (base, kind, owned folders below the base), in order of precedence.
    let mut trees: Vec<(String, LayoutKind, Vec<String>)> = Vec::new();
    let mut add = |base: String, kind: LayoutKind, owned: Vec<String>| {
        let inside = |t: &(String, LayoutKind, Vec<String>)| {
            // A base that is a tree's owned folder is inside it too (a Roboflow export's
            // `train/` holds `images/` and `labels/`, which look paired on their own).
            t.0 == base || t.2.iter().any(|o| owns(&base, &join(&t.0, o)))
        };
        if !trees.iter().any(inside) {
            trees.push((base, kind, owned));
        }
    };
    // Every tree, claimed by the first layout (in order of precedence) that claims it.
    let at = At {
        opts,
        root_name: "",
    };
    for layout in LAYOUTS.iter().filter(|l| l.scope() == Scope::Trees) {
        for (base, owned) in layout.claim(files, &at) {
            add(base, layout.kind(), owned);
        }
    }
    // Each tree's owned paths joined to its base once, not once per file.
    let claims: Vec<Vec<String>> = trees
        .iter()
        .map(|(base, _, owned)| owned.iter().map(|o| join(base, o)).collect())
        .collect();
    let mut groups: Vec<Group<'a>> = trees
        .iter()
        .zip(&claims)
        .map(|((base, kind, _), claim)| Group {
            sub: base.clone(),
            name: base.clone(),
            kind: *kind,
            files: files
                .iter()
                .filter(|e| claim.iter().any(|o| owns(&e.rel, o)))
                .copied()
                .collect(),
            keep_empty: false,
        })
        .collect();
    let owned = |rel: &str| claims.iter().flatten().any(|o| owns(rel, o));
    let leftover: Vec<&'a Entry> = files.iter().filter(|e| !owned(&e.rel)).copied().collect();
    // Loose files by top-level folder; split folders stay with the root.
    let mut buckets: BTreeMap<String, Vec<&'a Entry>> = BTreeMap::new();
    // Label tables by folder: `train.csv` and `val.csv` beside each other are one dataset (and
    // `train.json` and `validation.json` of JSON Lines records).
    let mut tables: BTreeMap<String, Vec<&'a Entry>> = BTreeMap::new();
    for e in &leftover {
        if TableFormat::of(&e.rel).is_some() || json_lines(e) {
            let dir = e.rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
            tables.entry(dir.to_string()).or_default().push(e);
            continue;
        }
        let comps = components(&e.rel);
        let key = if comps.len() > 1 && !is_split_name(comps[0]) {
            comps[0].to_string()
        } else {
            String::new()
        };
        buckets.entry(key).or_default().push(e);
    }
    // Folders that are one dataset of a layout of loose files (a plain ImageFolder root,
    // `root/cat/0.jpg` and `root/dog/0.jpg`: its class folders), not a dataset each.
    let loose: Vec<&'a Entry> = buckets.values().flatten().copied().collect();
    let spanned = || {
        LAYOUTS
            .iter()
            .filter(|l| l.scope() == Scope::Loose)
            .any(|l| l.spans_folders(&loose))
    };
    if buckets.len() > 1 && spanned() {
        buckets = BTreeMap::from([(String::new(), loose)]);
    }
    if groups.is_empty() && tables.len() + buckets.len() <= 1 {
        // One dataset: the folder itself, detected as before.
        return whole(LayoutKind::AUTO);
    }
    for (sub, files) in buckets {
        let rel: Vec<Entry> = files
            .iter()
            .map(|e| {
                let mut x = (*e).clone();
                if !sub.is_empty() {
                    x.rel = e.rel[sub.len() + 1..].to_string();
                }
                x
            })
            .collect();
        let refs: Vec<&Entry> = rel.iter().collect();
        let kind = first_claim(&refs, &at, Some(Scope::Loose));
        groups.push(Group {
            sub: sub.clone(),
            name: sub,
            kind,
            files,
            keep_empty: false,
        });
    }
    for (dir, files) in tables {
        // One table is named by its path (a `[[datasets]]` entry names it so); several by
        // their folder.
        let name = match files.as_slice() {
            [one] => one.rel.clone(),
            _ => dir.clone(),
        };
        groups.push(Group {
            sub: dir,
            name,
            kind: files::KIND,
            files,
            keep_empty: false,
        });
    }
    groups
}
