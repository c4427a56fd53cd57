//! Layouts: which files are labels, which image each mask belongs to, and which split each
//! file is in.
//!
//! Recognised (with `--layout auto`, the default, in this order):
//!
//! * **custom**: `--mask-glob` selects the masks, `--image-template` names each mask's image
//!   with `{stem}`, `{name}`, `{dir}`, `{subdir}` (the mask's directory below the glob's literal
//!   prefix) and `{split}`;
//! * **cityscapes**: `gtFine/<split>/<city>/<stem>_gtFine_labelTrainIds.png` (or `gtCoarse`),
//!   paired with `leftImg8bit/<split>/<city>/<stem>_leftImg8bit.png`. A stem without a
//!   `labelTrainIds` file is scanned through its `labelIds` file, so the trap is named (LG105);
//! * **voc**: `SegmentationClass/<stem>.png` with `JPEGImages/<stem>.jpg`, splits from
//!   `ImageSets/Segmentation/{train,val,test}.txt`;
//! * **paired**: a mask directory (`annotations`, `masks`, `labels`, `gt`, ...) beside an image
//!   directory (`images`, `imgs`, ...) with matching stems below them: ADE20K's
//!   `annotations/training` + `images/training`, or a plain `images/` + `masks/`;
//! * **imagefolder**: torchvision's `root/[split/]class/image.jpg`, recognised when the tree
//!   holds JPEG photos one or two levels down and nothing else matched;
//! * **files**: every mask, array and label table found, each on its own.
//!
//! Splits are named by the first path component that is a split name (`train`/`training`,
//! `val`/`valid`/`validation`, `test`/`testing`), or `all`.

use crate::config::{ConfigError, ScanOptions};
use crate::read::table::TableFormat;
use crate::walk::{self, Entry, EntryKind, Problem};
use labelguard_core::rules::{LG101, LG603, LG608, LG610, LG614};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LayoutKind {
    Auto,
    Cityscapes,
    Voc,
    Paired,
    ImageFolder,
    Files,
    Custom,
}

impl LayoutKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LayoutKind::Auto => "auto",
            LayoutKind::Cityscapes => "cityscapes",
            LayoutKind::Voc => "voc",
            LayoutKind::Paired => "paired",
            LayoutKind::ImageFolder => "imagefolder",
            LayoutKind::Files => "files",
            LayoutKind::Custom => "custom",
        }
    }
}

impl std::str::FromStr for LayoutKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
            "auto" => LayoutKind::Auto,
            "cityscapes" => LayoutKind::Cityscapes,
            "voc" | "pascalvoc" => LayoutKind::Voc,
            "paired" | "ade20k" | "imagesmasks" => LayoutKind::Paired,
            "imagefolder" => LayoutKind::ImageFolder,
            "files" => LayoutKind::Files,
            "custom" => LayoutKind::Custom,
            _ => {
                return Err(format!(
                    "unknown layout '{s}' (known: auto, cityscapes, voc, paired, imagefolder, files, custom)"
                ))
            }
        })
    }
}

/// What the pipeline does with one item.
#[derive(Clone, Debug)]
pub enum Task {
    /// A mask image or array; `image` is its paired image when the layout pairs them,
    /// `missing_image` the path that was expected when it does not exist.
    Mask {
        image: Option<PathBuf>,
        missing_image: Option<String>,
    },
    Array,
    Table(TableFormat),
    /// An ImageFolder sample: its class folder and that class's id.
    Image {
        class: String,
        class_index: i64,
    },
    /// The `--class-weights` file.
    ClassWeights,
    /// Something found while discovering, reported as is.
    Problem(Problem),
    /// A problem of the dataset as a whole (its class folders, its splits): reported with the
    /// dataset's findings, not as a file.
    DatasetProblem(Problem),
}

/// One unit of work: a file (or a discovery problem) with its report path and shard key.
#[derive(Clone, Debug)]
pub struct Item {
    pub path: PathBuf,
    /// What the report shows: the root as given joined with the relative path.
    pub display: String,
    /// Stable across machines: the root's index and the relative path's bytes.
    pub key: Vec<u8>,
    pub split: String,
    pub non_utf8: bool,
    pub task: Task,
    /// Index into `Discovery::datasets`.
    pub dataset: usize,
}

