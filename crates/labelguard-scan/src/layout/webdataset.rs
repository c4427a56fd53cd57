//! The **webdataset** layout: samples as WebDataset groups them. A sample is a run of
//! consecutive files that share a key, the path up to the first dot of the file name
//! (`000123.jpg`, `000123.seg.png`, `000123.cls`); its parts are named by the rest of the
//! name, lower-cased (`jpg`, `seg.png`, `cls`). The same grouping serves a directory the
//! shards were extracted into (walked in byte order), the members of tar shards and the
//! objects under a bucket prefix, so that a dataset gives the same findings in all three.
//!
//! The facts are those of `webdataset` 1.0.2 (`webdataset/tariterators.py`:
//! `base_plus_ext`, `group_by_keys`, the `skip_meta` of `tar_file_iterator`; and
//! `webdataset/autodecode.py`: the extensions `basichandlers` decodes as integers).
//!
//! What each part is checked as:
//! * masks: a PNG or TIFF part named as a mask (`seg.png`, `mask.png`, `label.tif`, ...), or a
//!   plain `png`/`tif`/`tiff` beside a `jpg`/`jpeg`/`webp` photo; paired with the sample's
//!   image for LG607;
//! * label arrays: `npy`/`npz` parts named as labels (`seg.npy`), or a plain `npy`/`npz`
//!   beside an image;
//! * class labels: `cls`, `cls2`, `index`, `inx` (text integers: WebDataset decodes them with
//!   `int(data)`), and `class`, `label` (the same by convention);
//! * `json`/`jsn`: its `label`, `class`, `class_id`, `category_id` or `cls` field.
//!
//! Every other part (images, text, audio, ...) is the sample's data. LG616 flags a sample
//! with labels and no data, a key in two runs, and two parts with one extension.

use super::declare::{whole, At, Found, Layout, Scope, Tree};
use super::item::{Part, RootScan, Task};
use super::paths::split_of;
use crate::checks::lg616_incomplete_sample as lg616;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_core::Finding;
use labelguard_formats::formats::{self, Holds};
use labelguard_formats::source::Source;
use labelguard_formats::walk::Entry;
use std::collections::HashMap;

/// WebDataset's `base_plus_ext`: the regex `^((?:.*/|)[^.]+)[.]([^/]*)$` as a split of `name`
/// into (key, extension), or `None` for a name WebDataset skips (a file name without a dot).
/// The key runs to the first dot of the file name; for a name that starts with a dot
/// (`dir/.x.png`), the regex backs up over the folder (`dir/`, `x.png`) when the folder's own
/// name has no dot, else it does not match.
pub(crate) fn key_and_ext(name: &str) -> Option<(&str, &str)> {
    let slash = name.rfind('/').map_or(0, |i| i + 1);
    let dot = slash + name[slash..].find('.')?;
    if dot > slash {
        return Some((&name[..dot], &name[dot + 1..]));
    }
    let folder = name[..slash].strip_suffix('/')?;
    let folder_name = folder.rsplit('/').next().unwrap_or(folder);
    (!folder_name.contains('.')).then(|| (&name[..slash], &name[dot + 1..]))
}

/// The metadata files WebDataset's `tar_file_iterator` skips: a first path component
/// `__...__` (its `skip_meta` regex `__[^/]*__($|/)`).
pub(crate) fn is_meta(name: &str) -> bool {
    let first = name.split('/').next().unwrap_or(name);
    first.len() >= 4 && first.starts_with("__") && first.ends_with("__")
}

/// One sample: its key and its parts (the lower-cased extension and the file), in order.
pub(crate) struct Sample<'e> {
    pub(crate) key: &'e str,
    pub(crate) parts: Vec<(String, &'e Entry)>,
}

/// The samples of `files` in order, as `group_by_keys` builds them: a new sample starts where
/// the key changes, and at each new shard (the EOF marker `tar_file_expander` yields).
pub(crate) fn samples<'e>(files: &[&'e Entry]) -> Vec<Sample<'e>> {
    let mut out: Vec<Sample<'e>> = Vec::new();
    let mut stream: Option<&std::path::Path> = None;
    for e in files {
        if is_meta(&e.rel) {
            continue;
        }
        let Some((key, ext)) = key_and_ext(&e.rel) else {
            continue;
        };
        let here = shard_of(e);
        let same = out.last().is_some_and(|s| s.key == key) && here == stream;
        stream = here;
        if !same {
            out.push(Sample {
                key,
                parts: Vec::new(),
            });
        }
        if let Some(s) = out.last_mut() {
            s.parts.push((ext.to_lowercase(), *e));
        }
    }
    out
}

/// The shard an entry is a member of; `None` for a file on its own (a walked file, an
/// object), whose samples run on across files.
fn shard_of(e: &Entry) -> Option<&std::path::Path> {
    match &e.source {
        Source::Slice { file, .. } => Some(file.as_path()),
        _ => None,
    }
}

/// What a part is, by its extension and the sample's other parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Mask,
    LabelArray,
    ClassText,
    Json,
    /// The sample's image: what a mask is paired with.
    Image,
    /// Any other data (text, audio, feature arrays).
    Data,
}

/// Extensions' first components that name a label (`seg.png`, `mask.npy`).
const LABEL_NAMES: &[&str] = &[
    "seg",
    "segmentation",
    "semseg",
    "mask",
    "masks",
    "label",
    "labels",
    "gt",
    "target",
    "annotation",
];
/// The photos a plain `.png` beside them is the mask of (the PNG is then not the image).
const PHOTO_EXTS: &[&str] = &["jpg", "jpeg", "webp"];

