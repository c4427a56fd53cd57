//! What the analysis of one item gives: its kind, findings, histogram and overlay.

use crate::layout::Item;
use crate::overlay::Overlay;
use labelguard_core::Finding;

/// What kind of file a result is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    Mask,
    Array,
    Table,
    Image,
    ClassWeights,
    /// A detection annotation file (COCO JSON, YOLO labels, VOC XML).
    Annotations,
    Other,
}

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

/// Counts of a detection annotation file's objects that the dataset's findings sum up (a
/// dataset mixing box and polygon lines, LG710; objects flagged difficult or crowd, LG712).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ObjectStats {
    /// YOLO label files of box lines only / with a polygon line (ultralytics reads a file
    /// with any polygon line as polygons).
    pub files_with_boxes: u64,
    pub files_with_polygons: u64,
    /// Objects flagged `<difficult>1` / `<truncated>1` (VOC), `iscrowd: 1` (COCO).
    pub difficult: u64,
    pub truncated: u64,
    pub crowd: u64,
}

impl ObjectStats {
    pub fn add(&mut self, o: &ObjectStats) {
        self.files_with_boxes += o.files_with_boxes;
        self.files_with_polygons += o.files_with_polygons;
        self.difficult += o.difficult;
        self.truncated += o.truncated;
        self.crowd += o.crowd;
    }

    pub fn is_empty(&self) -> bool {
        *self == ObjectStats::default()
    }
}

/// What token files held (tokens, sequences, documents) and the vocabularies their ids were
/// checked against, summed over the files; the report speaks of tokens with it, not of
/// classes and elements.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenStats {
    /// Token files (nanoGPT, Megatron) and token tables (one per split) read.
    pub files: u64,
    pub tokens: u64,
    /// Rows of a token table or a chat dataset, Megatron's sequences; a nanoGPT file is one
    /// stream and counts none.
    pub sequences: u64,
    /// Megatron's documents.
    pub documents: u64,
    /// Each vocabulary the ids were checked against, once, in the order first met; empty when
    /// none was known (the ids were read, not range-checked).
    pub vocabularies: Vec<Vocabulary>,
}

/// A vocabulary size and where it came from (`meta.pkl`, `--vocab-size 50304`, `--model DIR`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Vocabulary {
    pub size: u64,
    pub source: String,
}

impl TokenStats {
    /// One file's counts, checked against `vocab` when known.
    pub fn one(tokens: u64, sequences: u64, documents: u64, vocab: Option<Vocabulary>) -> Self {
        TokenStats {
            files: 1,
            tokens,
            sequences,
            documents,
            vocabularies: vocab.into_iter().collect(),
        }
    }

    pub fn add(&mut self, o: &TokenStats) {
        self.files += o.files;
        self.tokens += o.tokens;
        self.sequences += o.sequences;
        self.documents += o.documents;
        for v in &o.vocabularies {
            if !self.vocabularies.contains(v) {
                self.vocabularies.push(v.clone());
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.files == 0
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