/// One dataset found under a scanned path: a detected layout's tree, a folder of loose label
/// files, or one label table. Each is scanned with its own settings and reported on its own.
#[derive(Clone, Debug)]
pub struct DatasetInfo {
    /// What the report shows: the root as given joined with the dataset's relative path.
    pub name: String,
    /// The dataset's path on disk (for per-dataset config entries).
    pub path: PathBuf,
    pub layout: LayoutKind,
    /// Class names discovered from the files (ImageFolder folders).
    pub class_names: Option<Vec<String>>,
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

pub(crate) const MASK_EXTS: &[&str] = &["png", "tif", "tiff"];
pub(crate) const ARRAY_EXTS: &[&str] = &["npy", "npz", "safetensors"];
/// torchvision's `IMG_EXTENSIONS`.
pub(crate) const IMAGE_EXTS: &[&str] = &[
    "jpg", "jpeg", "png", "ppm", "bmp", "pgm", "tif", "tiff", "webp",
];
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

fn stem_of(name: &str) -> &str {
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

pub(crate) struct RootScan<'a> {
    pub(crate) index: usize,
    /// The dataset's root: the scanned root, or a folder below it.
    pub(crate) root: PathBuf,
    /// The dataset root's path relative to the scanned root (`""` for the root itself).
    pub(crate) sub: String,
    /// Entries with `rel` relative to `root` (`rel_bytes` stay relative to the scanned root).
    pub(crate) files: Vec<&'a Entry>,
    pub(crate) present: HashSet<&'a str>,
    pub(crate) items: Vec<Item>,
}

impl<'a> RootScan<'a> {
    fn item(&self, e: &Entry, split: String, task: Task) -> Item {
        let mut key = vec![self.index as u8];
        key.extend_from_slice(&e.rel_bytes);
        Item {
            path: e.path.clone(),
            display: display(&self.root, &e.rel),
            key,
            split,
            non_utf8: e.non_utf8,
            task,
            dataset: 0,
        }
    }

