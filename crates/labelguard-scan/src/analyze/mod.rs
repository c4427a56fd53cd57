//! One file in, findings and a class histogram out.
//!
//! The fast path for a clean mask is: read, decode, histogram. Only when the histogram shows
//! an id outside `[0, C-1]` (and not `ignore_index`) does the file get the detailed pass, and
//! that pass is `labelguard_core::class_ids`, the same analysis the `check` command and the
//! Python guards use, so a scan names the same causes (LG101..LG107) with the same fixes and
//! the first offending pixel as `mask[y, x]`.
//!
//! This module dispatches an item by its kind and holds the types every kind shares
//! ([`FileResult`], [`Ctx`], [`Buffers`]); one file per kind does the work: [`mask`] (grey and
//! palette masks), [`colour`] (colour masks), [`class_ids`] (the class-id check every kind
//! ends in), [`array`](mod@array) (`.npy`/`.npz`/`.safetensors`), [`table`] (label tables), [`image`]
//! (ImageFolder samples), [`class_weights`] (the `--class-weights` file) and [`overlay`] (the
//! picture of a mask's bad pixels). The dataset rules' checks are in [`crate::checks`].

pub mod array;
pub mod class_ids;
pub mod class_weights;
pub mod colour;
pub mod image;
pub mod mask;
pub mod overlay;
pub mod table;
#[cfg(test)]
mod tests;

use crate::checks::{lg608_missing_pair, lg614_non_utf8_path};
use crate::config::ScanOptions;
use crate::layout::{Item, Task};
use labelguard_core::Finding;
use std::collections::HashMap;

/// What kind of file a result is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Mask,
    Array,
    Table,
    Image,
    ClassWeights,
    Other,
}

/// The outcome of one item.
#[derive(Clone, Debug)]
pub struct FileResult {
    pub display: String,
    pub split: String,
    pub kind: FileKind,
    pub shape: Option<Vec<usize>>,
    pub findings: Vec<Finding>,
    /// Elements (pixels, rows, samples) that entered the histogram.
    pub elements: u64,
    /// Elements that PyTorch would reject (out-of-range ids, unknown labels).
    pub bad: u64,
    pub histogram: Vec<(i64, u64)>,
    pub hist_overflow: u64,
    /// Histogram unit: pixels for masks and arrays, samples for tables and images.
    pub samples: bool,
    /// The picture marking the bad pixels, when overlays were asked for (encoded to PNG for
    /// the report by [`crate::overlay`]).
    pub overlay: Option<overlay::Overlay>,
    /// The findings are about the dataset as a whole (its folders), not about a file.
    pub dataset_level: bool,
}

impl FileResult {
    pub(crate) fn new(item: &Item, kind: FileKind) -> FileResult {
        FileResult {
            display: item.display.clone(),
            split: item.split.clone(),
            kind,
            shape: None,
            findings: Vec::new(),
            elements: 0,
            bad: 0,
            histogram: Vec::new(),
            hist_overflow: 0,
            samples: false,
            overlay: None,
            dataset_level: false,
        }
    }
}

/// Per-thread buffers, reused from file to file so that a scan allocates per thread, not per
/// file. Buffers that grew for a very large file are shrunk back afterwards.
#[derive(Default)]
pub struct Buffers {
    file: Vec<u8>,
    pixels: Vec<u8>,
    aux: Vec<u8>,
}

const KEEP_BYTES: usize = 64 << 20;

impl Buffers {
    fn trim(&mut self) {
        for b in [&mut self.file, &mut self.pixels, &mut self.aux] {
            if b.capacity() > KEEP_BYTES {
                b.clear();
                b.shrink_to(KEEP_BYTES);
            }
        }
    }
}

/// Settings derived once per scan.
pub struct Ctx<'a> {
    pub opts: &'a ScanOptions,
    /// Class name -> id, from `--classes` or the discovered ImageFolder classes.
    pub class_map: HashMap<String, i64>,
    pub palette: Option<crate::colours::ColourMap>,
}

impl<'a> Ctx<'a> {
    pub fn new(opts: &'a ScanOptions, class_names: &[String]) -> Ctx<'a> {
        let palette = opts
            .palette
            .as_ref()
            .map(|p| crate::colours::ColourMap::new(p, &opts.void_colours, opts.ignore_index));
        Ctx {
            opts,
            class_map: class_names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), i as i64))
                .collect(),
            palette,
        }
    }

    pub(crate) fn max_file_bytes(&self) -> u64 {
        self.opts
            .max_pixels
            .saturating_mul(8)
            .saturating_add(1 << 20)
    }
}

/// Analyses one item.
pub fn analyze_item(item: &Item, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    let mut r = match &item.task {
        Task::Problem(p) => {
            let mut r = FileResult::new(item, FileKind::Other);
            r.findings.push(p.clone());
            r
        }
        Task::DatasetProblem(p) => {
            let mut r = FileResult::new(item, FileKind::Other);
            r.findings.push(p.clone());
            r.dataset_level = true;
            r
        }
        Task::Mask {
            image,
            missing_image,
        } => {
            let mut r = mask::mask_file(item, ctx, bufs);
            if let Some(expected) = missing_image {
                r.findings
                    .push(lg608_missing_pair::mask_without_image(expected));
            }
            if let (Some(image), Some(shape)) = (image, r.shape.clone()) {
                r.findings
                    .extend(crate::checks::lg607_mask_image_size_mismatch::check(
                        image, &shape,
                    ));
            }
            r
        }
        Task::Array => {
            let mut r = FileResult::new(item, FileKind::Array);
            array::array_file(&mut r, item, ctx);
            r
        }
        Task::Table(format) => table::table_file(item, *format, ctx),
        Task::Image { class, .. } => image::image_sample(item, class, ctx),
        Task::ClassWeights => class_weights::class_weights_file(item, ctx),
    };
    if item.non_utf8 {
        r.findings.push(lg614_non_utf8_path::finding());
    }
    bufs.trim();
    r
}

/// Largest array (elements) that is copied to a wider type for an optional pass (float ids,
/// the artefact check of non-u8 masks): 2^24 elements, 128 MiB as i64.
pub(crate) const WIDEN_LIMIT: usize = 1 << 24;
