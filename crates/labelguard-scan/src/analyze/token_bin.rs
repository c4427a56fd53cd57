//! Flat token files (nanoGPT's `train.bin`, a Megatron `.bin` + `.idx`): every id against the
//! vocabulary (LG801), which comes from `--vocab-size`, else `--model` (the embedding's rows),
//! else nanoGPT's `meta.pkl` (the finding names the one used, and a `meta.pkl` or model it
//! overrode); without any the ids are read and LG817 says they were not checked. The file
//! is streamed a range at a time on the scan's threads with the core's range kernel
//! ([`labelguard_formats::read::token_bin::scan_ranges`]), so memory stays a few ranges whatever its size.

use super::ctx::Ctx;
use super::result::{FileKind, FileResult, TokenStats, Unit, Vocabulary};
use crate::checks::lg602_corrupt_file::corrupt_text;
use crate::checks::token_rows::Tally;
use crate::checks::token_stream::{out_of_vocabulary, Placed};
use crate::layout::Item;
use labelguard_core::kernels::IntRange;
use labelguard_core::model::ModelSpec;
use labelguard_core::DType;
use labelguard_formats::read::token_bin::{
    meta_vocab_size, read_megatron_index, scan_ranges, TokenBin,
};

/// Where a token's position falls: its sequence and offset in it (Megatron), or nothing
/// (nanoGPT's one stream). Sequences are `(first token, tokens, number)` sorted by first token.
fn place(seqs: &[(u64, u64, usize)], pos: u64) -> Option<(u64, usize)> {
    let i = seqs.partition_point(|s| s.0 <= pos).checked_sub(1)?;
    let (first, len, n) = seqs[i];
    (pos < first + len).then_some((n as u64, (pos - first) as usize))
}

/// Checks the token file of `item`.
pub(crate) fn token_bin_file(item: &Item, kind: &TokenBin, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Array);
    r.unit = Unit::Samples;
    let Some(path) = item.source.path() else {
        r.findings
            .push(crate::checks::lg601_unreadable_file::local_only(
                "a token file",
            ));
        return r;
    };
    let (file, len) = match labelguard_formats::source::file::open_regular(path) {
        Ok(f) => f,
        Err(f) => {
            r.findings.push(f);
            return r;
        }
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut vocab: Option<(u64, String)> = match ctx.opts.vocab_size {
        Some(n) if ctx.opts.model.is_some() => {
            Some((n, format!("--vocab-size {n}, over --model's")))
        }
        Some(n) => Some((n, format!("--vocab-size {n}"))),
        None => ctx.model.and_then(|m: &ModelSpec| {
            let rows = m.token_rows()?;
            Some((
                rows,
                m.token_rows_described().unwrap_or_default() + " of --model",
            ))
        }),
    };
    let mut missing = "no --vocab-size or --model was given";
    let (dtype, end, seqs, documents) = match kind {
        TokenBin::NanoGpt { meta } => {
            if len == 0 {
                r.findings
                    .push(crate::checks::lg603_empty_file::empty_file());
                return r;
            }
            if !len.is_multiple_of(2) {
                r.findings.push(corrupt_text(
                    "nanoGPT token file",
                    &format!("{len} bytes is not a whole number of uint16 ids: np.memmap(dtype=np.uint16) raises on it"),
                ));
                return r;
            }
            missing = "no --vocab-size or --model was given and no meta.pkl is beside it";
            // meta.pkl gives the vocabulary without --model; under --vocab-size it is read too,
            // so that the finding says which of the two it was checked against.
            if vocab.is_none() || ctx.opts.vocab_size.is_some() {
                if let Some(m) = meta {
                    match meta_vocab_size(m) {
                        Ok(Some(n)) => match &mut vocab {
                            None => vocab = Some((n, "vocab_size of meta.pkl".into())),
                            Some((given, source)) if *given != n => {
                                source.push_str(&format!(", over meta.pkl's vocab_size {n}"))
                            }
                            Some(_) => {}
                        },
                        Ok(None) => missing =
                            "no --vocab-size or --model was given and meta.pkl has no vocab_size",
                        Err(e) => {
                            r.findings.push(corrupt_text("meta.pkl", &e));
                            missing =
                                "no --vocab-size or --model was given and meta.pkl cannot be read";
                        }
                    }
                }
            }
            (DType::U16, len / 2, None, 0)
        }
        TokenBin::Megatron { index } => {
            let idx = match read_megatron_index(index, len) {
                Ok(i) => i,
                Err(m) => {
                    let idx = index
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    r.findings
                        .push(corrupt_text(&format!("Megatron index {idx}"), &m));
                    return r;
                }
            };
            let mut seqs: Vec<(u64, u64, usize)> = idx
                .sequences
                .iter()
                .enumerate()
                .map(|(n, &(first, len))| (first, len, n))
                .collect();
            seqs.sort_unstable();
            (idx.dtype, idx.end, Some(seqs), idx.documents)
        }
    };
    let range = IntRange {
        lo: 0,
        hi: vocab
            .as_ref()
            .map_or(i64::MAX, |(n, _)| (*n).min(i64::MAX as u64) as i64 - 1),
        ignore: None,
    };
    let mut tally = Tally::default();
    let scanned = scan_ranges(&file, dtype, end, range, |pos, v| match &seqs {
        None => tally.add(&name, pos, None, v),
        // A token outside every sequence (a gap of the .bin) is never read by Megatron.
        Some(s) => {
            if let Some((seq, offset)) = place(s, pos) {
                tally.add(&name, seq, Some(offset), v)
            }
        }
    });
    let stats = match scanned {
        Ok(s) => s,
        Err(m) => {
            r.findings
                .push(crate::checks::lg602_corrupt_file::truncated(&m));
            return r;
        }
    };
    r.shape = Some(vec![end as usize]);
    r.elements = end;
    // Checked against what the settings give, else against meta.pkl's vocab_size.
    let checked = vocab.as_ref().map(|(n, _)| {
        ctx.given_vocabulary().unwrap_or(Vocabulary {
            size: *n,
            source: "meta.pkl".into(),
        })
    });
    let sequences = seqs.as_ref().map_or(0, |s| s.len() as u64);
    r.tokens = TokenStats::one(end, sequences, documents, checked);
    let placed = if seqs.is_some() {
        Placed::Sequence
    } else {
        Placed::Position
    };
    if !tally.is_empty() {
        let vocab = vocab.as_ref().map(|(n, s)| (*n, s.as_str()));
        r.bad = tally.count;
        r.findings
            .push(out_of_vocabulary(&tally, &name, vocab, placed));
    }
    if vocab.is_none() && end > 0 {
        r.findings
            .push(crate::checks::lg817_token_ids_unchecked::finding(
                &name, end, stats.max, missing,
            ));
    }
    r
}
