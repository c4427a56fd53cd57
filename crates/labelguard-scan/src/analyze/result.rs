//! What the analysis of one item gives: its kind, findings, histogram and overlay.

use crate::layout::Item;
use crate::overlay::Overlay;
use labelguard_core::Finding;
pub use labelguard_scan_model::{FileKind, ObjectStats, TokenStats, Vocabulary};

/// What a file's histogram counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Masks and arrays: one count per pixel (element).
    Pixels,
    /// Label tables and ImageFolder images: one count per sample.
    Samples,
    /// Detection annotations (COCO, YOLO, VOC XML): one count per object.
    Objects,
}

impl Unit {
    /// The name the report's histogram uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Pixels => "pixels",
            Unit::Samples => "samples",
            Unit::Objects => "objects",
        }
    }
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
    pub unit: Unit,
    /// Classes the file declares, with their names (a COCO file's categories): they are
    /// histogram rows even when no object uses them.
    pub declared: Vec<(i64, String)>,
    /// Counts about a detection file's objects, summed over the dataset.
    pub objects: ObjectStats,
    /// Counts of a token file or table, summed over the dataset.
    pub tokens: TokenStats,
    /// The picture marking the bad pixels, when overlays were asked for (encoded to PNG for
    /// the report by [`crate::overlay`]).
    pub overlay: Option<Overlay>,
    /// The findings are about the dataset as a whole (its folders), not about a file.
    pub dataset_level: bool,
    /// Findings about the dataset as a whole that this file showed (a chat template's marker
    /// that the tokenizer splits): reported once for the dataset, however many files show it.
    pub dataset: Vec<Finding>,
}

impl FileResult {
    pub(crate) fn new(item: &Item, kind: FileKind) -> FileResult {
        FileResult::named(item.display.clone(), item.split.clone(), kind)
    }

    /// The empty result of a file shown as `display`, in `split` (for bytes that come with
    /// no item: the fuzz harness's).
    pub(crate) fn named(display: String, split: String, kind: FileKind) -> FileResult {
        FileResult {
            display,
            split,
            kind,
            shape: None,
            findings: Vec::new(),
            elements: 0,
            bad: 0,
            histogram: Vec::new(),
            hist_overflow: 0,
            unit: Unit::Pixels,
            declared: Vec::new(),
            objects: ObjectStats::default(),
            tokens: TokenStats::default(),
            overlay: None,
            dataset_level: false,
            dataset: Vec::new(),
        }
    }
}
