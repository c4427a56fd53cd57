//! The **tokenbin** layout: flat token files that language-model training scripts memory-map.
//! nanoGPT's `data/<set>/train.bin` and `val.bin` (uint16 ids, with the `meta.pkl` its
//! `prepare.py` writes for character-level sets), and Megatron / NeMo / GPT-NeoX indexed
//! datasets, `PREFIX.bin` beside `PREFIX.idx` (`megatron/core/datasets/indexed_dataset.py`).
//! Each `.bin` is one item, read as a stream of ids (see [`labelguard_formats::read::token_bin`]).

use super::declare::{At, Found, Layout, Tree};
use super::item::{RootScan, Task};
use super::paths::split_of;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::read::token_bin as reader;
use labelguard_formats::walk::Entry;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// nanoGPT's token files (`data/*/prepare.py` writes these two) and its vocabulary file.
const NANOGPT: &[&str] = &["train.bin", "val.bin"];
const META: &str = "meta.pkl";

fn split_path(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// What the `.bin` at `rel` is, given the paths present: a Megatron `.bin` when its `.idx` is
/// beside it, else nanoGPT's when it is named `train.bin`/`val.bin`. The paths of its `.idx`
/// or `meta.pkl` come with it.
fn kind_of(rel: &str, present: &HashSet<&str>) -> Option<(bool, Option<String>)> {
    let (dir, name) = split_path(rel);
    let stem = name.strip_suffix(".bin")?;
    let idx = join(dir, &format!("{stem}.idx"));
    if present.contains(idx.as_str()) {
        return Some((true, Some(idx)));
    }
    if NANOGPT.contains(&name) {
        let meta = join(dir, META);
        return Some((false, present.contains(meta.as_str()).then_some(meta)));
    }
    None
}

/// The folders holding token files, with the names each owns: (base, owned).
pub(crate) fn trees(files: &[&Entry]) -> Vec<(String, Vec<String>)> {
    if !files.iter().any(|e| e.rel.ends_with(".bin")) {
        return Vec::new();
    }
    let present: HashSet<&str> = files.iter().map(|e| e.rel.as_str()).collect();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in files {
        if let Some((_, with)) = kind_of(&e.rel, &present) {
            let (dir, name) = split_path(&e.rel);
            let owned = out.entry(dir.to_string()).or_default();
            owned.insert(name.to_string());
            if let Some(w) = with {
                owned.insert(split_path(&w).1.to_string());
            }
        }
    }
    out.into_iter()
        .map(|(b, o)| (b, o.into_iter().collect()))
        .collect()
}

/// One item per token file.
pub(crate) fn collect(scan: &mut RootScan<'_>) {
    let present: HashSet<&str> = scan.files.iter().map(|e| e.rel.as_str()).collect();
    let mut items = Vec::new();
    for e in &scan.files {
        let Some((megatron, with)) = kind_of(&e.rel, &present) else {
            continue;
        };
        let local = |rel: &String| scan.source_of(rel).path().map(|p| p.to_path_buf());
        let (task, split) = if megatron {
            match with.as_ref().and_then(local) {
                Some(index) => (
                    Task::TokenBin(reader::TokenBin::Megatron { index }),
                    split_of(&e.rel),
                ),
                None => continue,
            }
        } else {
            let meta = with.as_ref().and_then(local);
            let name = split_path(&e.rel).1;
            let split = name.trim_end_matches(".bin").to_string();
            (Task::TokenBin(reader::TokenBin::NanoGpt { meta }), split)
        };
        items.push(scan.item(e, split, task));
    }
    scan.items.extend(items);
}

/// The tokenbin layout's kind: `--layout tokenbin`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("tokenbin");

/// The tokenbin layout (see the module's doc).
pub(crate) struct TokenBin;

impl Layout for TokenBin {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["nanogpt", "megatron"]
    }
    fn help(&self) -> &'static str {
        "nanoGPT train.bin/val.bin (+ meta.pkl), Megatron PREFIX.bin + PREFIX.idx: token ids"
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        trees(files)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        collect(scan);
        Found::default()
    }
}
