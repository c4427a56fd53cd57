//! Tokenized datasets (LG801-LG808): the files of one split read a batch at a time, each batch
//! checked in one pass per column, the tallies turned into findings at the end. With a model
//! (`--model`) ids, labels, lengths, token types and image placeholders are checked against its
//! tables; without one only what needs no model: negative ids, label padding, fully ignored
//! rows and the attention mask.

use super::ctx::Ctx;
use super::result::{FileKind, FileResult, TokenStats, Unit};
use crate::checks::lg802_token_label_out_of_range::LabelTarget;
use crate::checks::token_rows::{out_of_range, Tally};
use crate::checks::{
    lg801_token_id_out_of_range as lg801, lg802_token_label_out_of_range as lg802,
};
use crate::checks::{lg803_label_padding_not_ignored as lg803, lg804_all_labels_ignored as lg804};
use crate::checks::{
    lg805_sequence_beyond_positions as lg805, lg806_token_type_out_of_range as lg806,
};
use crate::checks::{
    lg807_attention_mask_invalid as lg807, lg808_image_placeholder_mismatch as lg808,
};
use crate::layout::Item;
use labelguard_core::kernels::{scan_int, IntRange};
use labelguard_core::model::ModelSpec;
use labelguard_core::Finding;
use labelguard_formats::read::tokens::{
    read_tokens, TokenBatch, TokenError, TokenFormat, ATTENTION_MASK, COLUMNS, INPUT_IDS, LABELS,
    NCOLS, POSITION_IDS, TOKEN_TYPE_IDS,
};
use std::path::PathBuf;

/// The running checks of one split.
#[derive(Default)]
pub struct TokenChecks {
    spec: Option<ModelSpec>,
    ignore: i64,
    ids: Tally,
    labels_beyond: Tally,
    labels_negative: Tally,
    all_ignored: Tally,
    too_long: Tally,
    /// `position_ids` outside the position table (or negative), and the lowest and largest of
    /// them (the tally keeps only the first distinct values).
    positions: Tally,
    position_extremes: lg805::Extremes,
    types: Tally,
    mask_values: Tally,
    /// Rows of `attention_mask`, `labels`, `token_type_ids`, `position_ids` of another length
    /// than `input_ids`.
    lengths: [Tally; NCOLS],
    images: Tally,
    /// `labels` held one value per row (sequence classification), or the `label` column did.
    per_row_labels: Option<&'static str>,
    /// Rows and tokens read.
    pub rows: u64,
    pub tokens: u64,
}

impl TokenChecks {
    pub fn new(spec: Option<&ModelSpec>, ignore_index: i64) -> TokenChecks {
        TokenChecks {
            spec: spec.cloned(),
            ignore: ignore_index,
            ..TokenChecks::default()
        }
    }

    /// `[0, n)` as an inclusive range (`n` unknown: only negatives are bad).
    fn below(n: Option<u64>, ignore: Option<i64>) -> IntRange {
        IntRange {
            lo: 0,
            hi: n.map_or(i64::MAX, |n| (n.min(i64::MAX as u64) as i64) - 1),
            ignore,
        }
    }

    pub fn batch(&mut self, b: &TokenBatch<'_>) {
        let spec = self.spec.as_ref();
        let first = b.first_row;
        self.rows += b.rows as u64;
        let Some(ids) = &b.cols[INPUT_IDS] else {
            return;
        };
        self.tokens += ids.values.view().numel() as u64;
        let rows = spec.and_then(ModelSpec::token_rows);
        // Gemma3 and PaliGemma replace image placeholders beyond the vocabulary by 0 before the
        // lookup (transformers `modeling_gemma3.py`, `modeling_paligemma.py`:
        // `llm_input_ids[special_image_mask] = 0`): such a placeholder is not out of range.
        let replaced = spec
            .filter(|s| matches!(s.model_type.as_deref(), Some("gemma3" | "paligemma")))
            .and_then(|s| s.image_token_id);
        out_of_range(
            ids,
            COLUMNS[INPUT_IDS],
            first,
            Self::below(rows, None),
            &mut [&mut self.ids],
            |v| (Some(v) != replaced).then_some(0),
        );
        let labels = b.cols[LABELS]
            .as_ref()
            .map(|c| (c, COLUMNS[LABELS]))
            .or(b.label.as_ref().map(|c| (c, "label")));
        if let Some((labels, name)) = labels {
            let per_row = labels.offsets.is_none();
            if per_row {
                self.per_row_labels = Some(name);
            }
            let target = spec.and_then(|s| LabelTarget::of(s, per_row));
            let ignore = self.ignore;
            let range = Self::below(target.map(LabelTarget::size), Some(ignore));
            let stats = scan_int(&labels.values.view(), range);
            if stats.bad > 0 {
                // Negative token labels are padding (LG803); a negative class label is a class
                // outside the head (LG802).
                out_of_range(
                    labels,
                    name,
                    first,
                    range,
                    &mut [&mut self.labels_beyond, &mut self.labels_negative],
                    |v| Some(if v < 0 && !per_row { 1 } else { 0 }),
                );
            }
            if !per_row {
                lg804::scan(labels, first, ignore, stats.ignored, &mut self.all_ignored);
            }
        }
        if let Some(positions) = &b.cols[POSITION_IDS] {
            // Explicit positions are what the table is indexed with: a packed row longer than the
            // table is fine when its positions restart per document.
            let n = spec.and_then(|s| s.max_position_embeddings);
            let range = Self::below(n, None);
            self.position_extremes
                .add(&scan_int(&positions.values.view(), range), range);
            out_of_range(
                positions,
                COLUMNS[POSITION_IDS],
                first,
                range,
                &mut [&mut self.positions],
                |_| Some(0),
            );
        } else if let Some(max_len) = spec.and_then(ModelSpec::max_sequence_len) {
            lg805::scan(ids, first, max_len, &mut self.too_long);
        }
        if let Some(types) = &b.cols[TOKEN_TYPE_IDS] {
            let n = spec.and_then(|s| s.type_vocab_size);
            out_of_range(
                types,
                COLUMNS[TOKEN_TYPE_IDS],
                first,
                Self::below(n, None),
                &mut [&mut self.types],
                |_| Some(0),
            );
        }
        if let Some(mask) = &b.cols[ATTENTION_MASK] {
            out_of_range(
                mask,
                COLUMNS[ATTENTION_MASK],
                first,
                Self::below(Some(2), None),
                &mut [&mut self.mask_values],
                |_| Some(0),
            );
        }
        for c in [ATTENTION_MASK, LABELS, TOKEN_TYPE_IDS, POSITION_IDS] {
            if c == LABELS && !lg807::labels_follow_inputs(spec) {
                continue;
            }
            if let Some(other) = &b.cols[c] {
                lg807::lengths(ids, other, COLUMNS[c], first, &mut self.lengths[c]);
            }
        }
        if let (Some(images), Some(token)) = (&b.images, spec.and_then(|s| s.image_token_id)) {
            let per_image = spec.and_then(|s| s.tokens_per_image);
            lg808::scan(ids, images, first, token, per_image, &mut self.images);
        }
    }

