//! What the token checks (LG801-LG808) share: a [`Tally`] of the offending values of a
//! dataset, with the first rows where they are, and the one-pass range test over a batch's
//! column that finds them (the core's vectorised `scan_int` first; the row-by-row pass only
//! when it found something).

use labelguard_core::finding::{count, ValueCount};
use labelguard_core::kernels::{scan_int, IntRange};
use labelguard_core::{Finding, Location, TensorView};
pub use labelguard_formats::read::tokens::{Col, ColumnProblem, Values};
use std::collections::BTreeMap;

/// The most distinct offending values counted.
const MAX_VALUES: usize = 64;
/// The most rows listed in a message.
const SHOWN_ROWS: usize = 5;

/// Offending elements (or rows) of one kind over the whole dataset.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Offending elements.
    pub count: u64,
    /// Rows with at least one.
    pub rows: u64,
    /// The first offending elements: column, `[row, position]` (or `[row]`), value.
    pub first: Vec<Location>,
    /// Offending values with their counts (the first [`MAX_VALUES`] distinct ones).
    pub values: BTreeMap<i64, u64>,
    /// The first offending rows.
    pub first_rows: Vec<u64>,
    last_row: Option<u64>,
}

impl Tally {
    /// Records one offending element of `column` at `row` (and `pos` in a list row).
    pub fn add(&mut self, column: &str, row: u64, pos: Option<usize>, value: i64) {
        self.count += 1;
        if self.last_row != Some(row) {
            self.rows += 1;
            self.last_row = Some(row);
            if self.first_rows.len() < SHOWN_ROWS {
                self.first_rows.push(row);
            }
        }
        if self.first.len() < labelguard_core::finding::MAX_LOCATIONS {
            let mut index = vec![row as usize];
            index.extend(pos);
            self.first.push(Location {
                tensor: column.to_string(),
                index,
                value: value.to_string(),
            });
        }
        if let Some(c) = self.values.get_mut(&value) {
            *c += 1;
        } else if self.values.len() < MAX_VALUES {
            self.values.insert(value, 1);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// `rows 3, 17, 40 and 12 more` (with the split when there is one).
    pub fn rows_text(&self, split: &str) -> String {
        let shown: Vec<String> = self.first_rows.iter().map(u64::to_string).collect();
        let more = self.rows.saturating_sub(shown.len() as u64);
        let rows = if self.rows == 1 { "row" } else { "rows" };
        let split = if split.is_empty() {
            String::new()
        } else {
            format!(" of split '{split}'")
        };
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        format!("{rows} {}{more}{split}", shown.join(", "))
    }

    /// The finding with this tally's evidence attached.
    pub fn evidence(&self, f: Finding) -> Finding {
        let values = self
            .values
            .iter()
            .map(|(v, c)| ValueCount {
                value: v.to_string(),
                count: *c,
            })
            .collect();
        f.evidence(self.first.clone(), self.count, values)
    }

    /// `3 values in 2 rows`.
    pub fn counted(&self, noun: &str) -> String {
        format!("{} in {}", count(self.count, noun), count(self.rows, "row"))
    }

    /// The largest and smallest offending values.
    pub fn max(&self) -> Option<i64> {
        self.values.keys().next_back().copied()
    }
}

/// Values of `col` outside `[lo, hi]` (the `ignore` value excepted), in rows from `first_row`:
/// each goes to the tally of `tallies` that `route` picks (`None`: not counted).
pub fn out_of_range(
    col: &Col<'_>,
    name: &str,
    first_row: u64,
    range: IntRange,
    tallies: &mut [&mut Tally],
    route: impl Fn(i64) -> Option<usize>,
) {
    let view = col.values.view();
    let stats = scan_int(&view, range);
    if stats.bad == 0 {
        return;
    }
    each_row(col, |row, start, end| {
        for i in start..end {
            let v = view.read_i64(i);
            if range.is_bad(v) {
                if let Some(t) = route(v) {
                    let pos = col.offsets.as_ref().map(|_| i - start);
                    tallies[t].add(name, first_row + row as u64, pos, v);
                }
            }
        }
    });
}

/// Whether every value of `view[start..end]` is `v`: one typed loop (which LLVM vectorises) per
/// row instead of a per-element read through the dtype.
pub fn all_equal(view: &TensorView<'_>, start: usize, end: usize, v: i64) -> bool {
    use labelguard_core::DType;
    fn each<const W: usize>(
        b: &[u8],
        start: usize,
        end: usize,
        f: impl Fn([u8; W]) -> bool,
    ) -> bool {
        b.get(start * W..end * W)
            .is_some_and(|s| s.chunks_exact(W).all(|c| f(c.try_into().expect("W bytes"))))
    }
    if !view.is_contiguous() {
        return (start..end).all(|i| view.read_i64(i) == v);
    }
    let b = view.bytes();
    match view.dtype() {
        DType::I64 => each::<8>(b, start, end, |c| i64::from_le_bytes(c) == v),
        DType::I32 => each::<4>(b, start, end, |c| i32::from_le_bytes(c) as i64 == v),
        DType::I16 => each::<2>(b, start, end, |c| i16::from_le_bytes(c) as i64 == v),
        DType::U16 => each::<2>(b, start, end, |c| u16::from_le_bytes(c) as i64 == v),
        DType::I8 => each::<1>(b, start, end, |c| c[0] as i8 as i64 == v),
        DType::U8 => each::<1>(b, start, end, |c| c[0] as i64 == v),
        _ => (start..end).all(|i| view.read_i64(i) == v),
    }
}

/// Calls `f(row, start, end)` for each row's range of values.
pub fn each_row(col: &Col<'_>, mut f: impl FnMut(usize, usize, usize)) {
    match &col.offsets {
        Some(o) => {
            for (row, w) in o.windows(2).enumerate() {
                f(row, w[0], w[1]);
            }
        }
        None => {
            for row in 0..col.values.view().numel() {
                f(row, row, row + 1);
            }
        }
    }
}

/// The finding of a column the token reader found unusable ([`ColumnProblem`]): a column of a
/// tokenized dataset that is not what the model reads (`file` names the file):
/// floats where ids must be integers (an embedding raises on float indices, LG205; a loss on
/// float class targets, LG201), anything else (text, nested lists, no `input_ids`) LG602.
pub fn token_column(file: &str, p: &ColumnProblem) -> Finding {
    use labelguard_core::rules::{LG201, LG205, LG602};
    let column = labelguard_core::clip::echo(&p.column);
    let holds = labelguard_core::clip::echo(&p.holds);
    let labels = column == "labels" || column == "label";
    if p.float {
        let rule = if labels { &LG201 } else { &LG205 };
        let fix = if labels {
            format!(
                "store integer labels: ds = ds.cast_column('{column}', Sequence(Value('int64')))"
            )
        } else {
            format!("store integer ids: ds = ds.cast_column('{column}', Sequence(Value('int64')))")
        };
        return labelguard_formats::problem::problem(rule, format!("{file}: column '{column}' holds floating-point numbers ({holds}); token ids and labels must be integers"))
            .hint("an embedding raises 'Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int'; cross_entropy on float targets reads them as probabilities")
            .fix(fix);
    }
    labelguard_formats::problem::problem(&LG602, format!("{file}: column '{column}' is not a list of integers per row: {holds}"))
        .hint("ragged or nested values (a batch saved as one row, a string column, lists of lists) cannot be collated into a tensor")
        .fix("regenerate the column with the tokenizer: one list of integer ids per row")
}
