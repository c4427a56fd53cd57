//! Discovery: every scanned path walked, split into the datasets it holds, each given to its
//! layout, which turns its files into items.

use super::datasets::partition;
use super::declare::{At, DeclaredPalette, Part};
use super::files;
use super::item::{Item, RootScan, Task};
use super::list::{first_claim, layout_of, requested};
use super::paths::{display, folder_name, split_of};
use super::root::Root;
use super::shards;
use super::single_file::single_file;
use crate::config::{ConfigError, ScanOptions};
use crate::layout_kind::LayoutKind;
use labelguard_formats::source::Source;
use labelguard_formats::walk::{self, Entry, EntryKind};
use std::borrow::Cow;
use std::collections::HashSet;
use std::path::PathBuf;

/// One dataset found under a scanned path: a detected layout's tree, a folder of loose label
/// files, or one label table. Each is scanned with its own settings and reported on its own.
#[derive(Clone, Debug)]
pub struct DatasetInfo {
    /// What the report shows: the root as given joined with the dataset's relative path.
    pub name: String,
    /// The dataset's path on disk (for per-dataset config entries).
    pub path: PathBuf,
    pub layout: LayoutKind,
    /// Class names discovered from the files (ImageFolder folders, YOLO's `data.yaml`, the
    /// `<name>`s of VOC annotations).
    pub class_names: Option<Vec<String>>,
    /// The class count the files declare (YOLO's `data.yaml`), when no setting gives one.
    pub num_classes: Option<u32>,
    /// The class colours the files declare (CamVid's `class_dict.csv`), when no setting gives
    /// a palette: its colour masks are labels, mapped with them.
    pub palette: Option<DeclaredPalette>,
    /// The dataset's own settings, when a `[[datasets]]` entry names it; else the scan's.
    pub options: Option<ScanOptions>,
}

/// The result of discovery over all roots.
#[derive(Clone, Debug)]
pub struct Discovery {
    pub items: Vec<Item>,
    /// The layout of each dataset, for the report.
    pub layouts: Vec<LayoutKind>,
    /// Class names discovered from the files (ImageFolder folders), when none were given.
    pub class_names: Option<Vec<String>>,
    /// Every dataset found; `Item::dataset` indexes this list.
    pub datasets: Vec<DatasetInfo>,
}

/// Finds the items of every path. A path that does not exist is a usage error.
pub fn discover(roots: &[PathBuf], opts: &ScanOptions) -> Result<Discovery, ConfigError> {
    let roots: Vec<Root> = roots.iter().cloned().map(Root::Path).collect();
    discover_roots(&roots, opts)
}

