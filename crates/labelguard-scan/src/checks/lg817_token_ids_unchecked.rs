//! LG817 token-ids-unchecked: a flat token file whose vocabulary nothing states.
//! Documentation: `labelguard_core::rules::lg817_token_ids_unchecked`.

use labelguard_core::rules::LG817;
use labelguard_core::Finding;
use labelguard_formats::problem::problem;

/// The finding for the flat token file `file` of `tokens` ids (the largest `max`) read without
/// a vocabulary to check them against; `why` says where one was looked for.
pub fn finding(file: &str, tokens: u64, max: Option<i64>, why: &str) -> Finding {
    let largest = max.map_or(String::new(), |m| format!(" (largest {m})"));
    problem(
        &LG817,
        format!(
            "the {} of {file}{largest} were not checked against a vocabulary: {why}",
            labelguard_core::finding::count(tokens, "token id")
        ),
    )
    .hint("the ids index the model's nn.Embedding: one at or beyond its rows is a device-side assert on CUDA (LG801)")
    .fix("scan with --model MODEL_DIR (the model the data trains), or keep the meta.pkl that prepare.py wrote beside the files")
}
