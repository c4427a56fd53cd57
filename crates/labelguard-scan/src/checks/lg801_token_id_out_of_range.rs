//! LG801 token-id-out-of-range: `input_ids` at or beyond the embedding's rows, or negative.
//! Documentation: `labelguard_core::rules::lg801_token_id_out_of_range`.

use super::token_rows::Tally;
use labelguard_core::model::ModelSpec;
use labelguard_core::rules::LG801;
use labelguard_core::{Finding, Verdict};

/// How a token table sized by `--vocab-size` names its source (`ModelSpec::embedding_source`),
/// which the message repeats (written by `analyze::ctx::with_vocab_size`).
pub(crate) const SET_BY_FLAG: &str = "set by --vocab-size";

/// The finding for the ids of `tally` outside `[0, rows)` (`rows` unknown without a model).
pub fn finding(t: &Tally, rows: Option<u64>, spec: Option<&ModelSpec>, split: &str) -> Finding {
    let top = t.max().unwrap_or(0);
    let negative = t.values.keys().next().is_some_and(|&v| v < 0);
    // Under --vocab-size the table's size is the flag's: the message says so.
    let given = spec
        .and_then(|s| s.embedding_source.as_deref())
        .filter(|s| s.starts_with(SET_BY_FLAG))
        .map_or(String::new(), |s| format!(" {s}"));
    let message = match rows {
        Some(n) => format!(
            "{} of input_ids {} outside [0, {n}) of the embedding{given} ({}): largest {top}",
            t.counted("token id"),
            labelguard_core::finding::is_are(t.count),
            t.rows_text(split),
        ),
        None => format!(
            "{} of input_ids {} negative ({})",
            t.counted("token id"),
            labelguard_core::finding::is_are(t.count),
            t.rows_text(split),
        ),
    };
    let tokenizer_len = spec.and_then(|s| s.tokenizer.as_ref()).map(|t| t.len);
    let hint = match (rows, tokenizer_len) {
        _ if negative && top < 0 => {
            "negative ids are padding written by hand (-1, -100 copied from the labels): nn.Embedding has no row for them".to_string()
        }
        (Some(n), Some(len)) if len > n => format!(
            "the tokenizer has {len} tokens but the embedding {n} rows: tokens were added without resizing the model"
        ),
        (Some(_), _) => "ids from another tokenizer, or tokens added to the tokenizer but not to the model".to_string(),
        (None, _) => "scan with --model MODEL_DIR or --vocab-size N to check the ids against the vocabulary".to_string(),
    };
    let fix = if negative && top < 0 {
        "pad input_ids with tokenizer.pad_token_id (and mask the padding in attention_mask), never with a negative id".to_string()
    } else {
        "model.resize_token_embeddings(len(tokenizer)) after adding tokens, or tokenize with the model's own tokenizer".to_string()
    };
    t.evidence(
        Finding::new(&LG801, Verdict::DeviceAssert, message)
            .hint(hint)
            .fix(fix),
    )
}
