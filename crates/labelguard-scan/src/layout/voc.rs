//! The **voc** layout: `SegmentationClass/<stem>.png` with `JPEGImages/<stem>.jpg`, splits
//! from `ImageSets/Segmentation/{train,val,test}.txt`; a listed stem without its mask is LG608.
//! And the detection annotations: `Annotations/<stem>.xml` with the image its `<filename>`
//! names in `JPEGImages` (else `<stem>.jpg`), splits from `ImageSets/Main/{train,val,test,
//! trainval}.txt`; an annotation without its image is LG707 (added by the analysis).
//!
//! The class list of the annotations, when no setting gives one, is inferred here from the
//! `<name>`s of every annotation (a pre-pass that parses each XML once, which also gives its
//! `<filename>`): the preset's background and 20 VOC classes when every name is one of them
//! or looks like a typo of one (so that `persn` is reported against `person`, LG702), else
//! the sorted set of names found (a dataset of other classes in VOC's format; every name is
//! then a class and LG702 cannot fire, the class list being the data's own). Inferring from
//! the whole dataset, not file by file, is what keeps the ids the same in every file.
//!
//! A CVAT or Datumaro export's `labelmap.txt` beside these folders lists the classes and their
//! colours (its `SegmentationClass/` masks are RGB colour masks): it gives the class count,
//! names and palette, as CamVid's `class_dict.csv` does (a colour it lacks is LG621, a file
//! its reader refuses LG622).

use super::class_colours::{found, read_classes, LABELMAP};
use super::declare::{At, Found, Layout, Part, Tree};
use super::item::{Item, RootScan, Task};
use super::pairing::pair;
use super::paths::{components, display, ext_of, folder_of, has_ext, stem_of};
use crate::checks::lg608_missing_pair;
use crate::checks::lg702_unknown_category::did_you_mean;
use crate::config::ScanOptions;
use crate::layout_kind::LayoutKind;
use labelguard_formats::formats::{holds, Holds};
use labelguard_formats::source::Source;
use labelguard_formats::walk::Entry;
use std::collections::{BTreeSet, HashMap, HashSet};

/// VOC's folders beside `SegmentationClass` (and a CVAT export's `labelmap.txt`): owned by the VOC tree (instance masks, boxes and
/// lists are not class masks of another dataset).
const OWNED: &[&str] = &[
    "SegmentationClass",
    "SegmentationClassAug",
    "SegmentationObject",
    "JPEGImages",
    "Annotations",
    "ImageSets",
    "labelmap.txt",
];

/// The VOC trees: the folder above each `SegmentationClass/` (class masks) and each
/// `Annotations/` that holds detection XML.
fn trees(files: &[&Entry]) -> Vec<Tree> {
    let mut bases: BTreeSet<&str> = BTreeSet::new();
    for e in files {
        if let Some((base, folder)) = folder_of(&e.rel) {
            if folder == "SegmentationClass"
                || (folder == "Annotations" && has_ext(&e.rel, &["xml"]))
            {
                bases.insert(base);
            }
        }
    }
    let owned: Vec<String> = OWNED.iter().map(|d| d.to_string()).collect();
    bases
        .into_iter()
        .map(|b| (b.to_string(), owned.clone()))
        .collect()
}

/// Collects the dataset's items; returns the class names inferred from the annotations'
/// `<name>`s, when there are annotations.
pub(crate) fn collect(scan: &mut RootScan<'_>) -> Option<Vec<String>> {
    collect_masks(scan);
    collect_xml(scan)
}

/// The largest annotation the pre-pass reads (the analysis reads larger ones and reports).
const PREPASS_MAX_BYTES: u64 = 4 << 20;
/// The most distinct names the pre-pass keeps (a real dataset has tens).
const MAX_NAMES: usize = 10_000;

fn collect_xml(scan: &mut RootScan<'_>) -> Option<Vec<String>> {
    let mut bases: BTreeSet<String> = BTreeSet::new();
    for e in &scan.files {
        let comps = components(&e.rel);
        if comps.len() >= 2 && comps[comps.len() - 2] == "Annotations" && ext_of(&e.rel) == "xml" {
            bases.insert(comps[..comps.len() - 2].join("/"));
        }
    }
    if bases.is_empty() {
        return None;
    }
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut items = Vec::new();
    for base in bases {
        let splits = read_splits(scan, &join(&base, "ImageSets/Main"));
        let prefix = join(&base, "Annotations/");
        let images = join(&base, "JPEGImages/");
        for e in scan.files.iter().filter(|e| {
            e.rel.starts_with(&prefix)
                && !e.rel[prefix.len()..].contains('/')
                && ext_of(&e.rel) == "xml"
        }) {
            let stem = stem_of(&e.rel[prefix.len()..]);
            let doc = read_doc(&e.source);
            let filename = doc.as_ref().and_then(|d| d.filename.clone()).filter(|f| {
                !f.is_empty() && !f.contains('/') && !f.contains('\\') && f != "." && f != ".."
            });
            if let Some(d) = &doc {
                for o in &d.objects {
                    if let Some(n) = o.name.as_ref().filter(|n| !n.is_empty()) {
                        if names.len() < MAX_NAMES || names.contains(n) {
                            names.insert(n.clone());
                        }
                    }
                }
            }
            let mut candidates: Vec<String> = Vec::new();
            if let Some(f) = &filename {
                candidates.push(format!("{images}{f}"));
            }
            for ext in ["jpg", "jpeg", "png"] {
                candidates.push(format!("{images}{stem}.{ext}"));
            }
            let found = candidates
                .iter()
                .find(|c| scan.present.contains(c.as_str()));
            let expected = candidates[0].clone();
            let task = Task::VocXml {
                image: found.map(|c| scan.source_of(c)),
                missing_image: found.is_none().then(|| display(&scan.root, &expected)),
            };
            let split = splits.get(stem).cloned().unwrap_or_else(|| "all".into());
            items.push(scan.item(e, split, task));
        }
    }
    scan.items.extend(items);
    Some(infer_classes(&names))
}