fn last(ext: &str) -> &str {
    ext.rsplit('.').next().unwrap_or(ext)
}

fn named_label(ext: &str) -> bool {
    ext.split_once('.')
        .is_some_and(|(first, _)| LABEL_NAMES.contains(&first))
}

fn roles(parts: &[(String, &Entry)]) -> Vec<Role> {
    let photo = parts.iter().any(|(x, _)| PHOTO_EXTS.contains(&x.as_str()));
    let plain_image = parts
        .iter()
        .any(|(x, e)| !x.contains('.') && formats::holds(&e.rel, Holds::Image));
    parts
        .iter()
        .map(|(ext, e)| {
            let (ext, name, plain) = (ext.as_str(), e.rel.as_str(), !ext.contains('.'));
            if matches!(last(ext), "json" | "jsn") {
                Role::Json
            } else if formats::holds(name, Holds::ClassLabel) {
                Role::ClassText
            } else if formats::holds(name, Holds::Mask) && (named_label(ext) || (photo && plain)) {
                Role::Mask
            } else if formats::holds(name, Holds::Array)
                && (named_label(ext) || (plain_image && plain))
            {
                Role::LabelArray
            } else if formats::holds(name, Holds::Image) && !named_label(ext) {
                Role::Image
            } else {
                Role::Data
            }
        })
        .collect()
}

/// Whether the files are keyed samples: at least two samples of several parts, one of them
/// a label (a `.json` beside a photo is not evidence: LabelMe writes `x.jpg` + `x.json`), and
/// such samples at least half of all.
pub(crate) fn looks_like_webdataset(files: &[&Entry]) -> bool {
    let all = samples(files);
    let keyed = all
        .iter()
        .filter(|s| {
            s.parts.len() >= 2
                && roles(&s.parts)
                    .iter()
                    .any(|r| matches!(r, Role::Mask | Role::LabelArray | Role::ClassText))
        })
        .count();
    keyed >= 2 && keyed * 2 >= all.len()
}

/// One item per label part (and per part an LG616 finding is about).
pub(crate) fn collect(scan: &mut RootScan<'_>) {
    let files = scan.files.clone();
    let all = samples(&files);
    // key -> the shard and the first part (as the report shows it) of its first run.
    let mut first_run: HashMap<&str, (Option<&std::path::Path>, String)> = HashMap::new();
    for sample in &all {
        let roles = roles(&sample.parts);
        let mut problems: Vec<Vec<Finding>> = vec![Vec::new(); sample.parts.len()];
        let first = sample.parts[0].1;
        let here = shard_of(first);
        match first_run.get(sample.key) {
            Some((shard, at)) => {
                problems[0].push(lg616::key_in_two_runs(sample.key, at, *shard != here))
            }
            None => {
                first_run.insert(sample.key, (here, scan.display_of(first)));
            }
        }
        for (i, (ext, _)) in sample.parts.iter().enumerate() {
            if sample.parts[..i].iter().any(|(x, _)| x == ext) {
                problems[i].push(lg616::duplicate_part(sample.key, ext));
            }
        }
        let labels: Vec<&str> = sample
            .parts
            .iter()
            .zip(&roles)
            .filter(|(_, r)| matches!(r, Role::Mask | Role::LabelArray | Role::ClassText))
            .map(|((x, _), _)| x.as_str())
            .collect();
        let has_data = roles.iter().any(|r| matches!(r, Role::Image | Role::Data));
        if !labels.is_empty() && !has_data {
            let at = roles
                .iter()
                .position(|r| matches!(r, Role::Mask | Role::LabelArray | Role::ClassText))
                .unwrap_or(0);
            problems[at].push(lg616::labels_without_data(sample.key, &labels));
        }
        // The image a mask is checked against: a photo, else the first other image.
        let image = sample
            .parts
            .iter()
            .zip(&roles)
            .filter(|(_, r)| **r == Role::Image)
            .map(|((x, e), _)| (!PHOTO_EXTS.contains(&x.as_str()), *e))
            .min_by_key(|(not_photo, _)| *not_photo)
            .map(|(_, e)| e.source.clone());
        for (((ext, e), role), problems) in sample.parts.iter().zip(&roles).zip(problems) {
            let part = match role {
                Role::Mask => Some(Part::Mask),
                Role::LabelArray => Some(Part::Array),
                Role::ClassText => Some(Part::Class),
                Role::Json => Some(Part::Json),
                Role::Image | Role::Data => None,
            };
            if part.is_none() && problems.is_empty() {
                continue;
            }
            let task = Task::Part {
                part: part.unwrap_or(Part::Data),
                ext: ext.clone(),
                image: image.clone().filter(|_| *role == Role::Mask),
                problems,
            };
            let item = scan.item(e, split_of(&e.rel), task);
            scan.items.push(item);
        }
    }
}

/// The webdataset layout's kind: `--layout webdataset`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("webdataset");

/// The webdataset layout (see the module's doc).
pub(crate) struct WebDataset;

impl Layout for WebDataset {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["wds"]
    }
    fn help(&self) -> &'static str {
        "keyed samples (000123.jpg, 000123.seg.png, 000123.cls), as WebDataset groups them"
    }
    fn scope(&self) -> Scope {
        Scope::Loose
    }
    fn pairs_by_name(&self) -> bool {
        false
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        whole(looks_like_webdataset(files))
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        collect(scan);
        Found::default()
    }
}
