//! Photos or masks: the evidence that a tree of class folders is an ImageFolder dataset of
//! photos (torchvision's and timm's `train/<class>/<image>`) and not a tree of masks.
//!
//! JPEG files are photos (no mask is stored lossily). A tree of PNG (or TIFF) images is read
//! from a few of its files: a palette image or a 16-bit one is a mask (VOC's palette PNGs,
//! 16-bit instance ids), and so is an image with few distinct values (a class map holds a few
//! dozen classes; a photo, even a 28x28 MNIST digit or a 32x32 CIFAR image, holds more shades)
//! or whose few commonest colours cover most of it (a colour mask with blended borders).
//! The same evidence keeps a loose folder of photos (`dreambooth/dog/*.png`) from being read as
//! colour masks: its images are samples without labels.
//!
//! Folders named as the masks of their siblings (`labels`, `masks`, `train_labels` beside
//! `train`, `trainannot` beside `train`) are not classes: CamVid's `train/` beside
//! `train_labels/` is images beside their masks (`with_mask/` beside `without_mask/` is two
//! classes of photos).

use super::paths::is_split_name;
use labelguard_formats::formats::{holds, Holds};
use labelguard_formats::read::mask::decode_mask;
use labelguard_formats::walk::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};

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
/// colour photo, when its [`COMMON`] commonest colours also cover less than half its pixels.
const COLOURS: usize = 256;
/// How many of an image's commonest colours stand for a mask's class colours.
const COMMON: usize = 16;

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

/// The folders among `files` (relative paths, `""` the root) whose images are photos without
/// labels (DreamBooth's instance images, a captioned `metadata.jsonl` folder), for a dataset
/// of loose files: the first images of its folders not named as masks decode as colour photos
/// and none as a mask. Only colour counts here: a grey image of many shades may be a mask with
/// resize artefacts, which loose masks are checked for.
pub(crate) fn photo_folders(files: &[&Entry]) -> HashSet<String> {
    let images: Vec<&Entry> = files
        .iter()
        .copied()
        .filter(|e| holds(&e.rel, Holds::Image) && masks_of(folder_name(&e.rel)).is_none())
        .collect();
    if !sample(
        images.iter().copied(),
        |rel| Some(folder(rel).to_string()),
        Grey::Mask,
    ) {
        return HashSet::new();
    }
    images.iter().map(|e| folder(&e.rel).to_string()).collect()
}

/// The folder of `rel` (`""` at the top).
fn folder(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The name of the folder of `rel`.
fn folder_name(rel: &str) -> &str {
    let dir = folder(rel);
    dir.rsplit('/').next().unwrap_or(dir)
}

/// Whether the images of a tree of class folders (`files`, each `class/image` or
/// `split/class/image`, none of them JPEG) are photos: a sampled image decodes as a photo and
/// none decodes as a mask. `class_of` names each file's class folder.
pub(crate) fn sampled_photos<'e>(
    files: impl IntoIterator<Item = &'e Entry>,
    class_of: impl Fn(&str) -> Option<String>,
) -> bool {
    sample(files, class_of, Grey::Shades)
}

/// What a grey image of many shades is taken for.
#[derive(Clone, Copy, PartialEq)]
enum Grey {
    /// A photo (an MNIST digit) when it has more than [`GREY_SHADES`] shades.
    Shades,
    /// A mask, always.
    Mask,
}

/// Whether the first image of each group of `files` (`group_of`), at most [`SAMPLED`] of them,
/// are photos: one at least, and no mask.
fn sample<'e>(
    files: impl IntoIterator<Item = &'e Entry>,
    group_of: impl Fn(&str) -> Option<String>,
    grey: Grey,
) -> bool {
    // The first image of each group, in the walk's order.
    let mut firsts: BTreeMap<String, &Entry> = BTreeMap::new();
    for e in files {
        if !holds(&e.rel, Holds::Image) {
            continue;
        }
        if let Some(group) = group_of(&e.rel) {
            firsts.entry(group).or_insert(e);
        }
    }
    let mut photos = 0usize;
    for e in firsts.values().take(SAMPLED) {
        match looks(e, grey) {
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
fn looks(e: &Entry, grey: Grey) -> Look {
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
    if channels == 0 || pixels == 0 || out.len() < pixels * channels {
        return Look::Undecided;
    }
    // Grey + alpha counts its grey; RGBA its colour.
    let colour = channels >= 3;
    if !colour && grey == Grey::Mask {
        return Look::Mask;
    }
    let mut counts: HashMap<[u8; 3], usize> = HashMap::new();
    for px in out.chunks_exact(channels).take(pixels) {
        let c = if colour {
            [px[0], px[1], px[2]]
        } else {
            [px[0], 0, 0]
        };
        *counts.entry(c).or_default() += 1;
    }
    if !colour {
        return if counts.len() > GREY_SHADES {
            Look::Photo
        } else {
            Look::Mask
        };
    }
    // A colour mask resized with interpolation has many blended colours at the borders, but
    // its class colours still cover most pixels; a photo's commonest colours cover few.
    let mut common: Vec<usize> = counts.values().copied().collect();
    common.sort_unstable_by(|a, b| b.cmp(a));
    let covered: usize = common.iter().take(COMMON).sum();
    if counts.len() > COLOURS && covered * 2 < pixels {
        Look::Photo
    } else {
        Look::Mask
    }
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