/// Finds the items of every root, on disk or listed.
pub fn discover_roots(roots: &[Root], opts: &ScanOptions) -> Result<Discovery, ConfigError> {
    // A layout named that none declares is an error before anything is read.
    requested(opts.layout)?;
    let mut items = Vec::new();
    let mut datasets: Vec<DatasetInfo> = Vec::new();
    // The `[[datasets]]` entries that named a dataset found here.
    let mut matched: HashSet<PathBuf> = HashSet::new();
    // A tar shard named as a root stands for its members.
    let roots: Vec<Cow<Root>> = roots
        .iter()
        .map(|r| match r {
            Root::Path(p) => shards::shard_file_root(p).map_or(Cow::Borrowed(r), Cow::Owned),
            Root::Listed(_) => Cow::Borrowed(r),
        })
        .collect();
    for (index, given) in roots.iter().enumerate() {
        let given: &Root = given;
        let root = &given.shown();
        let listed = match given {
            Root::Listed(l) => Some(l),
            Root::Path(_) => None,
        };
        let meta = match listed {
            Some(_) => None,
            None => Some(
                std::fs::metadata(root)
                    .map_err(|e| ConfigError::Invalid(format!("{}: {e}", root.display())))?,
            ),
        };
        if meta.is_some_and(|m| !m.is_dir()) {
            let rel = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // One file scanned on its own is read as what its format row says it is.
            let (task, layout) = single_file(root);
            let mut key = vec![index as u8];
            key.extend_from_slice(rel.as_bytes());
            items.push(Item {
                source: Source::File(root.clone()),
                display: root.to_string_lossy().into_owned(),
                key,
                shard_key: None,
                split: split_of(&root.to_string_lossy()),
                non_utf8: root.to_str().is_none(),
                task,
                dataset: datasets.len(),
            });
            let own = opts.for_dataset(root)?;
            if own.is_some() {
                matched.insert(canonical(root));
            }
            // A multiple-choice table named alone declares its class count as in a folder.
            let num_classes = match items.last().map(|it| (&it.source, &it.task)) {
                Some((source, Task::Table(f))) => {
                    super::multiple_choice::class_count([(source, *f)])
                }
                _ => None,
            };
            datasets.push(DatasetInfo {
                name: root.to_string_lossy().into_owned(),
                path: root.clone(),
                layout,
                class_names: None,
                num_classes,
                palette: None,
                options: own,
            });
            continue;
        }
        // Include globs select label files after pairing, so that images stay visible.
        let entries: Cow<[Entry]> = match listed {
            Some(l) => Cow::Borrowed(&l.entries),
            None => Cow::Owned(shards::expand(root, walk::walk(root, &[], &opts.exclude))),
        };
        // Entries read from elsewhere than `root.join(rel)`: tar members, bucket objects.
        let elsewhere = listed.is_some() || entries.iter().any(|e| e.shown.is_some());
        let walked: Vec<&Entry> = entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::File))
            .collect();
        let first = datasets.len();
        let mut root_items: Vec<Item> = Vec::new();
        // (dataset's relative path, dataset index): where the walk's problems belong.
        let mut homes: Vec<(String, usize)> = Vec::new();
        for group in partition(&walked, opts) {
            // A dataset at the root sees the walked entries as they are; one below it gets
            // copies with paths relative to its folder.
            let rerooted: Vec<Entry> = if group.sub.is_empty() {
                Vec::new()
            } else {
                group.files.iter().map(|e| reroot(e, &group.sub)).collect()
            };
            let own: Vec<&Entry> = if group.sub.is_empty() {
                group.files.clone()
            } else {
                rerooted.iter().collect()
            };
            let mut scan = RootScan {
                index,
                root: if group.sub.is_empty() {
                    root.clone()
                } else {
                    root.join(&group.sub)
                },
                sub: group.sub.clone(),
                present: HashSet::new(),
                listed: None,
                files: own,
                items: Vec::new(),
            };
            if elsewhere {
                scan.listed = Some(scan.files.iter().map(|e| (e.rel.as_str(), *e)).collect());
            }
            // The dataset's own settings (a `[[datasets]]` entry) before its layout checks
            // anything, so that they apply to what the layout decides too.
            let path = if group.name.is_empty() {
                root.clone()
            } else {
                root.join(&group.name)
            };
            let own = opts.for_dataset(&path)?;
            if own.is_some() {
                matched.insert(canonical(&path));
            }
            let o = own.as_ref().unwrap_or(opts);
            let kind = match (requested(o.layout)?, group.kind) {
                (LayoutKind::AUTO, LayoutKind::AUTO) => {
                    let at = At {
                        opts: o,
                        root_name: &folder_name(&scan.root),
                    };
                    first_claim(&scan.files, &at, None)
                }
                (LayoutKind::AUTO, k) => k,
                (k, _) => k,
            };
            let layout = layout_of(kind);
            // The set of present paths, for the layouts that pair files by name.
            if layout.pairs_by_name() {
                scan.present = scan.files.iter().copied().map(|e| e.rel.as_str()).collect();
            }
            let found = layout.collect(&mut scan, o);
            let (class_names, num_classes, palette) =
                (found.class_names, found.num_classes, found.palette);
            if scan.items.is_empty() && !group.keep_empty {
                continue;
            }
            let parts = layout.datasets(scan.items, class_names);
            for Part {
                items,
                suffix,
                class_names,
            } in parts
            {
                let ds = datasets.len();
                if suffix.is_empty() {
                    homes.push((group.name.clone(), ds));
                }
                root_items.extend(items.into_iter().map(|mut it| {
                    it.dataset = ds;
                    it
                }));
                datasets.push(DatasetInfo {
                    name: display(root, &group.name) + suffix,
                    path: path.clone(),
                    layout: kind,
                    class_names,
                    num_classes,
                    palette: palette.clone(),
                    options: own.clone(),
                });
            }
        }
        if datasets.len() == first {
            homes.push((String::new(), first));
            datasets.push(DatasetInfo {
                name: display(root, ""),
                path: root.clone(),
                layout: files::KIND,
                class_names: None,
                num_classes: None,
                palette: None,
                options: opts.for_dataset(root)?,
            });
        }
        let home = |rel: &str| -> usize {
            homes
                .iter()
                .filter(|(sub, _)| {
                    sub.is_empty() || rel == sub || rel.starts_with(&format!("{sub}/"))
                })
                .max_by_key(|(sub, _)| sub.len())
                .map(|(_, ds)| *ds)
                .unwrap_or(first)
        };
        let whole = RootScan {
            index,
            root: root.clone(),
            sub: String::new(),
            files: Vec::new(),
            present: HashSet::new(),
            listed: None,
            items: Vec::new(),
        };
        for e in entries.iter() {
            if let EntryKind::Problem(p) = &e.kind {
                let mut item = whole.item(e, split_of(&e.rel), Task::Problem(p.clone()));
                item.dataset = home(&e.rel);
                root_items.push(item);
            }
        }
        // A name that is not UTF-8 breaks Python tooling wherever it is in the dataset, even
        // outside the files the layout scans: reported for every such file.
        // (The claimed keys are gathered only when there is such a name: a clean tree of 100k
        // files does not copy 100k keys for nothing.)
        let odd: Vec<&&Entry> = walked.iter().filter(|e| e.non_utf8).collect();
        let claimed: HashSet<&[u8]> = if odd.is_empty() {
            HashSet::new()
        } else {
            root_items.iter().map(|it| it.key.as_slice()).collect()
        };
        let unclaimed: Vec<&&Entry> = odd
            .into_iter()
            .filter(|e| !claimed.contains(&[&[index as u8][..], &e.rel_bytes].concat()[..]))
            .collect();
        for e in unclaimed {
            let p = crate::checks::lg614_non_utf8_path::finding();
            let mut item = whole.item(e, split_of(&e.rel), Task::Problem(p));
            item.non_utf8 = false; // the problem is the finding; do not add it twice
            item.dataset = home(&e.rel);
            root_items.push(item);
        }
        items.extend(root_items.into_iter().filter(|it| {
            matches!(it.task, Task::Problem(_) | Task::DatasetProblem(_))
                || opts.include.is_empty()
                || opts.include.iter().any(|g| {
                    let rel = it
                        .display
                        .strip_prefix(&display(root, ""))
                        .unwrap_or(&it.display);
                    g.matches(rel.trim_start_matches('/'))
                })
        }));
    }
    // A config's class-weight file describes the config's dataset: not a single file's.
    let weights = opts.class_weights.as_ref().filter(|_| {
        !opts.class_weights_from_config || roots.iter().any(|r| r.path().is_none_or(|p| p.is_dir()))
    });
    if let Some(w) = weights {
        // Config paths are absolute; show them relative to the working directory when inside it.
        let shown = std::env::current_dir()
            .ok()
            .and_then(|cwd| w.strip_prefix(cwd).ok().map(|p| p.to_path_buf()))
            .unwrap_or_else(|| w.clone());
        // The weights belong to the dataset whose folder holds them (else the first).
        let owner = std::fs::canonicalize(w).ok().and_then(|w| {
            datasets
                .iter()
                .enumerate()
                .filter_map(|(i, d)| {
                    let p = std::fs::canonicalize(&d.path).ok()?;
                    (p.is_dir() && w.starts_with(&p)).then(|| (p.as_os_str().len(), i))
                })
                .max()
                .map(|(_, i)| i)
        });
        items.push(Item {
            source: Source::File(w.clone()),
            display: shown.to_string_lossy().into_owned(),
            key: [
                b"class-weights:".as_slice(),
                w.as_os_str().as_encoded_bytes(),
            ]
            .concat(),
            shard_key: None,
            split: String::new(),
            non_utf8: false,
            task: Task::ClassWeights,
            dataset: owner.unwrap_or(0),
        });
    }
    let paths: Vec<PathBuf> = roots.iter().filter_map(|r| r.path().cloned()).collect();
    unmatched_entries(&paths, opts, &matched, &datasets)?;
    items.sort_by(|a, b| a.display.cmp(&b.display).then(a.key.cmp(&b.key)));
    items.dedup_by(|a, b| a.key == b.key && a.display == b.display);
    let class_names = datasets.iter().find_map(|d| d.class_names.clone());
    Ok(Discovery {
        items,
        layouts: datasets.iter().map(|d| d.layout).collect(),
        class_names,
        datasets,
    })
}

