//! What discovery hands to the pipeline: one [`Item`] per file (or per problem found while
//! discovering) with its [`Task`], and the per-root state the layouts fill in.

use super::paths::display;
use labelguard_core::Finding;
use labelguard_formats::formats::{holds, Holds};
use labelguard_formats::read::table::TableFormat;
use labelguard_formats::read::tokens::TokenFormat;
use labelguard_formats::source::Source;
use labelguard_formats::walk::Entry;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// What the pipeline does with one item.
#[derive(Clone, Debug)]
pub enum Task {
    /// A mask image or array; `image` is its paired image when the layout pairs them,
    /// `missing_image` the path that was expected when it does not exist.
    Mask {
        image: Option<Source>,
        missing_image: Option<String>,
    },
    Array,
    Table(TableFormat),
    /// An ImageFolder sample: its class folder and that class's id; a photo without a class
    /// ([`Task::photo`]) has the class `""`.
    Image {
        class: String,
        class_index: i64,
    },
    /// A COCO instances JSON; `images` is the folder its `file_name`s are relative to, when
    /// the layout found one.
    Coco {
        images: Option<PathBuf>,
    },
    /// A YOLO label file and its image (`missing_image`: the image that was expected).
    Yolo {
        image: Option<Source>,
        missing_image: Option<String>,
    },
    /// A Pascal VOC annotation XML and its image (`missing_image`: the image that was
    /// expected).
    VocXml {
        image: Option<Source>,
        missing_image: Option<String>,
    },
    /// Tokenized data: the files of one split, in row order (a `datasets` directory's
    /// shards, or one Parquet/JSONL file with an `input_ids` column).
    Tokens {
        files: Vec<PathBuf>,
        format: TokenFormat,
    },
    /// A flat token file (nanoGPT's `train.bin`, a Megatron `.bin` beside its `.idx`): its ids
    /// against the vocabulary.
    TokenBin(labelguard_formats::read::token_bin::TokenBin),
    /// A raw label file of torchvision's classification datasets (MNIST's IDX labels, a CIFAR
    /// batch): its class ids.
    RawLabels(labelguard_formats::read::torchvision_raw::RawLabels),
    /// The `--class-weights` file.
    ClassWeights,
    /// A model directory's `config.json`: the directory is read as a model and its tokenizer
    /// checked against it (LG809-LG813).
    Model,
    /// A part of a WebDataset sample (`ext`: its extension, `seg.png`); `image` is the
    /// sample's image for a mask, `problems` the sample's LG616 findings about this part.
    Part {
        part: Part,
        ext: String,
        image: Option<Source>,
        problems: Vec<Finding>,
    },
    /// Something found while discovering, reported as is.
    Problem(Finding),
    /// A problem of the dataset as a whole (its class folders, its splits): reported with the
    /// dataset's findings, not as a file.
    DatasetProblem(Finding),
}

/// How a part of a WebDataset sample is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// A mask image (PNG, TIFF), checked as masks are, and against the sample's image.
    Mask,
    /// A label array (`.npy`, `.npz`).
    Array,
    /// A class id as text (`.cls`): WebDataset decodes it with `int(data)`.
    Class,
    /// A JSON object whose label field holds the class.
    Json,
    /// A data part, only carrying the sample's findings.
    Data,
}

impl Task {
    /// A photo without a class (a folder of photos, not of masks): read for its header only.
    pub(crate) fn photo() -> Task {
        Task::Image {
            class: String::new(),
            class_index: -1,
        }
    }

    /// A label file scanned on its own: an array by its extension, else a mask without an
    /// image.
    pub(crate) fn unpaired_label(rel: &str) -> Task {
        if holds(rel, Holds::Array) {
            Task::Array
        } else {
            Task::Mask {
                image: None,
                missing_image: None,
            }
        }
    }
}

/// One unit of work: a file (or a discovery problem) with its report path and shard key.
#[derive(Clone, Debug)]
pub struct Item {
    pub source: Source,
    /// What the report shows: the root as given joined with the relative path.
    pub display: String,
    /// Stable across machines: the root's index and the relative path's bytes.
    pub key: Vec<u8>,
    /// What `--shard K/N` hashes when not `key`: the tar shard a member is in.
    pub shard_key: Option<Vec<u8>>,
    pub split: String,
    pub non_utf8: bool,
    pub task: Task,
    /// Index into `Discovery::datasets`.
    pub dataset: usize,
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
    /// For a listed root (tar members, bucket objects), its entries by relative path: where a
    /// paired file's bytes are, since they are not at `root.join(rel)`.
    pub(crate) listed: Option<HashMap<&'a str, &'a Entry>>,
    pub(crate) items: Vec<Item>,
}

impl<'a> RootScan<'a> {
    pub(crate) fn item(&self, e: &Entry, split: String, task: Task) -> Item {
        let mut key = vec![self.index as u8];
        key.extend_from_slice(&e.rel_bytes);
        Item {
            source: e.source.clone(),
            display: self.display_of(e),
            key,
            // Under the root's index, as `key` is: a listed root's entries (a bucket's keys
            // under its prefix) shard as the same files of a directory do.
            shard_key: e.shard_key.as_ref().map(|k| {
                let mut v = vec![self.index as u8];
                v.extend_from_slice(k);
                v
            }),
            split,
            non_utf8: e.non_utf8,
            task,
            dataset: 0,
        }
    }

    /// What the report calls entry `e`: its own name when it was listed (a tar member
    /// `shard.tar:000123.png`, an object's URL), else the root joined with its path.
    pub(crate) fn display_of(&self, e: &Entry) -> String {
        e.shown
            .clone()
            .unwrap_or_else(|| display(&self.root, &e.rel))
    }

    /// Where the file at `rel` (below the dataset's root) is read from.
    pub(crate) fn source_of(&self, rel: &str) -> Source {
        self.listed
            .as_ref()
            .and_then(|m| m.get(rel))
            .map(|e| e.source.clone())
            .unwrap_or_else(|| Source::File(self.root.join(rel)))
    }

    /// A problem that is not about one walked file (a missing mask, a folder). `rel` `"."`
    /// is the dataset itself.
    pub(crate) fn synthetic(&self, rel: &str, split: String, problem: Finding) -> Item {
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
            source: self.source_of(rel),
            display: display(&self.root, rel),
            key,
            shard_key: None,
            split,
            non_utf8: false,
            task,
            dataset: 0,
        }
    }
}
