//! The LG801 wording for flat token files (nanoGPT's `train.bin`, Megatron's `.bin` + `.idx`):
//! one stream of ids with no rows, so the offending ids are named by their position in the file
//! (nanoGPT) or by their sequence (Megatron) rather than by a dataset row.
//! Documentation: `labelguard_core::rules::lg801_token_id_out_of_range`.

use super::token_rows::Tally;
use labelguard_core::finding::{count, is_are};
use labelguard_core::rules::LG801;
use labelguard_core::{Finding, Verdict};

/// How the ids of a flat token file are placed: by token position, or by sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placed {
    Position,
    Sequence,
}

/// `positions 3, 17 and 12 more`, from the first places the tally kept.
fn places(t: &Tally, by: Placed) -> String {
    let noun = match (by, t.rows == 1) {
        (Placed::Position, true) => "position",
        (Placed::Position, false) => "positions",
        (Placed::Sequence, true) => "sequence",
        (Placed::Sequence, false) => "sequences",
    };
    let shown: Vec<String> = t.first_rows.iter().map(u64::to_string).collect();
    let more = t.rows.saturating_sub(shown.len() as u64);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    format!("{noun} {}{more}", shown.join(", "))
}

/// The finding for the ids of `t` (of the file `file`) outside `[0, vocab)`, where `vocab`
/// comes from a source named for the message (`vocab_size of meta.pkl`); without a vocabulary,
/// the negative ids.
pub fn out_of_vocabulary(t: &Tally, file: &str, vocab: Option<(u64, &str)>, by: Placed) -> Finding {
    let top = t.max().unwrap_or(0);
    let ids = count(t.count, "token id");
    let are = is_are(t.count);
    let at = places(t, by);
    let (message, hint) = match vocab {
        Some((n, source)) => (
            format!("{ids} of {file} {are} outside [0, {n}) of the vocabulary ({source}): largest {top}, at {at}"),
            format!("the model's nn.Embedding has {n} rows: on CUDA an id at or beyond it is a device-side assert (srcIndex < srcSelectDimSize); the file was tokenized with another tokenizer or vocabulary than the model's"),
        ),
        None => (
            format!("{ids} of {file} {are} negative: at {at}"),
            "nn.Embedding has no row for a negative id: on CUDA a device-side assert (srcIndex < srcSelectDimSize)".to_string(),
        ),
    };
    t.evidence(
        Finding::new(&LG801, Verdict::DeviceAssert, message)
            .hint(hint)
            .fix("re-tokenize the data with the model's tokenizer (the prepare script that wrote the file), or give the model a vocab_size above the largest id"),
    )
}
