//! The small types a report holds whose work is the scan's: the kind of a file, the counts of
//! detection objects, the shard a report covers and the class-weight methods (the weights are
//! computed by scan's `weights`, shards are cut by its pipeline).

use serde::{Deserialize, Serialize};

/// What kind of file a result is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// Counts of a detection annotation file's objects that the dataset's findings sum up (a
/// dataset mixing box and polygon lines, LG710; objects flagged difficult or crowd, LG712).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// `--shard K/N`: this run scans the K-th of N disjoint parts (1-based, as in `1/4` .. `4/4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("'{s}' is not K/N (for example 2/8)"))?;
        let k: u32 = k
            .trim()
            .parse()
            .map_err(|_| format!("'{k}' is not a number"))?;
        let n: u32 = n
            .trim()
            .parse()
            .map_err(|_| format!("'{n}' is not a number"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!(
                "shard {k}/{n}: K must be between 1 and N (shards are numbered 1..N; with 0-based array indices pass $((INDEX+1))/N)"
            ));
        }
        Ok(Shard { index: k, count: n })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    InverseFrequency,
    MedianFrequency,
    Enet,
}

impl Method {
    pub const ALL: [Method; 3] = [
        Method::InverseFrequency,
        Method::MedianFrequency,
        Method::Enet,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Method::InverseFrequency => "inverse_frequency",
            Method::MedianFrequency => "median_frequency",
            Method::Enet => "enet",
        }
    }

    /// The formula, in the unit the labels were counted in (`pixels`, `objects`, `samples`; the
    /// first of a joined unit such as `pixels+samples`).
    pub fn formula(self, unit: &str) -> String {
        let unit = match unit.split('+').next().unwrap_or("") {
            "" | "none" => "pixels",
            u => u,
        };
        match self {
            Method::InverseFrequency => "w_c = N / (C * n_c)".into(),
            Method::MedianFrequency => format!("w_c = median_k(f_k) / f_c, f_c = n_c / P_c (P_c = {unit} of the files containing c)"),
            Method::Enet => "w_c = 1 / ln(1.02 + n_c / N)".into(),
        }
    }
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Method, String> {
        match s.to_ascii_lowercase().replace('-', "_").as_str() {
            "inverse" | "inverse_frequency" | "balanced" => Ok(Method::InverseFrequency),
            "median" | "median_frequency" | "mfb" => Ok(Method::MedianFrequency),
            "enet" => Ok(Method::Enet),
            _ => Err(format!(
                "unknown weights method '{s}' (known: inverse, median, enet)"
            )),
        }
    }
}

/// One method's weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    pub method: Method,
    pub formula: String,
    pub weights: Vec<f64>,
}
