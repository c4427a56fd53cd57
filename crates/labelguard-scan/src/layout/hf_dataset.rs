//! The **hfdataset** layout: a folder written by `datasets`' `save_to_disk`. A `Dataset` folder
//! holds `state.json` (its `_data_files[].filename` list the Arrow shards in row order),
//! `dataset_info.json` and the shards; a `DatasetDict` folder holds `dataset_dict.json` and one
//! such folder per split (datasets `arrow_dataset.py` `save_to_disk`, `dataset_dict.py`). Each
//! split is one item whose task reads its shards in order, so rows are numbered across them.

use super::declare::{At, Found, Layout, Tree};
use super::item::{RootScan, Task};
use super::paths::{components, display};
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::read::tokens::TokenFormat;
use labelguard_formats::source::Source;
use labelguard_formats::walk::Entry;
use std::collections::{BTreeMap, BTreeSet};

const STATE: &str = "state.json";
const DICT: &str = "dataset_dict.json";

fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

fn name_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(rel, |(_, n)| n)
}

/// The `datasets` folders of a tree, with the top-level names each owns: (base, owned).
pub(crate) fn trees(files: &[&Entry]) -> Vec<(String, Vec<String>)> {
    let dicts: BTreeSet<&str> = files
        .iter()
        .filter(|e| name_of(&e.rel) == DICT)
        .map(|e| parent(&e.rel))
        .collect();
    let mut bases: BTreeSet<&str> = dicts.clone();
    for e in files.iter().filter(|e| name_of(&e.rel) == STATE) {
        let dir = parent(&e.rel);
        if dir.is_empty() || !dicts.contains(parent(dir)) {
            bases.insert(dir);
        }
    }
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for base in &bases {
        let prefix = if base.is_empty() {
            String::new()
        } else {
            format!("{base}/")
        };
        let owned = out.entry(base.to_string()).or_default();
        for e in files {
            if let Some(rest) = e.rel.strip_prefix(&prefix) {
                if let Some(first) = components(rest).first() {
                    owned.insert(first.to_string());
                }
            }
        }
    }
    out.into_iter()
        .map(|(b, o)| (b, o.into_iter().collect()))
        .collect()
}

/// One item per split: its `state.json`'s shards, in order.
pub(crate) fn collect(scan: &mut RootScan<'_>) {
    let states: Vec<&Entry> = scan
        .files
        .iter()
        .filter(|e| name_of(&e.rel) == STATE)
        .copied()
        .collect();
    for e in states {
        let dir = parent(&e.rel).to_string();
        let split = if dir.is_empty() {
            String::new()
        } else {
            name_of(&dir).to_string()
        };
        let Some(state) = e.path() else {
            let p = crate::checks::lg601_unreadable_file::local_only("a `datasets` folder");
            scan.items.push(scan.item(e, split, Task::Problem(p)));
            continue;
        };
        let task = match shards(state) {
            // What `save_to_disk` writes for a dataset of no rows; `load_from_disk` fails on it.
            Ok(names) if names.is_empty() => {
                Task::Problem(crate::checks::lg603_empty_file::dataset_without_rows())
            }
            Ok(names) => {
                let missing: Vec<&String> = names
                    .iter()
                    .filter(|n| {
                        let rel = if dir.is_empty() {
                            n.to_string()
                        } else {
                            format!("{dir}/{n}")
                        };
                        !scan.present.contains(rel.as_str())
                    })
                    .collect();
                if let Some(m) = missing.first() {
                    Task::Problem(crate::checks::lg602_corrupt_file::corrupt_table(format!(
                        "state.json lists the shard '{}', which is missing",
                        labelguard_core::clip::echo(m)
                    )))
                } else {
                    let folder = state.parent().map(|p| p.to_path_buf()).unwrap_or_default();
                    Task::Tokens {
                        files: names.iter().map(|n| folder.join(n)).collect(),
                        format: TokenFormat::Arrow,
                    }
                }
            }
            Err(m) => Task::Problem(crate::checks::lg602_corrupt_file::corrupt_table(format!(
                "state.json: {m}"
            ))),
        };
        let split = if split.is_empty() {
            split_of_state(state).unwrap_or_else(|| "all".to_string())
        } else {
            split
        };
        let mut item = scan.item(e, split, task);
        if let Task::Tokens { .. } = item.task {
            item.display = display(&scan.root, &dir);
            item.source = Source::File(scan.root.join(&dir));
        }
        scan.items.push(item);
    }
}

/// The shard file names `state.json` lists (`_data_files[].filename`), checked to be plain
/// names inside the folder.
fn shards(path: &std::path::Path) -> Result<Vec<String>, String> {
    let text = read_small(path)?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
    let files = v
        .get("_data_files")
        .and_then(|f| f.as_array())
        .ok_or("no _data_files list")?;
    let mut out = Vec::new();
    for f in files {
        let name = f
            .get("filename")
            .and_then(|n| n.as_str())
            .ok_or("a _data_files entry without a filename")?;
        if name.is_empty() || name.contains('/') || name.contains('\\') || name == ".." {
            return Err(format!(
                "the shard name '{}' is not a file of the folder",
                labelguard_core::clip::echo(name)
            ));
        }
        out.push(name.to_string());
    }
    Ok(out)
}

/// `state.json`'s `_split`, for a `Dataset` saved on its own.
fn split_of_state(path: &std::path::Path) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(&read_small(path).ok()?).ok()?;
    v.get("_split")?.as_str().map(str::to_string)
}

/// A JSON file of at most 16 MiB.
fn read_small(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let (file, _) = labelguard_formats::source::file::open_regular(path).map_err(|f| f.message)?;
    let mut s = String::new();
    file.take(16 << 20)
        .read_to_string(&mut s)
        .map_err(|e| format!("cannot read: {e}"))?;
    Ok(s)
}

/// The hfdataset layout's kind: `--layout hfdataset`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("hfdataset");

/// The hfdataset layout (see the module's doc).
pub(crate) struct HfDataset;

impl Layout for HfDataset {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["hf", "datasets", "arrow"]
    }
    fn help(&self) -> &'static str {
        "a datasets save_to_disk folder (state.json, dataset_dict.json): token data"
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        trees(files)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        collect(scan);
        Found::default()
    }
}