    /// The findings of the split `split`.
    /// The rows and tokens read, and the vocabulary the ids were checked against.
    pub(crate) fn stats(&self, ctx: &Ctx<'_>) -> TokenStats {
        TokenStats::one(self.tokens, self.rows, 0, ctx.given_vocabulary())
    }

    pub fn findings(&self, split: &str) -> Vec<Finding> {
        let spec = self.spec.as_ref();
        let mut out = Vec::new();
        if !self.ids.is_empty() {
            out.push(lg801::finding(
                &self.ids,
                spec.and_then(ModelSpec::token_rows),
                spec,
                split,
            ));
        }
        let labels = self.per_row_labels.unwrap_or(COLUMNS[LABELS]);
        if !self.labels_beyond.is_empty() {
            if let Some(target) =
                spec.and_then(|s| LabelTarget::of(s, self.per_row_labels.is_some()))
            {
                out.push(lg802::finding(&self.labels_beyond, labels, target, split));
            }
        }
        if !self.labels_negative.is_empty() {
            out.push(lg803::finding(
                &self.labels_negative,
                labels,
                self.ignore,
                split,
            ));
        }
        if !self.all_ignored.is_empty() {
            out.push(lg804::finding(&self.all_ignored, self.ignore, split));
        }
        if let (false, Some(s)) = (self.too_long.is_empty(), spec) {
            let max_len = s.max_sequence_len().unwrap_or(0);
            out.push(lg805::finding(&self.too_long, max_len, s, split));
        }
        if !self.positions.is_empty() {
            out.push(lg805::positions_finding(
                &self.positions,
                &self.position_extremes,
                spec,
                split,
            ));
        }
        if !self.types.is_empty() {
            out.push(lg806::finding(
                &self.types,
                spec.and_then(|s| s.type_vocab_size),
                split,
            ));
        }
        if !self.mask_values.is_empty() {
            out.push(lg807::values(&self.mask_values, split));
        }
        for c in [ATTENTION_MASK, LABELS, TOKEN_TYPE_IDS, POSITION_IDS] {
            if !self.lengths[c].is_empty() {
                out.push(lg807::length_mismatch(&self.lengths[c], COLUMNS[c], split));
            }
        }
        if let (false, Some(token)) = (self.images.is_empty(), spec.and_then(|s| s.image_token_id))
        {
            let per_image = spec.and_then(|s| s.tokens_per_image);
            out.push(lg808::finding(&self.images, token, per_image, split));
        }
        out
    }
}

/// A file of a split that cannot be read: the finding naming it.
fn file_problem(path: &std::path::Path, e: TokenError) -> Finding {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match e {
        TokenError::Corrupt(m) => crate::checks::lg602_corrupt_file::corrupt_table(format!(
            "{file}: {}",
            labelguard_core::clip::echo(&m)
        )),
        TokenError::Column(p) => crate::checks::token_rows::token_column(&file, &p),
        TokenError::NotTokenized(columns) => {
            crate::checks::lg817_token_ids_unchecked::not_tokenized(&file, &columns)
        }
    }
}

/// Checks the token data of `files` (one split, in row order).
pub(crate) fn token_files(
    item: &Item,
    files: &[PathBuf],
    format: TokenFormat,
    ctx: &Ctx<'_>,
) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Table);
    r.unit = Unit::Samples;
    let mut checks = TokenChecks::new(ctx.model, ctx.opts.ignore_index);
    for path in files {
        let before = checks.rows;
        match read_tokens(path, format, before, &mut |b| checks.batch(b)) {
            Ok(_) => {}
            Err(e) => {
                r.findings.push(file_problem(path, e));
                break;
            }
        }
    }
    r.shape = Some(vec![checks.rows as usize]);
    r.elements = checks.rows;
    r.tokens = checks.stats(ctx);
    r.findings.extend(checks.findings(&item.split));
    r
}