    /// A problem that is not about one walked file (a missing mask, a folder). `rel` `"."`
    /// is the dataset itself.
    fn synthetic(&self, rel: &str, split: String, problem: Problem) -> Item {
        let mut key = vec![self.index as u8];
        let full = if self.sub.is_empty() {
            rel.to_string()
        } else {
            format!("{}/{rel}", self.sub)
        };
        key.extend_from_slice(full.as_bytes());
        let rel = if rel == "." { "" } else { rel };
        let task = if rel.is_empty() {
            Task::DatasetProblem(problem)
        } else {
            Task::Problem(problem)
        };
        Item {
            path: self.root.join(rel),
            display: display(&self.root, rel),
            key,
            split,
            non_utf8: false,
            task,
            dataset: 0,
        }
    }
}

/// Finds the items of every root. A root that does not exist is a usage error.
pub fn discover(roots: &[PathBuf], opts: &ScanOptions) -> Result<Discovery, ConfigError> {
    let mut items = Vec::new();
    let mut datasets: Vec<DatasetInfo> = Vec::new();
    for (index, root) in roots.iter().enumerate() {
        let meta = std::fs::metadata(root)
            .map_err(|e| ConfigError::Invalid(format!("{}: {e}", root.display())))?;
        if !meta.is_dir() {
            let rel = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let task = match TableFormat::from_path(root) {
                Some(f) => Task::Table(f),
                None if ARRAY_EXTS.contains(&ext_of(&rel).as_str()) => Task::Array,
                None => Task::Mask {
                    image: None,
                    missing_image: None,
                },
            };
            let mut key = vec![index as u8];
            key.extend_from_slice(rel.as_bytes());
            items.push(Item {
                path: root.clone(),
                display: root.to_string_lossy().into_owned(),
                key,
                split: split_of(&root.to_string_lossy()),
                non_utf8: root.to_str().is_none(),
                task,
                dataset: datasets.len(),
            });
            datasets.push(DatasetInfo {
                name: root.to_string_lossy().into_owned(),
                path: root.clone(),
                layout: LayoutKind::Files,
                class_names: None,
            });
            continue;
        }
        // Include globs select label files after pairing, so that images stay visible.
        let entries = walk::walk(root, &[], &opts.exclude);
        let walked: Vec<&Entry> = entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::File { .. }))
            .collect();
        let first = datasets.len();
        let mut root_items: Vec<Item> = Vec::new();
        // (dataset's relative path, dataset index): where the walk's problems belong.
        let mut homes: Vec<(String, usize)> = Vec::new();
        for group in crate::datasets::partition(&walked, opts) {
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
                present: own.iter().map(|e| e.rel.as_str()).collect(),
                files: own,
                items: Vec::new(),
            };
            let kind = match group.kind {
                LayoutKind::Auto => detect(&scan, opts),
                k => k,
            };
            let mut class_names = None;
            match kind {
                LayoutKind::Custom => custom(&mut scan, opts),
                LayoutKind::Cityscapes => cityscapes(&mut scan, opts),
                LayoutKind::Voc => voc(&mut scan),
                LayoutKind::Paired => paired(&mut scan, opts),
                LayoutKind::ImageFolder => class_names = Some(image_folder(&mut scan, opts)),
                LayoutKind::Files | LayoutKind::Auto => files(&mut scan),
            }
            if scan.items.is_empty() && !group.keep_empty {
                continue;
            }
            let ds = datasets.len();
            homes.push((group.name.clone(), ds));
            root_items.extend(scan.items.into_iter().map(|mut it| {
                it.dataset = ds;
                it
            }));
            datasets.push(DatasetInfo {
                name: display(root, &group.name),
                path: if group.name.is_empty() {
                    root.clone()
                } else {
                    root.join(&group.name)
                },
                layout: kind,
                class_names,
            });
        }
        if datasets.len() == first {
            homes.push((String::new(), first));
            datasets.push(DatasetInfo {
                name: display(root, ""),
                path: root.clone(),
                layout: LayoutKind::Files,
                class_names: None,
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
            items: Vec::new(),
        };
        for e in &entries {
            if let EntryKind::Problem(p) = &e.kind {
                let mut item = whole.item(e, split_of(&e.rel), Task::Problem(p.clone()));
                item.dataset = home(&e.rel);
                root_items.push(item);
            }
        }
        // A name that is not UTF-8 breaks Python tooling wherever it is in the dataset, even
        // outside the files the layout scans: reported for every such file.
        let claimed: HashSet<Vec<u8>> = root_items.iter().map(|it| it.key.clone()).collect();
        for e in walked.iter().filter(|e| {
            e.non_utf8 && !claimed.contains(&[&[index as u8][..], &e.rel_bytes].concat())
        }) {
            let p = Problem::new(&LG614, "the file name is not valid UTF-8 (shown with U+FFFD)")
                .hint("Python sees it with surrogate escapes; writing it to JSON, CSV or a log raises UnicodeEncodeError")
                .fix("rename the file to UTF-8, e.g. convmv -f latin1 -t utf8 --notest");
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
    let weights = opts
        .class_weights
        .as_ref()
        .filter(|_| !opts.class_weights_from_config || roots.iter().any(|r| r.is_dir()));
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
            path: w.clone(),
            display: shown.to_string_lossy().into_owned(),
            key: [
                b"class-weights:".as_slice(),
                w.as_os_str().as_encoded_bytes(),
            ]
            .concat(),
            split: String::new(),
            non_utf8: false,
            task: Task::ClassWeights,
            dataset: owner.unwrap_or(0),
        });
    }
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

pub(crate) fn components(rel: &str) -> Vec<&str> {
    rel.split('/').collect()
}

fn detect(scan: &RootScan<'_>, opts: &ScanOptions) -> LayoutKind {
    if opts.mask_glob.is_some() {
        return LayoutKind::Custom;
    }
    let has_comp = |name: &str| {
        scan.files
            .iter()
            .any(|e| components(&e.rel).iter().rev().skip(1).any(|c| *c == name))
    };
    if scan.files.iter().any(|e| {
        let c = components(&e.rel);
        c.iter().any(|x| *x == "gtFine" || *x == "gtCoarse")
            && (e.rel.ends_with("_labelTrainIds.png") || e.rel.ends_with("_labelIds.png"))
    }) {
        return LayoutKind::Cityscapes;
    }
    if has_comp("SegmentationClass") {
        return LayoutKind::Voc;
    }
    if !paired_bases(scan.files.iter().map(|e| e.rel.as_str())).is_empty() {
        return LayoutKind::Paired;
    }
    if looks_like_image_folder(&scan.files) {
        return LayoutKind::ImageFolder;
    }
    LayoutKind::Files
}

fn files(scan: &mut RootScan<'_>) {
    let files = scan.files.clone();
    for e in files {
        let name = e.rel.rsplit('/').next().unwrap_or(&e.rel);
        let ext = ext_of(name);
        let task = if MASK_EXTS.contains(&ext.as_str()) {
            Task::Mask {
                image: None,
                missing_image: None,
            }
        } else if ARRAY_EXTS.contains(&ext.as_str()) {
            Task::Array
        } else if let Some(f) = TableFormat::from_path(Path::new(name)) {
            Task::Table(f)
        } else {
            continue;
        };
        let item = scan.item(e, split_of(&e.rel), task);
        scan.items.push(item);
    }
}

