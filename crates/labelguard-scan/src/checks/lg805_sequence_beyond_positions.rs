//! LG805 sequence-beyond-positions: rows of `input_ids` longer than the position table.
//! Documentation: `labelguard_core::rules::lg805_sequence_beyond_positions`.

use super::token_rows::Col;
use super::token_rows::{each_row, Tally};
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
    // Computed positions (rotary, relative) do not crash; unknown is taken as a table.
    let learned = spec.learned_positions.unwrap_or(true);
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
    let f = if learned {
        f
    } else {
        Finding {
            verdict: Verdict::Silent,
            ..f.severity(Severity::Warning).hint(
                "positions beyond the trained context: no crash with rotary positions, but the model was not trained on them",
            )
        }
    };
    let mut f = t.evidence(f);
    f.values.clear();
    f
}
