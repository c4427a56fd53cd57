//! Photos or masks: the evidence that a tree of class folders is an ImageFolder dataset of
//! photos (torchvision's and timm's `train/<class>/<image>`) and not a tree of masks.
//!
//! JPEG files are photos (no mask is stored lossily). A tree of PNG (or TIFF) images is read
//! from a few of its files: a palette image or a 16-bit one is a mask (VOC's palette PNGs,
//! 16-bit instance ids), and so is an image with few distinct values (a class map holds a few
//! dozen classes; a photo, even a 28x28 MNIST digit or a 32x32 CIFAR image, holds more shades).
//! Folders named as the masks of their siblings (`labels`, `masks`, `train_labels` beside
//! `train`, `trainannot` beside `train`) are not classes: CamVid's `train/` beside
//! `train_labels/` is images beside their masks (`with_mask/` beside `without_mask/` is two
//! classes of photos).

use super::paths::is_split_name;
use crate::formats::{holds, Holds};
use crate::read::mask::decode_mask;
use crate::walk::Entry;
use std::collections::{BTreeMap, HashSet};

/// How many images of a tree without JPEG files are decoded to tell photos from masks: the
/// first image of each class folder, up to this many folders.
const SAMPLED: usize = 8;
/// The largest file decoded for the decision (a larger PNG is left undecided).
const SAMPLE_BYTES: u64 = 32 << 20;
/// The most pixels decoded for the decision.
const SAMPLE_PIXELS: u64 = 1 << 24;
/// More distinct grey values than a class map holds: a grey photo (an MNIST digit holds ~100).
const GREY_SHADES: usize = 64;
/// More distinct colours than a colour mask holds (CamVid 32, Cityscapes 34, ADE20K 150): a
/// colour photo.
const COLOURS: usize = 256;

/// The words of a folder name that make it a mask folder (after splitting it at `_`, `-`, `.`
/// and spaces, in lower case).
const MASK_WORDS: &[&str] = &[
    "label",
    "labels",
    "mask",
    "masks",
    "annot",
    "annots",
    "annotation",
    "annotations",
    "gt",
    "groundtruth",
    "seg",
    "segmentation",
    "segmentations",
    "segmentationclass",
    "segmentationobject",
];

/// The folder whose masks a folder named like a mask folder holds: `train` for
/// `train_labels` and `trainannot` (SegNet's CamVid), `""` for `labels` or `masks`; `None` for a
/// folder not named so. `with_mask` names `with`, which is no folder: a class of photos.
fn masks_of(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if let Some(base) = lower.strip_suffix("annot").filter(|b| !b.contains('_')) {
        return Some(base.to_string());
    }
    let words: Vec<&str> = lower.split(['_', '-', '.', ' ']).collect();
    if !words.iter().any(|w| MASK_WORDS.contains(w)) {
        return None;
    }
    let rest: Vec<&str> = words
        .into_iter()
        .filter(|w| !w.is_empty() && !MASK_WORDS.contains(w))
        .collect();
    Some(rest.join("_"))
}

/// Whether the folders of one level are images beside their masks rather than classes: one of
/// them is named like a mask folder (`labels`, `masks`) or like the masks of another
/// (`train_labels` beside `train`), or one is a split (`train/x.png` is a split's images;
/// `train/<class>/x.png` a split's classes).
pub(crate) fn masks_beside_images<'a>(folders: impl IntoIterator<Item = &'a str>) -> bool {
    let folders: Vec<String> = folders.into_iter().map(str::to_ascii_lowercase).collect();
    folders.iter().any(|f| {
        is_split_name(f)
            || masks_of(f).is_some_and(|base| base.is_empty() || folders.contains(&base))
    })
}

/// Whether the images of a tree of class folders (`files`, each `class/image` or
/// `split/class/image`, none of them JPEG) are photos: a sampled image decodes as a photo and
/// none decodes as a mask. `class_of` names each file's class folder.
pub(crate) fn sampled_photos<'e>(
    files: impl IntoIterator<Item = &'e Entry>,
    class_of: impl Fn(&str) -> Option<String>,
) -> bool {
    // The first image of each class folder, in the walk's order.
    let mut firsts: BTreeMap<String, &Entry> = BTreeMap::new();
    let mut seen: HashSet<String> = HashSet::new();
    for e in files {
        if !holds(&e.rel, Holds::Image) {
            continue;
        }
        let Some(class) = class_of(&e.rel) else {
            continue;
        };
        if seen.insert(class.clone()) {
            firsts.insert(class, e);
        }
    }
    let mut photos = 0usize;
    for e in firsts.values().take(SAMPLED) {
        match looks(e) {
            Look::Photo => photos += 1,
            Look::Mask => return false,
            Look::Undecided => {}
        }
    }
    photos > 0
}

#[derive(Debug, PartialEq)]
enum Look {
    Photo,
    Mask,
    /// Not read (too large, unreadable, not a PNG or TIFF): no evidence either way.
    Undecided,
}

/// What one image looks like, from its pixels.
fn looks(e: &Entry) -> Look {
    let mut bytes = Vec::new();
    if e.source.read_all(SAMPLE_BYTES, &mut bytes).is_err() {
        return Look::Undecided;
    }
    let (mut out, mut scratch) = (Vec::new(), Vec::new());
    let Ok(image) = decode_mask(&bytes, SAMPLE_PIXELS, &mut out, &mut scratch) else {
        return Look::Undecided;
    };
    if image.palette.is_some() || image.dtype != labelguard_core::DType::U8 {
        return Look::Mask;
    }
    let pixels = image.width * image.height;
    let channels = image.channels;
    if channels == 0 || out.len() < pixels * channels {
        return Look::Undecided;
    }
    // Grey + alpha counts its grey; RGBA its colour.
    let colour = channels >= 3;
    let mut distinct: HashSet<[u8; 3]> = HashSet::new();
    let enough = if colour { COLOURS } else { GREY_SHADES };
    for px in out.chunks_exact(channels).take(pixels) {
        let c = if colour {
            [px[0], px[1], px[2]]
        } else {
            [px[0], 0, 0]
        };
        distinct.insert(c);
        if distinct.len() > enough {
            return Look::Photo;
        }
    }
    Look::Mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_beside_their_images_are_no_classes() {
        let beside = |names: &[&str]| masks_beside_images(names.iter().copied());
        // CamVid (Kaggle), SegNet's CamVid, plain mask folders, splits.
        assert!(beside(&["train", "train_labels", "val", "val_labels"]));
        assert!(beside(&["test", "testannot", "train", "trainannot"]));
        assert!(beside(&["images", "labels"]));
        assert!(beside(&["masks", "photos"]));
        assert!(beside(&["SegmentationClass", "JPEGImages"]));
        assert!(beside(&["cat", "train"]));
        // Classes, even with a mask word in their names.
        assert!(!beside(&["cat", "dog"]));
        assert!(!beside(&["with_mask", "without_mask"]));
        assert!(!beside(&["n01440764", "n01443537"]));
        assert!(!beside(&["0", "1", "2"]));
        assert!(!beside(&["segway", "night", "gtr"]));
    }
}