fn canonical(p: &std::path::Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A `[[datasets]]` entry inside a scanned folder that names none of the datasets found there
/// is a usage error: its settings would silently not apply (`VOCdevkit` for a dataset found at
/// `VOCdevkit/VOC2012`). Entries outside the scanned folders are for other scans.
fn unmatched_entries(
    roots: &[PathBuf],
    opts: &ScanOptions,
    matched: &HashSet<PathBuf>,
    datasets: &[DatasetInfo],
) -> Result<(), ConfigError> {
    let scanned: Vec<PathBuf> = roots
        .iter()
        .filter(|r| r.is_dir())
        .map(|r| canonical(r))
        .collect();
    for (path, _) in &opts.dataset_overrides {
        let here = canonical(path);
        if matched.contains(&here) || !scanned.iter().any(|r| here.starts_with(r)) {
            continue;
        }
        let found: Vec<String> = datasets
            .iter()
            .map(|d| {
                format!(
                    "{} ({})",
                    crate::config::shown_path(&d.path),
                    d.layout.as_str()
                )
            })
            .collect();
        let config = opts
            .config_file
            .as_ref()
            .map(|c| format!(" in {}", crate::config::shown_path(c)))
            .unwrap_or_default();
        let why = if path.exists() {
            "matches no dataset"
        } else {
            "does not exist"
        };
        return Err(ConfigError::Invalid(format!(
            "the [[datasets]] entry path = '{}'{config} {why}; the datasets found are: {}",
            crate::config::shown_path(path),
            if found.is_empty() {
                "none".to_string()
            } else {
                found.join(", ")
            }
        )));
    }
    Ok(())
}

/// `e` with its relative path made relative to the folder `sub` (its bytes, the shard key,
/// stay relative to the scanned root).
fn reroot(e: &Entry, sub: &str) -> Entry {
    let mut out = e.clone();
    if !sub.is_empty() {
        if let Some(r) = e.rel.strip_prefix(sub).and_then(|r| r.strip_prefix('/')) {
            out.rel = r.to_string();
        }
    }
    out
}