/// Where to look for images that no mask claimed: directory prefixes, and which files there
/// are images.
type Orphans<'a> = Option<(Vec<String>, &'a dyn Fn(&str) -> bool)>;

/// Pairs masks with images: `expected(mask_rel) -> candidate image rels`; orphan images are
/// those under the `orphan_images` prefixes that no mask claimed.
fn pair(
    scan: &mut RootScan<'_>,
    masks: Vec<(&Entry, String)>,
    expected: impl Fn(&Entry) -> Vec<String>,
    orphan_images: Orphans<'_>,
) {
    let mut claimed: HashSet<String> = HashSet::new();
    for (e, split) in masks {
        let candidates = expected(e);
        let found = candidates
            .iter()
            .find(|c| scan.present.contains(c.as_str()));
        let task = match found {
            Some(rel) => {
                claimed.insert(rel.clone());
                Task::Mask {
                    image: Some(scan.root.join(rel)),
                    missing_image: None,
                }
            }
            None => Task::Mask {
                image: None,
                missing_image: candidates.first().map(|c| display(&scan.root, c)),
            },
        };
        let item = scan.item(e, split, task);
        scan.items.push(item);
    }
    if let Some((prefixes, is_image)) = orphan_images {
        let orphans: Vec<&Entry> = scan
            .files
            .iter()
            .filter(|e| {
                prefixes.iter().any(|p| e.rel.starts_with(&format!("{p}/")))
                    && is_image(&e.rel)
                    && !claimed.contains(&e.rel)
            })
            .copied()
            .collect();
        for e in orphans {
            let p = Problem::new(&LG608, "image without a mask")
                .hint("a Dataset that lists the images raises FileNotFoundError for the mask; one that zips two sorted lists pairs every later image with the wrong mask")
                .fix("restore the mask or remove the image");
            let item = scan.item(e, split_of(&e.rel), Task::Problem(p));
            scan.items.push(item);
        }
    }
}

