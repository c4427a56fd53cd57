//! Position ids are told apart from other ids only by their pattern (LG415): counted from 0, or
//! from padding_idx + 1 with padding entries at padding_idx (RoBERTa); anything else keeps its
//! own rule.

mod calls;

use calls::*;
use labelguard_core::Value;

fn embedding_code(shape: &[usize], ids: &[i64], rows: i64) -> String {
    let input = i64s(shape, ids);
    let report = run(
        "embedding",
        &[("input", &input)],
        &[("num_embeddings", Value::Int(rows))],
    );
    report.findings[0].code.to_string()
}

#[test]
fn positions_from_zero_and_from_padding_idx_plus_one() {
    assert_eq!(embedding_code(&[1, 5], &[0, 1, 2, 3, 4], 4), "LG415");
    assert_eq!(embedding_code(&[1, 5], &[2, 3, 4, 5, 6], 6), "LG415");
    // padding_idx 0: positions from 1, padding entries 0 (left or right).
    assert_eq!(
        embedding_code(&[2, 4], &[1, 2, 3, 4, 0, 1, 2, 3], 4),
        "LG415"
    );
}

#[test]
fn ids_that_only_look_like_positions_keep_their_rule() {
    // Word ids: not a run.
    assert_eq!(embedding_code(&[1, 5], &[7, 3, 9, 1, 12], 10), "LG401");
    // A run from 5 (not 0, 1 or 2): word ids, not positions.
    assert_eq!(embedding_code(&[1, 5], &[5, 6, 7, 8, 9], 8), "LG401");
    // Token types 0, 0, 0, 1, 2 on a 2-row table: LG414, not positions from 1.
    assert_eq!(embedding_code(&[1, 5], &[0, 0, 0, 1, 2], 2), "LG414");
    // Rows that count from different starts.
    assert_eq!(
        embedding_code(&[2, 4], &[0, 1, 2, 3, 2, 3, 4, 5], 5),
        "LG401"
    );
    // A run inside the table, with an unrelated id past it: the run does not explain it.
    assert_eq!(embedding_code(&[1, 4], &[2, 3, 1, 9], 4), "LG401");
}

#[test]
fn a_gather_along_positions_but_not_across_them() {
    let buffer = i64s(&[1, 6], &[0; 6]);
    let index = i64s(&[1, 5], &[2, 3, 4, 5, 6]);
    let along = run(
        "gather",
        &[("input", &buffer), ("index", &index)],
        &[("dim", Value::Int(1))],
    );
    assert_eq!(along.findings[0].code, "LG415");
    // dim 0 of a [6, 1] table with a [5, 1] index: the run is not along the last dim.
    let column = i64s(&[6, 1], &[0; 6]);
    let index = i64s(&[5, 1], &[2, 3, 4, 5, 6]);
    let across = run(
        "gather",
        &[("input", &column), ("index", &index)],
        &[("dim", Value::Int(0))],
    );
    assert_eq!(across.findings[0].code, "LG402");
}
