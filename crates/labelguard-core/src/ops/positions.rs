//! Position ids read from the evidence: an out-of-range lookup whose ids, row by row along the
//! last dimension, count `s, s+1, ...` is a sequence longer than its position table (LG415).
//! `s` is 0, or `padding_idx + 1` where positions are counted as in transformers'
//! `create_position_ids_from_input_ids` (RoBERTa, XLM-R, ...: padding tokens get `padding_idx`,
//! the others `padding_idx` + their count so far), used by the position embedding and, before it,
//! by `torch.gather` on the token-type buffer (models/roberta/modeling_roberta.py).

use super::index_range::with_cause;
use crate::finding::Finding;
use crate::rules::LG415;
use crate::tensor::TensorView;

/// The largest `padding_idx + 1` tried (RoBERTa's padding_idx is 1).
const MAX_START: i64 = 2;

/// `(s, n)` when every row along the last dimension counts positions from `s`: its non-padding
/// entries are `s, s+1, ...` in order and its padding entries `s - 1` (none when `s` is 0); `n`
/// is the longest count. None for rows shorter than 2 or any other pattern.
fn position_run(ids: &TensorView<'_>) -> Option<(i64, usize)> {
    let l = *ids.shape().last()?;
    if l < 2 || ids.numel() == 0 {
        return None;
    }
    (0..=MAX_START).find_map(|s| {
        let (mut next, mut longest) = (s, 0);
        for (k, o) in ids.offsets().enumerate() {
            if k % l == 0 {
                next = s;
            }
            match ids.read_i64(o) {
                v if v == next => next += 1,
                v if s > 0 && v == s - 1 => {}
                _ => return None,
            }
            longest = longest.max((next - s) as usize);
        }
        (longest >= 2).then_some((s, longest))
    })
}

/// `f` (an out-of-range finding on `ids`, looked up in a table of `rows` rows) as LG415 when the
/// ids are positions that run past the table; None otherwise.
pub(crate) fn position_cause(f: &Finding, ids: &TensorView<'_>, rows: usize) -> Option<Finding> {
    let (s, n) = position_run(ids)?;
    if s > 0 && rows <= 2 {
        return None; // a 1- or 2-row table is a token type table (LG414)
    }
    let end = s + n as i64; // one past the largest position
    if end <= rows as i64 {
        return None;
    }
    let (hint, fix) = if s == 0 {
        (
            format!("the ids are the positions 0..{} of a sequence of {n} tokens, and the table has {rows} rows: the sequence is longer than max_position_embeddings ({rows})", n - 1),
            format!("truncate to {rows} tokens: tokenizer(..., truncation=True, max_length={rows}); or use a model with max_position_embeddings >= {n}"),
        )
    } else {
        let fits = (rows as i64 - s).max(0);
        (
            format!("the ids are the positions {s}..{} of a sequence of {n} tokens, counted from padding_idx + 1 = {s} (RoBERTa-style), and the table has {rows} rows: at most {fits} tokens fit", end - 1),
            format!("truncate to {fits} tokens: tokenizer(..., truncation=True, max_length={fits}); or use a model with max_position_embeddings >= {end}"),
        )
    };
    Some(with_cause(f.clone(), &LG415, hint, fix))
}
