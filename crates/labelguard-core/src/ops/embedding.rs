//! `embedding` (torch/nn/functional.py, aten/src/ATen/native/Embedding.cpp): the padding_idx
//! assertions of the Python wrapper, then `index_select` on the table's rows.

use super::common::*;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::rules::*;

pub fn embedding(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let weight = call.tensor("weight");
    let rows = match (weight, call.opt_int("num_embeddings")) {
        (Some(w), Some(n)) if w.dim() >= 1 && w.shape()[0] as i64 != n => {
            return vec![Finding::new(
                &LG208,
                Verdict::Error,
                format!("num_embeddings={n} but weight has {} rows", w.shape()[0]),
            )
            .fix("give either the weight tensor or num_embeddings, consistently")]
        }
        (Some(w), _) => w.shape().first().map(|&n| n as i64),
        (None, Some(n)) if n >= 0 => Some(n),
        (None, Some(n)) => {
            return vec![Finding::new(&LG208, Verdict::Error, format!("num_embeddings={n} is negative"))
                .fix("num_embeddings is the number of rows of the table")]
        }
        (None, None) => {
            return vec![Finding::new(
                &LG208,
                Verdict::Error,
                "embedding needs the table: a tensor named 'weight', or --arg num_embeddings=N",
            )
            .fix("pass the embedding's weight, or num_embeddings=model.get_input_embeddings().num_embeddings")]
        }
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
    if let Some(w) = weight {
        if w.dim() != 2 {
            return vec![Finding::new(
                &LG210,
                Verdict::Error,
                format!(
                    "weight of shape {}: 'weight' must be 2-D",
                    shape_str(w.shape())
                ),
            )
            .fix("the table is [num_embeddings, embedding_dim]")];
        }
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
    index_range(
        input,
        "input",
        n,
        &LG401,
        Verdict::DeviceAssert,
        "the embedding table",
        format!(
            "keep ids in [0, {}]: after adding tokens call model.resize_token_embeddings(len(tokenizer)); truncate to the maximum length; replace -100 with pad_token_id in input_ids",
            n as i64 - 1
        ),
    )
    .into_iter()
    .collect()
}
