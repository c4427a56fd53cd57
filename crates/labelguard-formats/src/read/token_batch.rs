//! What every token reader hands the checks, whatever the file's format: a [`TokenBatch`] of
//! rows whose integer columns ([`Col`]) are flat runs of values with, for list columns, where
//! each row starts; and why a file cannot be read as token data ([`TokenError`], with the
//! column that is not what a token dataset needs, [`ColumnProblem`], for the scan to word).
//! The readers (`tokens` for Arrow and JSONL, `parquet_lists` for Parquet) use it; it uses
//! neither.

use super::arrow_ipc::IpcError;
use labelguard_core::TensorView;

/// The integer columns a token check reads, in the order of [`TokenBatch::cols`].
pub const COLUMNS: [&str; NCOLS] = [
    "input_ids",
    "labels",
    "attention_mask",
    "token_type_ids",
    "position_ids",
];
/// How many integer columns a batch has room for.
pub const NCOLS: usize = 5;
pub const INPUT_IDS: usize = 0;
pub const LABELS: usize = 1;
pub const ATTENTION_MASK: usize = 2;
pub const TOKEN_TYPE_IDS: usize = 3;
/// Positions given explicitly (packed rows): each indexes the model's position table.
pub const POSITION_IDS: usize = 4;
/// Columns that hold a sample's images, tried in order.
pub const IMAGE_COLUMNS: [&str; 3] = ["images", "image", "pixel_values"];
/// The scalar class label of sequence classification, when `labels` is absent.
pub const LABEL: &str = "label";

/// Rows `first_row..first_row + rows` of a dataset file.
pub struct TokenBatch<'a> {
    pub first_row: u64,
    pub rows: usize,
    pub cols: [Option<Col<'a>>; NCOLS],
    /// A scalar `label` column (sequence classification) when there is no `labels`.
    pub label: Option<Col<'a>>,
    /// Images per row, when the dataset has an image column.
    pub images: Option<Vec<u64>>,
}

/// Why a file cannot be read as token data.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenError {
    /// The bytes are corrupt or truncated.
    Corrupt(String),
    Column(ColumnProblem),
    /// No `input_ids` column: the text is not tokenized yet (a dataset that a collator or a
    /// later `map` tokenizes). Not corrupt: there are no token ids to check. The columns it has
    /// (the first 20).
    NotTokenized(Vec<String>),
}

impl TokenError {
    /// The error of a file without `input_ids`, from the names of its columns.
    pub(super) fn not_tokenized<'a>(names: impl Iterator<Item = &'a str>) -> TokenError {
        TokenError::NotTokenized(names.take(20).map(str::to_string).collect())
    }
}

impl From<IpcError> for TokenError {
    fn from(e: IpcError) -> Self {
        TokenError::Corrupt(e.0)
    }
}

/// The owned columns of a batch of JSONL or Parquet rows.
#[derive(Default)]
pub(super) struct OwnedBatch {
    pub(super) present: [bool; NCOLS],
    pub(super) list: [bool; NCOLS],
    pub(super) values: [Vec<i64>; NCOLS],
    pub(super) offsets: [Vec<usize>; NCOLS],
    pub(super) label: Option<Vec<i64>>,
    pub(super) images: Option<Vec<u64>>,
    pub(super) rows: usize,
}

impl OwnedBatch {
    pub(super) fn clear(&mut self) {
        for i in 0..NCOLS {
            self.values[i].clear();
            self.offsets[i].clear();
            self.offsets[i].push(0);
        }
        if let Some(l) = &mut self.label {
            l.clear();
        }
        if let Some(i) = &mut self.images {
            i.clear();
        }
        self.rows = 0;
    }

    pub(super) fn emit(&self, first_row: u64, sink: &mut dyn FnMut(&TokenBatch<'_>)) {
        let col = |i: usize| {
            self.present[i].then(|| Col {
                values: Values::View(TensorView::of_i64(&self.values[i])),
                offsets: self.list[i].then(|| self.offsets[i].clone()),
            })
        };
        sink(&TokenBatch {
            first_row,
            rows: self.rows,
            cols: std::array::from_fn(col),
            label: self.label.as_ref().map(|l| Col {
                values: Values::View(TensorView::of_i64(l)),
                offsets: None,
            }),
            images: self.images.clone(),
        });
    }
}

/// The values of one integer column of a batch.
pub enum Values<'a> {
    /// Borrowed from the file's bytes as stored.
    View(TensorView<'a>),
    /// Converted (JSONL, Parquet, unsigned 32/64-bit Arrow columns).
    Owned(Vec<i64>),
}

impl Values<'_> {
    pub fn view(&self) -> TensorView<'_> {
        match self {
            Values::View(v) => v.clone(),
            Values::Owned(v) => TensorView::of_i64(v),
        }
    }
}

/// One integer column of a batch.
pub struct Col<'a> {
    pub values: Values<'a>,
    /// For a list column, `rows + 1` positions in `values` where each row starts (and the
    /// last ends); `None` for one value per row.
    pub offsets: Option<Vec<usize>>,
}

impl Col<'_> {
    /// The length of row `r` (1 for a scalar column).
    pub fn row_len(&self, r: usize) -> usize {
        match &self.offsets {
            Some(o) => o[r + 1] - o[r],
            None => 1,
        }
    }
}

/// A column that is not what a token dataset needs there: a float, a string, a ragged list.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnProblem {
    pub column: String,
    /// What the column holds (`list<float>`, `a nested list`).
    pub holds: String,
    /// Floating-point numbers (an id column stored as floats), rather than another shape.
    pub float: bool,
}
