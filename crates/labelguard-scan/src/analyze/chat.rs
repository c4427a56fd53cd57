//! Chat datasets (conversations in JSONL, Parquet or `save_to_disk` Arrow): each conversation rendered with the model's chat
//! template and tokenized with its tokenizer, as `apply_chat_template(messages, tokenize=True)`
//! makes the `input_ids` the model sees; those ids then go through the token checks
//! ([`TokenChecks`]: lengths against the position table, LG805; ids against the embedding,
//! LG801). A conversation the template refuses is LG816; what cannot be rendered (no model, no
//! tokenizer or template, a construct the renderer lacks) is LG815, never a silent pass.

use super::ctx::Ctx;
use super::result::{FileKind, FileResult, TokenStats, Unit};
use super::tokens::TokenChecks;
use crate::checks::token_rows::{Col, Tally, Values};
use crate::checks::{lg815_chat_not_checked as lg815, lg816_chat_template_refused as lg816};
use crate::layout::Item;
use labelguard_core::TensorView;
use labelguard_formats::read::chat::{ChatFormat, ChatKey, Conversations};
use labelguard_formats::read::chat_template::{ChatTokenizer, RenderError};
use labelguard_formats::read::tokens::{TokenBatch, INPUT_IDS};
use std::path::PathBuf;

/// Conversations tokenized before their ids go to the checks.
const BATCH: usize = 1024;

/// Rows that went wrong one way, and the words of the first.
#[derive(Default)]
struct Failed {
    tally: Tally,
    first: Option<String>,
}

impl Failed {
    fn add(&mut self, row: u64, why: String) {
        self.tally.add("messages", row, None, 0);
        self.first.get_or_insert(why);
    }
}

/// The token ids of the conversations not yet checked.
struct Pending {
    first_row: u64,
    values: Vec<i64>,
    offsets: Vec<usize>,
}

impl Pending {
    fn flush(&mut self, checks: &mut TokenChecks) {
        let rows = self.offsets.len() - 1;
        if rows > 0 {
            let mut cols: [Option<Col<'_>>; labelguard_formats::read::tokens::NCOLS] =
                std::array::from_fn(|_| None);
            cols[INPUT_IDS] = Some(Col {
                values: Values::View(TensorView::of_i64(&self.values)),
                offsets: Some(self.offsets.clone()),
            });
            checks.batch(&TokenBatch {
                first_row: self.first_row,
                rows,
                cols,
                label: None,
                images: None,
            });
        }
        self.first_row += rows as u64;
        self.values.clear();
        self.offsets.truncate(1);
    }
}

/// Checks the conversations of a chat dataset: column `key` of `files` (one JSONL or Parquet
/// file, or the Arrow shards of a `save_to_disk` split, rows numbered on across them).
pub(crate) fn chat_file(
    item: &Item,
    files: &[PathBuf],
    format: ChatFormat,
    key: ChatKey,
    ctx: &Ctx<'_>,
) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Table);
    r.unit = Unit::Samples;
    let chat = match ctx.opts.model.as_deref() {
        None => Err("no model was given: labelguard renders each conversation with the model's chat template and tokenizer (--model DIR)".to_string()),
        Some(dir) => ChatTokenizer::load(dir).map_err(|e| e.to_string()),
    };
    let mut malformed = Failed::default();
    let mut no_answer = Tally::default();
    let mut refused = Failed::default();
    let mut unrendered = Failed::default();
    let mut checks = TokenChecks::new(ctx.model, ctx.opts.ignore_index);
    let mut pending = Pending {
        first_row: 0,
        values: Vec::new(),
        offsets: vec![0],
    };
    // The template's markers that rendered for this data (LG820 looks at those only).
    let mut markers: Vec<bool> = Vec::new();
    let mut conversations = Conversations::open(files, format, key);
    for (row, conversation) in conversations.by_ref() {
        let messages = match conversation {
            Ok(m) => m,
            Err(why) => {
                malformed.add(row, why);
                continue;
            }
        };
        if !has_assistant_turn(&messages) {
            no_answer.add("messages", row, None, 0);
        }
        let Ok(chat) = &chat else {
            continue;
        };
        let ids = chat.render(&messages).and_then(|text| {
            chat.note_markers(&text, &mut markers);
            chat.encode(&text)
                .map_err(|e| RenderError::Unsupported(e.to_string()))
        });
        match ids {
            Ok(ids) => pending.values.extend(ids.iter().map(|&i| i64::from(i))),
            Err(RenderError::Refused(why)) => refused.add(row, why),
            Err(RenderError::Unsupported(why)) => unrendered.add(row, why),
        }
        pending.offsets.push(pending.values.len());
        if pending.offsets.len() > BATCH {
            pending.flush(&mut checks);
        }
    }
    pending.flush(&mut checks);
    let rows = match conversations.finish() {
        Ok(rows) => rows,
        Err(e) => {
            r.findings
                .push(crate::checks::lg602_corrupt_file::corrupt_table(e));
            return r;
        }
    };
    r.shape = Some(vec![rows as usize]);
    r.elements = rows;
    r.tokens = TokenStats {
        sequences: rows,
        ..checks.stats(ctx)
    };
    let split = &item.split;
    if let Some(why) = &malformed.first {
        let f = crate::checks::lg602_corrupt_file::corrupt_table(format!(
            "{} without a conversation ({}): {why}",
            labelguard_core::finding::count(malformed.tally.rows, "row"),
            malformed.tally.rows_text(split),
        ));
        r.findings.push(malformed.tally.evidence(f));
    }
    let chat = match chat {
        Ok(chat) => chat,
        Err(why) => {
            r.findings.push(lg815::whole_file(rows, &why));
            return r;
        }
    };
    let template = &chat.template_source;
    // About the template, not this file: reported once for the dataset, however many of its
    // shards render the marker.
    r.dataset.extend(
        chat.split_markers(&markers)
            .iter()
            .map(|t| crate::checks::lg820_chat_marker_split::finding(t, template)),
    );
    // Label masks: a template that marks the assistant's text trains on it alone, so a
    // conversation without an assistant turn has every label masked.
    if chat.marks_assistant && no_answer.rows > 0 {
        r.findings
            .push(crate::checks::lg804_all_labels_ignored::no_assistant_turn(
                &no_answer, split,
            ));
    }
    if let Some(why) = &refused.first {
        r.findings
            .push(lg816::finding(&refused.tally, why, template, split));
    }
    if let Some(why) = &unrendered.first {
        r.findings
            .push(lg815::rows(&unrendered.tally, why, template, split));
    }
    let rendered = format!(
        " (the conversations rendered with the chat template of {template} and tokenized with its tokenizer.json, as apply_chat_template does)"
    );
    r.findings
        .extend(checks.findings(split).into_iter().map(|mut f| {
            f.message.push_str(&rendered);
            f
        }));
    r
}

/// Whether a conversation (its `{role, content}` messages) holds an assistant turn with content:
/// the tokens an assistant-only fine-tune learns from.
fn has_assistant_turn(messages: &serde_json::Value) -> bool {
    messages.as_array().is_some_and(|m| {
        m.iter().any(|msg| {
            msg.get("role").and_then(|r| r.as_str()) == Some("assistant")
                && msg
                    .get("content")
                    .is_some_and(|c| !c.is_null() && c.as_str() != Some(""))
        })
    })
}
