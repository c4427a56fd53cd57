//! LG803 label-padding-not-ignored: negative labels other than the ignore index.
//! Documentation: `labelguard_core::rules::lg803_label_padding_not_ignored`.

use super::token_rows::Tally;
use labelguard_core::rules::LG803;
use labelguard_core::{Finding, Verdict};

pub fn finding(t: &Tally, column: &str, ignore_index: i64, split: &str) -> Finding {
    let shown: Vec<String> = t.values.keys().take(5).map(i64::to_string).collect();
    let message = format!(
        "{} of {column} {} negative ({}) but not the ignore index {ignore_index} ({})",
        t.counted("label"),
        labelguard_core::finding::is_are(t.count),
        shown.join(", "),
        t.rows_text(split),
    );
    t.evidence(
        Finding::new(&LG803, Verdict::DeviceAssert, message)
            .hint(format!(
                "labels padded or masked with {} instead of {ignore_index}: cross_entropy ignores only ignore_index",
                shown.first().map_or("-1", String::as_str)
            ))
            .fix(format!(
                "pad and mask labels with {ignore_index}: DataCollatorForSeq2Seq(tokenizer, label_pad_token_id={ignore_index}), or labels = [l if l >= 0 else {ignore_index} for l in labels]"
            )),
    )
}
