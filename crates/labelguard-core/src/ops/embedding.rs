//! `embedding` (torch/nn/functional.py, aten/src/ATen/native/Embedding.cpp): the padding_idx
//! assertions of the Python wrapper, then `index_select` on the table's rows. The cause of an
//! out-of-range id is read from the evidence: a 1- or 2-row table is a token type table, ids
//! counting `0..L-1` (or from padding_idx + 1) along the last dimension are positions.

use super::dtypes::*;
use super::index_range::*;
use super::indexing::{label_set_cause, stray_labels};
use super::positions::position_cause;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::kernels::int_histogram;
use crate::rule::Rule;
use crate::rules::*;
use crate::tensor::TensorView;

/// The number of rows of the table, from `weight` or `num_embeddings` (None for a 0-d weight).
pub fn table_rows(call: &Call<'_>) -> Result<Option<i64>, Finding> {
    match (call.tensor("weight"), call.opt_int("num_embeddings")) {
        (Some(w), Some(n)) if w.dim() >= 1 && w.shape()[0] as i64 != n => Err(Finding::new(
            &LG208,
            Verdict::Error,
            format!("num_embeddings={n} but weight has {} rows", w.shape()[0]),
        )
        .fix("give either the weight tensor or num_embeddings, consistently")),
        (Some(w), _) => Ok(w.shape().first().map(|&n| n as i64)),
        (None, Some(n)) if n >= 0 => Ok(Some(n)),
        (None, Some(n)) => Err(Finding::new(&LG208, Verdict::Error, format!("num_embeddings={n} is negative"))
            .fix("num_embeddings is the number of rows of the table")),
        (None, None) => Err(Finding::new(
            &LG208,
            Verdict::Error,
            "the op needs the table: a tensor named 'weight', or --arg num_embeddings=N",
        )
        .fix("pass the embedding's weight, or num_embeddings=model.get_input_embeddings().num_embeddings")),
    }
}

/// LG210 for a table that is not 2-D.
pub fn weight_rank(shape: &[usize]) -> Finding {
    Finding::new(
        &LG210,
        Verdict::Error,
        format!("weight of shape {}: 'weight' must be 2-D", shape_str(shape)),
    )
    .fix("the table is [num_embeddings, embedding_dim]")
}

pub fn embedding(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let weight = call.tensor("weight");
    let rows = match table_rows(call) {
        Ok(r) => r,
        Err(f) => return vec![f],
    };
    if let Some(pad) = call.opt_int("padding_idx") {
        let Some(n) = rows else {
            return vec![Finding::new(
                &LG210,
                Verdict::Error,
                "weight is 0-d: it must be 2-D [num_embeddings, embedding_dim]",
            )
            .fix("pass the embedding table of shape [num_embeddings, embedding_dim]")];
        };
        if (pad > 0 && pad >= n) || (pad < 0 && pad < -n) {
            return vec![Finding::new(
                &LG208,
                Verdict::Error,
                format!("padding_idx={pad}: Padding_idx must be within num_embeddings ({n})"),
            )
            .fix(format!("use a padding_idx in [-{n}, {}]", n - 1))];
        }
    }
    if let Some(w) = weight.filter(|w| w.dim() != 2) {
        return vec![weight_rank(w.shape())];
    }
    if let Some(f) = index_dtype(
        input,
        "input",
        &[DType::I64, DType::I32],
        format!(
            "input is {}: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int",
            input.dtype()
        ),
    ) {
        return vec![f];
    }
    let n = rows.unwrap_or(0) as usize;
    if n == 0 && input.numel() > 0 {
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            "the embedding table has 0 rows: index_select(): self indexing axis dim should be positive",
        )
        .fix("the table is empty: check num_embeddings (vocabulary size) of the model")];
    }
    embedding_ids(input, "input", n, &LG401, "the embedding table")
        .into_iter()
        .collect()
}

