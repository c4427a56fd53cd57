//! LG806 token-type-out-of-range: `token_type_ids` outside the token-type table.
//! Documentation: `labelguard_core::rules::lg806_token_type_out_of_range`.

use super::token_rows::Tally;
use labelguard_core::rules::LG806;
use labelguard_core::{Finding, Verdict};

/// The finding for the values of `tally` outside `[0, types)` (`None`: only negatives known).
pub fn finding(t: &Tally, types: Option<u64>, split: &str) -> Finding {
    let top = t.max().unwrap_or(0);
    let bound = match types {
        Some(n) => format!("outside [0, {n}) of the model's type_vocab_size"),
        None => "negative".to_string(),
    };
    let message = format!(
        "{} of token_type_ids {} {bound} ({}): largest {top}",
        t.counted("value"),
        labelguard_core::finding::is_are(t.count),
        t.rows_text(split),
    );
    let hint = match types {
        Some(1) => "the model has one token type (RoBERTa-style): BERT-style pair encodings (0 then 1) do not fit",
        _ => "token types from another model's tokenizer",
    };
    t.evidence(
        Finding::new(&LG806, Verdict::DeviceAssert, message)
            .hint(hint)
            .fix("tokenize with the model's own tokenizer (return_token_type_ids=False for RoBERTa-style models), or drop the column: ds.remove_columns('token_type_ids')"),
    )
}
