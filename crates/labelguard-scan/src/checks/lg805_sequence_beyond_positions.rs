//! LG805 sequence-beyond-positions: rows of `input_ids` longer than the position table, and
//! `position_ids` outside it (packed rows whose positions run on across documents, negatives).
//! Documentation: `labelguard_core::rules::lg805_sequence_beyond_positions`.

use super::token_rows::Col;
use super::token_rows::{each_row, Tally};
use labelguard_core::kernels::{IntRange, IntStats};
use labelguard_core::model::ModelSpec;
use labelguard_core::rules::LG805;
use labelguard_core::{Finding, Severity, Verdict};

/// Adds the rows of `ids` longer than `max_len`.
pub fn scan(ids: &Col<'_>, first_row: u64, max_len: u64, t: &mut Tally) {
    each_row(ids, |row, start, end| {
        if (end - start) as u64 > max_len {
            t.add(
                "input_ids",
                first_row + row as u64,
                None,
                (end - start) as i64,
            );
        }
    });
}

pub fn finding(t: &Tally, max_len: u64, spec: &ModelSpec, split: &str) -> Finding {
    let longest = t.max().unwrap_or(0);
    let offset = if spec.position_offset > 0 {
        format!(
            " (max_position_embeddings {} less the {} positions the model reserves)",
            spec.max_position_embeddings.unwrap_or(0),
            spec.position_offset
        )
    } else {
        String::new()
    };
    let message = format!(
        "{} {} longer than the {max_len} positions of the model{offset} ({}): longest {longest} tokens",
        labelguard_core::finding::count(t.rows, "row"),
        labelguard_core::finding::is_are(t.rows),
        t.rows_text(split),
    );
    let f = Finding::new(&LG805, Verdict::DeviceAssert, message).fix(format!(
        "tokenize with truncation=True, max_length={max_len}, or split long documents into chunks of at most {max_len} tokens"
    ));
    let mut f = t.evidence(by_positions(f, Some(spec)));
    f.values.clear();
    f
}

/// A warning rather than a crash when the model computes its positions (rotary, relative: no
/// table to index); a model that does not say is taken as a table.
fn by_positions(f: Finding, spec: Option<&ModelSpec>) -> Finding {
    if spec.and_then(|s| s.learned_positions).unwrap_or(true) {
        return f;
    }
    Finding {
        verdict: Verdict::Silent,
        ..f.severity(Severity::Warning).hint(
            "positions beyond the trained context: no crash with rotary positions, but the model was not trained on them",
        )
    }
}

/// The lowest negative and the largest too-large position of a dataset.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extremes {
    pub lowest: Option<i64>,
    pub largest: Option<i64>,
}

impl Extremes {
    /// Adds a batch's column, scanned against `range`.
    pub fn add(&mut self, stats: &IntStats, range: IntRange) {
        if stats.bad == 0 {
            return;
        }
        if let Some(min) = stats.min.filter(|&m| m < range.lo) {
            self.lowest = Some(self.lowest.map_or(min, |l| l.min(min)));
        }
        if let Some(max) = stats.max.filter(|&m| m > range.hi) {
            self.largest = Some(self.largest.map_or(max, |l| l.max(max)));
        }
    }
}

/// The finding for `position_ids` outside `[0, max_position_embeddings)` (only negatives
/// without a model): each indexes the position table as given.
pub fn positions_finding(
    t: &Tally,
    extremes: &Extremes,
    spec: Option<&ModelSpec>,
    split: &str,
) -> Finding {
    let table = spec.and_then(|s| s.max_position_embeddings);
    let range = match table {
        Some(n) => format!(
            "outside [0, {n}) of the position table (max_position_embeddings {n}, {})",
            spec.map_or("", |s| s.source.as_str())
        ),
        None => "negative".to_string(),
    };
    let extremes = match (extremes.lowest, extremes.largest) {
        (Some(l), Some(h)) => format!("lowest {l}, largest {h}"),
        (Some(l), None) => format!("lowest {l}"),
        (None, Some(h)) => format!("largest {h}"),
        (None, None) => String::new(),
    };
    let message = format!(
        "{} of position_ids {} {range} ({}): {extremes}",
        t.counted("position"),
        labelguard_core::finding::is_are(t.count),
        t.rows_text(split),
    );
    let fix = match table {
        Some(n) => format!(
            "number positions from 0 within each packed document (restart at every document boundary), keeping them below {n}; or drop position_ids and truncate rows to {n} tokens"
        ),
        None => "positions count from 0: drop the negative padding from position_ids (pad them with 0)".to_string(),
    };
    let f = Finding::new(&LG805, Verdict::DeviceAssert, message)
        .fix(fix)
        .hint("the model looks position_ids up in its position table as given: a position past the table (or below 0) indexes outside it");
    t.evidence(by_positions(f, spec))
}