/// The range check of ids into a table of `rows` rows, with the cause read from the evidence:
/// `rule` (LG401, LG412) unless the table or the ids say token types (LG414) or positions (LG415).
pub fn embedding_ids(
    ids: &TensorView<'_>,
    name: &str,
    rows: usize,
    rule: &'static Rule,
    what: &str,
) -> Option<Finding> {
    let last = rows as i64 - 1;
    let generic = format!(
        "keep ids in [0, {last}]: after adding tokens call model.resize_token_embeddings(len(tokenizer)); truncate to the maximum length; replace -100 with pad_token_id in input_ids"
    );
    let f = index_range(ids, name, rows, rule, Verdict::DeviceAssert, what, generic)?;
    if let Some(positions) = position_cause(&f, ids, rows) {
        return Some(positions);
    }
    if rows <= 2 && rule.code == LG401.code {
        let hint = format!("a table of {rows} row{} is a token type (segment) table: token_type_ids hold values beyond type_vocab_size={rows}", if rows == 1 { "" } else { "s" });
        let fix = format!("pass the token_type_ids the model's tokenizer makes (0{}), or none (RoBERTa-style models have type_vocab_size=1); or set type_vocab_size to the number of segments", if rows == 2 { " and 1" } else { " only" });
        return Some(with_cause(f, &LG414, hint, fix));
    }
    if rows < VOCABULARY_ROWS && !token_sequences(ids) {
        return Some(class_table_cause(f, ids, rows as i64, rule));
    }
    Some(f)
}

/// Whether `ids` are sequences of tokens (`[batch, length]` or longer, with more than one id per
/// sequence): a small table read that way is a vocabulary all the same (a character-level
/// model's 65 rows, CLIP's position table), whose fix is the tokenizer's, not a class count's.
fn token_sequences(ids: &TensorView<'_>) -> bool {
    ids.dim() >= 2 && ids.shape().last().is_some_and(|&n| n > 1)
}

/// A table of fewer rows is read as a table of classes or categories (a class-conditioning
/// embedding, a tabular model's category embedding), not a language model's vocabulary: its ids
/// get the causes of class labels, never the tokenizer's fix (a transformers model's word
/// table gets that from the library table, `python/labelguard/_libraries.py`).
const VOCABULARY_ROWS: usize = 1000;

/// The cause of ids beyond a class or category table of `rows` rows, from their values.
fn class_table_cause(f: Finding, ids: &TensorView<'_>, rows: i64, rule: &'static Rule) -> Finding {
    let generic = format!(
        "keep ids in [0, {}]: the table has one row per class or category (num_embeddings={rows})",
        rows - 1
    );
    let Some(h) = int_histogram(ids, 4096) else {
        return f.fix(generic);
    };
    let bad: Vec<i64> = h.keys().copied().filter(|&v| v < 0 || v >= rows).collect();
    let outside: u64 = bad.iter().map(|v| h[v]).sum();
    let inside: u64 = h.values().sum::<u64>() - outside;
    let categories = rule.code == LG401.code;
    if categories && bad == [-1] {
        let (hint, fix) = lg421_unseen_category_id::hint_fix(rows, true);
        return with_cause(f, &LG421, hint, fix);
    }
    match label_set_cause(&h, rows, true) {
        Some((cause, ..)) if cause.code == LG416.code => with_cause(
            f,
            rule,
            format!("the ids reach {rows} on a table of {rows} rows: one class more than the table, such as the null (unconditional) class of classifier-free guidance or the code of an 'unknown' category, has no row"),
            format!("give the table one more row: num_embeddings={} (the last id is the null or unknown class)", rows + 1),
        ),
        Some((_, hint, fix)) => with_cause(f, rule, hint, fix),
        // Weaker evidence than a -1 code: the hint says unseen categories, the rule stays.
        None if categories && bad.iter().all(|&v| v > rows) && bad.len() <= 3 && inside > outside => {
            let (hint, fix) = lg421_unseen_category_id::hint_fix(rows, false);
            with_cause(f, rule, hint, fix)
        }
        None => match stray_labels(&h, rows) {
            Some((hint, fix)) => with_cause(f, rule, hint, fix),
            None => f.fix(generic),
        },
    }
}
