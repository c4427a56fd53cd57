//! LG807 attention-mask-invalid: `attention_mask` values other than 0/1, and rows whose length
//! differs from their `input_ids` row (`attention_mask`, `labels`, `token_type_ids`).
//! Documentation: `labelguard_core::rules::lg807_attention_mask_invalid`.

use super::token_rows::Col;
use super::token_rows::Tally;
use labelguard_core::rules::LG807;
use labelguard_core::{Finding, Verdict};

/// Adds the rows of `other` (a list column named `name`) whose length is not their `ids`
/// row's; the value recorded is the row's length.
pub fn lengths(ids: &Col<'_>, other: &Col<'_>, name: &str, first_row: u64, t: &mut Tally) {
    let (Some(a), Some(b)) = (&ids.offsets, &other.offsets) else {
        return;
    };
    for (row, (x, y)) in a.windows(2).zip(b.windows(2)).enumerate() {
        let (n, m) = (x[1] - x[0], y[1] - y[0]);
        if n != m {
            t.add(name, first_row + row as u64, None, m as i64);
        }
    }
}

/// Model types whose `labels` are a target sequence of its own length (encoder-decoder models,
/// transformers' `is_encoder_decoder`): their rows are not compared with `input_ids`.
const ENCODER_DECODER: &[&str] = &[
    "t5",
    "mt5",
    "umt5",
    "longt5",
    "bart",
    "mbart",
    "pegasus",
    "pegasus_x",
    "marian",
    "led",
    "blenderbot",
    "blenderbot-small",
    "m2m_100",
    "nllb-moe",
    "fsmt",
    "prophetnet",
    "bigbird_pegasus",
    "switch_transformers",
    "plbart",
    "whisper",
    "speech_to_text",
    "encoder-decoder",
];

/// Whether `labels` rows must be as long as `input_ids` rows: a model is known and its labels
/// are per input token (not an encoder-decoder's target sequence).
pub fn labels_follow_inputs(spec: Option<&labelguard_core::model::ModelSpec>) -> bool {
    spec.is_some_and(|s| {
        !s.is_encoder_decoder
            && !s
                .model_type
                .as_deref()
                .is_some_and(|m| ENCODER_DECODER.contains(&m))
    })
}

/// The finding for mask values other than 0/1.
pub fn values(t: &Tally, split: &str) -> Finding {
    let shown: Vec<String> = t.values.keys().take(5).map(i64::to_string).collect();
    let message = format!(
        "{} of attention_mask {} not 0 or 1 ({}; {})",
        t.counted("value"),
        labelguard_core::finding::is_are(t.count),
        shown.join(", "),
        t.rows_text(split),
    );
    t.evidence(
        Finding::new(&LG807, Verdict::Silent, message)
            .hint("transformers turns the mask into an additive bias (1 - mask) * min: a 2 becomes a large positive bias, a silently wrong attention")
            .fix("build the mask with the tokenizer (return_attention_mask=True): 1 for tokens, 0 for padding"),
    )
}

/// The finding for rows of `column` whose length differs from `input_ids`'.
pub fn length_mismatch(t: &Tally, column: &str, split: &str) -> Finding {
    let message = format!(
        "{} of {column} {} not as long as their input_ids row ({})",
        labelguard_core::finding::count(t.rows, "row"),
        labelguard_core::finding::is_are(t.rows),
        t.rows_text(split),
    );
    let mut f = t.evidence(
        Finding::new(&LG807, Verdict::Error, message)
            .hint("columns padded or truncated separately: the collator fails to stack them, or the loss and the mask fall on the wrong tokens")
            .fix("pad and truncate every column together (tokenizer(..., truncation=True, max_length=N, padding=...), DataCollatorWithPadding)"),
    );
    f.values.clear();
    f
}