fn cityscapes(scan: &mut RootScan<'_>, opts: &ScanOptions) {
    // (base, kind, subdir, stem) -> which label files exist.
    struct Found<'e> {
        train: Option<&'e Entry>,
        ids: Option<&'e Entry>,
        other: Option<&'e Entry>,
    }
    let mut groups: BTreeMap<(String, String, String, String), Found<'_>> = BTreeMap::new();
    let forced = opts.mask_suffix.clone();
    let mut bases: BTreeSet<String> = BTreeSet::new();
    let mut strays: Vec<&Entry> = Vec::new();
    for e in &scan.files {
        let comps = components(&e.rel);
        let Some(pos) = comps
            .iter()
            .position(|c| *c == "gtFine" || *c == "gtCoarse")
        else {
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
        } else if MASK_EXTS.contains(&ext_of(name).as_str())
            || ARRAY_EXTS.contains(&ext_of(name).as_str())
        {
            // A file in the label tree that follows no Cityscapes name: scanned on its own.
            strays.push(*e);
            continue;
        } else {
            continue;
        };
        bases.insert(base.clone());
        let g = groups
            .entry((base, kind.to_string(), subdir, stem.to_string()))
            .or_insert(Found {
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
        let task = if ARRAY_EXTS.contains(&ext_of(&e.rel).as_str()) {
            Task::Array
        } else {
            Task::Mask {
                image: None,
                missing_image: None,
            }
        };
        let item = scan.item(e, split_of(&e.rel), task);
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

fn voc(scan: &mut RootScan<'_>) {
    let mut bases: BTreeSet<String> = BTreeSet::new();
    for e in &scan.files {
        let comps = components(&e.rel);
        if comps.len() >= 2 && comps[comps.len() - 2] == "SegmentationClass" {
            bases.insert(comps[..comps.len() - 2].join("/"));
        }
    }
    let join = |base: &str, rest: &str| {
        if base.is_empty() {
            rest.to_string()
        } else {
            format!("{base}/{rest}")
        }
    };
    for base in bases {
        // Splits from the ImageSets lists; a stem in train.txt and trainval.txt is train.
        let mut split_of_stem: HashMap<String, String> = HashMap::new();
        let mut listed: Vec<(String, String)> = Vec::new();
        for split in ["test", "trainval", "val", "train"] {
            let list = scan
                .root
                .join(join(&base, &format!("ImageSets/Segmentation/{split}.txt")));
            if let Ok(text) = read_small(&list) {
                for stem in text.split_whitespace() {
                    let s = if split == "trainval" { "train" } else { split };
                    split_of_stem.insert(stem.to_string(), s.to_string());
                    if split != "test" && split != "trainval" {
                        listed.push((stem.to_string(), split.to_string()));
                    }
                }
            }
        }
        let prefix = join(&base, "SegmentationClass/");
        let masks: Vec<(&Entry, String)> = scan
            .files
            .iter()
            .filter(|e| {
                e.rel.starts_with(&prefix)
                    && !e.rel[prefix.len()..].contains('/')
                    && MASK_EXTS.contains(&ext_of(&e.rel).as_str())
            })
            .map(|e| {
                let stem = stem_of(&e.rel[prefix.len()..]);
                (
                    *e,
                    split_of_stem
                        .get(stem)
                        .cloned()
                        .unwrap_or_else(|| "all".into()),
                )
            })
            .collect();
        let have: HashSet<String> = masks
            .iter()
            .map(|(e, _)| stem_of(&e.rel[prefix.len()..]).to_string())
            .collect();
        let base2 = base.clone();
        pair(
            scan,
            masks,
            move |e: &Entry| {
                let stem = stem_of(e.rel.rsplit('/').next().unwrap_or(""));
                vec![
                    join(&base2, &format!("JPEGImages/{stem}.jpg")),
                    join(&base2, &format!("JPEGImages/{stem}.jpeg")),
                    join(&base2, &format!("JPEGImages/{stem}.png")),
                ]
            },
            // JPEGImages also holds the detection images, which have no masks: no orphans.
            None,
        );
        for (stem, split) in listed {
            if !have.contains(&stem) {
                let rel = format!("{prefix}{stem}.png");
                let p = Problem::new(
                    &LG608,
                    format!(
                        "listed in ImageSets/Segmentation/{split}.txt but the mask does not exist"
                    ),
                )
                .hint("the VOC loader opens every listed stem and raises FileNotFoundError")
                .fix("restore the mask or remove the stem from the list");
                let item = scan.synthetic(&rel, split, p);
                scan.items.push(item);
            }
        }
    }
}

/// (base, mask dir, image dir) triples: a mask directory beside an image directory.
pub(crate) fn paired_bases<'e>(
    rels: impl IntoIterator<Item = &'e str>,
) -> Vec<(String, String, String)> {
    let mut dirs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for rel in rels {
        let comps = components(rel);
        for i in 0..comps.len().saturating_sub(1) {
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

fn paired(scan: &mut RootScan<'_>, opts: &ScanOptions) {
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
                    && (MASK_EXTS.contains(&ext_of(&e.rel).as_str())
                        || ARRAY_EXTS.contains(&ext_of(&e.rel).as_str()))
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
                .flat_map(|s| IMAGE_EXTS.iter().map(move |x| (s, x)))
                .map(|(s, x)| join(&b2, &format!("{dir}/{s}.{x}")))
                .collect()
        };
        let image_prefix = vec![join(&base, &image_dir)];
        pair(
            scan,
            masks,
            expected,
            Some((image_prefix, &|r: &str| {
                IMAGE_EXTS.contains(&ext_of(r).as_str())
            })),
        );
    }
}

/// Expands an image template for a mask.
pub fn expand_template(
    template: &str,
    mask_rel: &str,
    literal_prefix: &str,
    suffix: Option<&str>,
) -> String {
    let (dir, name) = mask_rel.rsplit_once('/').unwrap_or(("", mask_rel));
    let below = if literal_prefix.is_empty() {
        dir
    } else {
        dir.strip_prefix(literal_prefix)
            .map(|d| d.trim_start_matches('/'))
            .unwrap_or(dir)
    };
    let mut stem = stem_of(name);
    if let Some(s) = suffix {
        stem = name
            .strip_suffix(s)
            .or_else(|| stem.strip_suffix(s))
            .unwrap_or(stem);
    }
    let out = template
        .replace("{stem}", stem)
        .replace("{name}", name)
        .replace("{dir}", dir)
        .replace("{subdir}", below)
        .replace("{split}", &split_of(mask_rel));
    // `a//b` from an empty {subdir}: normalise.
    let parts: Vec<&str> = out
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    parts.join("/")
}

fn custom(scan: &mut RootScan<'_>, opts: &ScanOptions) {
    let Some(glob) = &opts.mask_glob else {
        return files(scan);
    };
    let prefix = glob.literal_prefix();
    let masks: Vec<(&Entry, String)> = scan
        .files
        .iter()
        .filter(|e| glob.matches(&e.rel))
        .map(|e| (*e, split_of(&e.rel)))
        .collect();
    match &opts.image_template {
        Some(t) => {
            let suffix = opts.mask_suffix.clone();
            let t = t.clone();
            pair(
                scan,
                masks,
                move |e: &Entry| vec![expand_template(&t, &e.rel, &prefix, suffix.as_deref())],
                None,
            )
        }
        None => {
            for (e, split) in masks {
                let task = if ARRAY_EXTS.contains(&ext_of(&e.rel).as_str()) {
                    Task::Array
                } else {
                    Task::Mask {
                        image: None,
                        missing_image: None,
                    }
                };
                let item = scan.item(e, split, task);
                scan.items.push(item);
            }
        }
    }
}

fn read_small(path: &Path) -> std::io::Result<String> {
    let (file, len) =
        crate::read::open_regular(path).map_err(|p| std::io::Error::other(p.message))?;
    if len > 64 << 20 {
        return Err(std::io::Error::other("too large"));
    }
    std::io::read_to_string(file)
}

pub(crate) fn is_split_name(name: &str) -> bool {
    split_of(name) != "all"
}

/// JPEG photos one level below the root (`class/x.jpg`) or two (`split/class/x.jpg`).
pub(crate) fn looks_like_image_folder(files: &[&Entry]) -> bool {
    let mut jpegs = 0usize;
    let mut classes: BTreeSet<String> = BTreeSet::new();
    for e in files {
        let comps = components(&e.rel);
        let ext = ext_of(&e.rel);
        if ARRAY_EXTS.contains(&ext.as_str()) || TableFormat::from_path(Path::new(&e.rel)).is_some()
        {
            return false;
        }
        if !IMAGE_EXTS.contains(&ext.as_str()) {
            continue;
        }
        if matches!(ext.as_str(), "jpg" | "jpeg") {
            jpegs += 1;
        }
        match comps.len() {
            2 => {
                classes.insert(comps[0].to_string());
            }
            n if n >= 3 && is_split_name(comps[0]) => {
                classes.insert(comps[1].to_string());
            }
            _ => return false,
        }
    }
    jpegs > 0 && classes.len() >= 2
}

/// torchvision's `ImageFolder`: each split root's sub-folders, sorted by name, are the classes
/// 0..K-1 of that split. Returns the union of class names (sorted), the ids the histogram uses.
fn image_folder(scan: &mut RootScan<'_>, opts: &ScanOptions) -> Vec<String> {
    // Split roots: top-level split folders if there are any, else the root itself.
    let top = list_dirs(&scan.root);
    let split_roots: Vec<(String, String)> = if top.iter().any(|d| is_split_name(d)) {
        top.iter()
            .filter(|d| is_split_name(d))
            .map(|d| (d.clone(), split_of(d)))
            .collect()
    } else {
        vec![(String::new(), "all".into())]
    };
    let mut per_split: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (dir, split) in &split_roots {
        let classes = list_dirs(&scan.root.join(dir));
        let class_ids: HashMap<&str, i64> = classes
            .iter()
            .enumerate()
            .map(|(i, c)| (c.as_str(), i as i64))
            .collect();
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let files = scan.files.clone();
        for e in files {
            let Some(below) = e.rel.strip_prefix(&prefix) else {
                continue;
            };
            let Some((class, _)) = below.split_once('/') else {
                continue;
            };
            let Some(&id) = class_ids.get(class) else {
                continue;
            };
            if !IMAGE_EXTS.contains(&ext_of(&e.rel).as_str()) {
                continue;
            }
            *counts.entry(class).or_insert(0) += 1;
            let item = scan.item(
                e,
                split.clone(),
                Task::Image {
                    class: class.to_string(),
                    class_index: id,
                },
            );
            scan.items.push(item);
        }
        for c in &classes {
            if !counts.contains_key(c.as_str()) {
                let rel = format!("{prefix}{c}");
                let p = Problem::new(&LG603, "class folder without images")
                    .hint("torchvision's ImageFolder raises FileNotFoundError: Found no valid file for the classes ...; with allow_empty=True the class gets an id but no samples")
                    .fix("add images, or remove the folder (which renumbers the later classes)");
                let item = scan.synthetic(&rel, split.clone(), p);
                scan.items.push(item);
            }
        }
        if let Some(c) = opts.num_classes {
            if classes.len() > c as usize {
                let extra: Vec<String> = classes[c as usize..]
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect();
                let p = Problem::new(
                    &LG101,
                    format!(
                        "{} class folders but num_classes is {c}: {} get ids {}..{}",
                        classes.len(),
                        extra.join(", "),
                        c,
                        classes.len() - 1
                    ),
                )
                .hint("ImageFolder numbers every sub-folder, including stray ones (a 'misc', '.ipynb_checkpoints' or an extra class)")
                .fix(format!("remove the extra folders, or give the model {} outputs", classes.len()));
                let item = scan.synthetic(if dir.is_empty() { "." } else { dir }, split.clone(), p);
                scan.items.push(item);
            }
        }
        per_split.insert(split.clone(), classes);
    }
    let union: BTreeSet<String> = per_split.values().flatten().cloned().collect();
    if per_split.len() > 1 {
        let differing: Vec<String> = per_split
            .iter()
            .filter(|(_, c)| c.len() != union.len())
            .map(|(s, c)| {
                let missing: Vec<&str> = union
                    .iter()
                    .filter(|u| !c.contains(u))
                    .map(|s| s.as_str())
                    .collect();
                format!("{s} lacks {}", missing.join(", "))
            })
            .collect();
        if !differing.is_empty() {
            let p = Problem::new(
                &LG610,
                format!("the splits have different class folders ({}): ImageFolder numbers each split's folders on its own, so the ids of later classes differ between splits", differing.join("; ")),
            )
            .hint("the same id then means different classes in train and val: the labels are silently wrong")
            .fix("create the missing folders, or build every split with the train split's class_to_idx");
            let item = scan.synthetic(".", "all".into(), p);
            scan.items.push(item);
        }
    }
    union.into_iter().collect()
}

fn list_dirs(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            std::fs::metadata(e.path())
                .map(|m| m.is_dir())
                .unwrap_or(false)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(root: &Path, rels: &[&str]) {
        for r in rels {
            let p = root.join(r);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"x").unwrap();
        }
    }

    fn summary(d: &Discovery) -> Vec<String> {
        d.items
            .iter()
            .map(|i| {
                let t = match &i.task {
                    Task::Mask { image: Some(_), .. } => "mask+image".to_string(),
                    Task::Mask { image: None, .. } => "mask".to_string(),
                    Task::Array => "array".into(),
                    Task::Table(_) => "table".into(),
                    Task::Image { class_index, .. } => format!("image:{class_index}"),
                    Task::ClassWeights => "weights".into(),
                    Task::Problem(p) => p.rule.code.to_string(),
                    Task::DatasetProblem(p) => format!("dataset {}", p.rule.code),
                };
                let rel = i
                    .display
                    .split_once("/r/")
                    .map(|x| x.1)
                    .unwrap_or(&i.display)
                    .to_string();
                format!("{rel} {} {t}", i.split)
            })
            .collect()
    }

    fn run(rels: &[&str], opts: &ScanOptions) -> (Discovery, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("r");
        touch(&root, rels);
        let d = discover(std::slice::from_ref(&root), opts).unwrap();
        let s = summary(&d);
        (d, s)
    }

    #[test]
    fn cityscapes_pairs_train_ids_and_falls_back_to_label_ids() {
        let (d, s) = run(
            &[
                "gtFine/train/aachen/a_000001_gtFine_labelTrainIds.png",
                "gtFine/train/aachen/a_000001_gtFine_labelIds.png",
                "gtFine/train/aachen/a_000001_gtFine_color.png",
                "gtFine/train/aachen/broken.png",
                "gtFine/val/bonn/b_000002_gtFine_labelIds.png",
                "leftImg8bit/train/aachen/a_000001_leftImg8bit.png",
                "leftImg8bit/val/bonn/b_000003_leftImg8bit.png",
                "README",
            ],
            &ScanOptions::default(),
        );
        assert_eq!(d.layouts, vec![LayoutKind::Cityscapes]);
        assert!(!s.iter().any(|x| x.contains("LG614")));
        assert_eq!(
            s,
            vec![
                "gtFine/train/aachen/a_000001_gtFine_labelTrainIds.png train mask+image",
                "gtFine/train/aachen/broken.png train mask",
                "gtFine/val/bonn/b_000002_gtFine_labelIds.png val mask",
                "leftImg8bit/val/bonn/b_000003_leftImg8bit.png val LG608",
            ]
        );
    }

    #[test]
    fn non_utf8_names_are_reported_outside_the_layout_too() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("r");
        touch(
            &root,
            &[
                "gtFine/train/a/x_gtFine_labelTrainIds.png",
                "leftImg8bit/train/a/x_leftImg8bit.png",
            ],
        );
        std::fs::write(
            root.join(std::ffi::OsStr::from_bytes(b"notes\xff.txt")),
            b"x",
        )
        .unwrap();
        let d = discover(std::slice::from_ref(&root), &ScanOptions::default()).unwrap();
        assert!(
            summary(&d).contains(&"notes\u{fffd}.txt all LG614".to_string()),
            "{:?}",
            summary(&d)
        );
    }

    #[test]
    fn voc_and_paired_layouts_pair_by_stem() {
        let (d, s) = run(
            &[
                "VOC2012/SegmentationClass/2007_1.png",
                "VOC2012/SegmentationClass/2007_2.png",
                "VOC2012/JPEGImages/2007_1.jpg",
                "VOC2012/JPEGImages/2008_9.jpg",
            ],
            &ScanOptions::default(),
        );
        assert_eq!(d.layouts, vec![LayoutKind::Voc]);
        assert_eq!(
            s,
            vec![
                "VOC2012/SegmentationClass/2007_1.png all mask+image",
                "VOC2012/SegmentationClass/2007_2.png all mask"
            ]
        );
        let (d, s) = run(
            &[
                "annotations/training/x.png",
                "images/training/x.jpg",
                "images/training/y.jpg",
                "annotations/validation/z_mask.png",
                "images/validation/z.jpg",
            ],
            &ScanOptions::default(),
        );
        assert_eq!(d.layouts, vec![LayoutKind::Paired]);
        assert_eq!(
            s,
            vec![
                "annotations/training/x.png train mask+image",
                "annotations/validation/z_mask.png val mask+image",
                "images/training/y.jpg train LG608",
            ]
        );
    }

    #[test]
    fn image_folder_numbers_each_split_and_flags_differences() {
        let opts = ScanOptions {
            num_classes: Some(2),
            ..ScanOptions::default()
        };
        let (d, s) = run(
            &[
                "train/cat/1.jpg",
                "train/dog/2.jpg",
                "train/eel/3.jpg",
                "val/cat/4.jpg",
                "val/eel/5.jpg",
            ],
            &opts,
        );
        assert_eq!(d.layouts, vec![LayoutKind::ImageFolder]);
        assert_eq!(d.class_names.as_deref().unwrap(), ["cat", "dog", "eel"]);
        assert!(
            s.contains(&"train/eel/3.jpg train image:2".to_string()),
            "{s:?}"
        );
        assert!(
            s.contains(&"val/eel/5.jpg val image:1".to_string()),
            "{s:?}"
        );
        assert!(
            s.iter().any(|x| x.starts_with("train train LG101")),
            "{s:?}"
        );
        assert!(s.iter().any(|x| x.ends_with("LG610")), "{s:?}");
    }

    #[test]
    fn files_and_custom_templates() {
        let (d, s) = run(
            &["a/x.npy", "b.csv", "c.png", "notes.txt"],
            &ScanOptions::default(),
        );
        // Loose files in a folder of their own, a table and loose files at the root: three
        // datasets, each scanned on its own.
        assert_eq!(d.layouts, vec![LayoutKind::Files; 3]);
        let names: Vec<&str> = d
            .datasets
            .iter()
            .map(|x| x.name.rsplit_once("/r").unwrap().1)
            .collect();
        assert_eq!(names, ["", "/a", "/b.csv"]);
        assert_eq!(
            s,
            vec!["a/x.npy all array", "b.csv all table", "c.png all mask"]
        );
        assert_eq!(
            expand_template(
                "img/{subdir}/{stem}.jpg",
                "gt/train/a_m.png",
                "gt",
                Some("_m")
            ),
            "img/train/a.jpg"
        );
        let opts = ScanOptions {
            mask_glob: Some(crate::glob::Glob::new("gt/**/*_m.png").unwrap()),
            image_template: Some("img/{subdir}/{stem}.jpg".into()),
            mask_suffix: Some("_m".into()),
            ..ScanOptions::default()
        };
        let (_, s) = run(
            &["gt/train/a_m.png", "img/train/a.jpg", "gt/train/b_m.png"],
            &opts,
        );
        assert_eq!(
            s,
            vec![
                "gt/train/a_m.png train mask+image",
                "gt/train/b_m.png train mask"
            ]
        );
    }
}
