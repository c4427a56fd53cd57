//! LG817 token-ids-unchecked: a flat token file whose vocabulary nothing states, or a dataset
//! that is not tokenized yet.
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
    .fix("scan with --vocab-size N (the model's vocab_size) or --model MODEL_DIR (the model the data trains), or keep the meta.pkl that prepare.py wrote beside the files")
}

/// The finding for the dataset file `file` that holds no `input_ids` column (`columns` are the
/// ones it has): raw text that a collator or a later `map` tokenizes. Nothing in it can be
/// checked against the model yet, and a text dataset is not a corrupt one.
pub fn not_tokenized(file: &str, columns: &[String]) -> Finding {
    let columns = columns
        .iter()
        .map(|c| labelguard_core::clip::echo(c))
        .collect::<Vec<_>>();
    problem(
        &LG817,
        format!(
            "{file} has no input_ids column (its columns: {}): the text is not tokenized yet, so neither token ids nor labels were checked",
            columns.join(", ")
        ),
    )
    .hint("a dataset that a data collator or a later .map(tokenizer) tokenizes holds no ids to check before training")
    .fix("scan the tokenized dataset (after .map(tokenize), saved with save_to_disk), or check each batch while training with labelguard.enable() or labelguard run")
}