/// `base/rest`, or `rest` for the dataset's own root.
fn join(base: &str, rest: &str) -> String {
    if base.is_empty() {
        rest.to_string()
    } else {
        format!("{base}/{rest}")
    }
}

/// The split of each stem listed in `dir/{test,trainval,val,train}.txt`; a stem in
/// `train.txt` and `trainval.txt` is train.
fn read_splits(scan: &RootScan<'_>, dir: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for split in ["test", "trainval", "val", "train"] {
        if let Ok(text) = read_small(&scan.source_of(&format!("{dir}/{split}.txt"))) {
            // `aeroplane_train.txt` style lines are `stem flag`; the split lists hold stems.
            for line in text.lines() {
                if let Some(stem) = line.split_whitespace().next() {
                    let s = if split == "trainval" { "train" } else { split };
                    out.insert(stem.to_string(), s.to_string());
                }
            }
        }
    }
    out
}

fn read_doc(source: &Source) -> Option<labelguard_formats::read::voc_xml::VocDoc> {
    let mut buf = Vec::new();
    source.read_all(PREPASS_MAX_BYTES, &mut buf).ok()?;
    labelguard_formats::read::voc_xml::parse(&buf).ok()
}

/// The class list of a VOC dataset whose annotations use `names`: the `pascal-voc` preset's
/// (background and the 20 classes) when every name is a VOC class or looks like a typo of
/// one, else the names sorted.
pub(crate) fn infer_classes(names: &BTreeSet<String>) -> Vec<String> {
    let voc = &labelguard_labels::preset::PASCAL_VOC.classes[1..];
    let vocish = names
        .iter()
        .all(|n| voc.contains(&n.as_str()) || did_you_mean(n, voc).is_some());
    if vocish {
        labelguard_labels::preset::PASCAL_VOC
            .classes
            .iter()
            .map(|c| c.to_string())
            .collect()
    } else {
        names.iter().cloned().collect()
    }
}

fn collect_masks(scan: &mut RootScan<'_>) {
    let mut bases: BTreeSet<String> = BTreeSet::new();
    for e in &scan.files {
        let comps = components(&e.rel);
        if comps.len() >= 2 && comps[comps.len() - 2] == "SegmentationClass" {
            bases.insert(comps[..comps.len() - 2].join("/"));
        }
    }
    for base in bases {
        // Splits from the ImageSets lists; a stem in train.txt and trainval.txt is train.
        let mut split_of_stem: HashMap<String, String> = HashMap::new();
        let mut listed: Vec<(String, String)> = Vec::new();
        for split in ["test", "trainval", "val", "train"] {
            let list = scan.source_of(&join(&base, &format!("ImageSets/Segmentation/{split}.txt")));
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
                    && holds(&e.rel, Holds::Mask)
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
                let p = lg608_missing_pair::listed_without_mask(&split);
                let item = scan.synthetic(&rel, split, p);
                scan.items.push(item);
            }
        }
    }
}

fn read_small(source: &Source) -> Result<String, ()> {
    let mut buf = Vec::new();
    source.read_all(64 << 20, &mut buf).map_err(|_| ())?;
    String::from_utf8(buf).map_err(|_| ())
}

/// A VOC tree with class masks and detection XML (VOC2012) is two datasets: pixels and objects
/// are different units, each with its own histogram and weights (the class names, inferred
/// from the annotations, are the detection's). A tree of one kind is one dataset, its masks
/// first.
fn split_units(items: Vec<Item>, class_names: Option<Vec<String>>) -> Vec<Part> {
    let (det, seg): (Vec<Item>, Vec<Item>) = items
        .into_iter()
        .partition(|it| matches!(it.task, Task::VocXml { .. }));
    if !det.is_empty() && seg.iter().any(|it| matches!(it.task, Task::Mask { .. })) {
        return vec![
            Part {
                items: seg,
                suffix: "",
                class_names: None,
            },
            Part {
                items: det,
                suffix: " (detection)",
                class_names,
            },
        ];
    }
    let mut all = seg;
    all.extend(det);
    vec![Part {
        items: all,
        suffix: "",
        class_names,
    }]
}

/// The voc layout's kind: `--layout voc`, the report's `layouts`.
pub(crate) const KIND: LayoutKind = LayoutKind::declared("voc");

/// The voc layout (see the module's doc).
pub(crate) struct Voc;

impl Layout for Voc {
    fn kind(&self) -> LayoutKind {
        KIND
    }
    fn aliases(&self) -> &'static [&'static str] {
        &["pascalvoc"]
    }
    fn help(&self) -> &'static str {
        "SegmentationClass + JPEGImages, and Annotations/*.xml (detection)"
    }
    fn claim(&self, files: &[&Entry], _: &At<'_>) -> Vec<Tree> {
        trees(files)
    }
    fn datasets(&self, items: Vec<Item>, class_names: Option<Vec<String>>) -> Vec<Part> {
        split_units(items, class_names)
    }
    fn collect(&self, scan: &mut RootScan<'_>, _: &ScanOptions) -> Found {
        let class_names = collect(scan);
        // A CVAT or Datumaro export lists its classes and their mask colours in labelmap.txt.
        if scan.present.contains(LABELMAP.file) {
            if let Some(classes) = read_classes(scan, &LABELMAP) {
                return found(&LABELMAP, classes);
            }
        }
        Found {
            class_names,
            num_classes: None,
            palette: None,
        }
    }
}
