//! One item in, one result out: the item's task decides which analysis reads it; a panic
//! while it is read or analysed becomes an LG620 finding on it.

use super::array::array_file;
use super::buffers::Buffers;
use super::class_weights::class_weights_file;
use super::ctx::Ctx;
use super::image::image_sample;
use super::mask::mask_file;
use super::result::{FileKind, FileResult};
use super::table::table_file;
use crate::checks::lg607_mask_image_size_mismatch as lg607;
use crate::checks::lg608_missing_pair;
use crate::checks::lg614_non_utf8_path;
use crate::checks::lg620_internal_error::internal_error;
use crate::checks::lg707_annotation_without_image as lg707;
use crate::layout::{Item, Part, Task};
use labelguard_formats::isolate::isolated;
use labelguard_formats::read::chat::{chat_key, ChatFormat};
use labelguard_formats::read::header::image_header;
use labelguard_formats::read::table::TableFormat;
use labelguard_formats::read::tokens::{has_input_ids, TokenFormat};
use labelguard_formats::source::Source;

/// The token format of a label table that may hold token data (an `input_ids` column).
fn token_format(format: TableFormat) -> Option<TokenFormat> {
    match format {
        TableFormat::Jsonl => Some(TokenFormat::Jsonl),
        TableFormat::Parquet => Some(TokenFormat::Parquet),
        TableFormat::Csv | TableFormat::Tsv => None,
    }
}

/// Where a chat dataset's rows are, for a table or token format.
fn chat_format(format: TokenFormat) -> ChatFormat {
    match format {
        TokenFormat::Jsonl => ChatFormat::Jsonl,
        TokenFormat::Parquet => ChatFormat::Parquet,
        TokenFormat::Arrow => ChatFormat::Arrow,
    }
}

/// A mask, and its size against its image's (LG607) when the layout paired it with one.
fn mask_with_image(
    item: &Item,
    image: Option<&Source>,
    ctx: &Ctx<'_>,
    bufs: &mut Buffers,
) -> FileResult {
    let mut r = mask_file(item, ctx, bufs);
    if let (Some(image), Some(shape)) = (image, r.shape.clone()) {
        let size = image_header(image).map(|h| (h.width, h.height));
        r.findings
            .extend(lg607::check(&image.describe(), size, &shape));
    }
    r
}

/// Analyses one item.
pub fn analyze_item(item: &Item, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    let mut r = match &item.task {
        Task::Problem(p) => {
            let mut r = FileResult::new(item, FileKind::Other);
            r.findings.push(p.clone());
            r
        }
        Task::DatasetProblem(p) => {
            let mut r = FileResult::new(item, FileKind::Other);
            r.findings.push(p.clone());
            r.dataset_level = true;
            r
        }
        Task::Mask {
            image,
            missing_image,
        } => {
            let mut r = mask_with_image(item, image.as_ref(), ctx, bufs);
            if let Some(expected) = missing_image {
                r.findings
                    .push(lg608_missing_pair::mask_without_image(expected));
            }
            r
        }
        Task::Part {
            part,
            ext,
            image,
            problems,
        } => {
            let mut r = match part {
                Part::Mask => mask_with_image(item, image.as_ref(), ctx, bufs),
                Part::Array => {
                    let mut r = FileResult::new(item, FileKind::Array);
                    array_file(&mut r, item, ctx);
                    r
                }
                Part::Class => super::sample_label::class_text(item, ext, ctx, bufs),
                Part::Json => super::sample_label::class_json(item, ext, ctx, bufs),
                Part::Data => FileResult::new(item, FileKind::Other),
            };
            r.findings.extend(problems.iter().cloned());
            r
        }
        Task::Array => {
            let mut r = FileResult::new(item, FileKind::Array);
            array_file(&mut r, item, ctx);
            r
        }
        Task::Table(format) => match token_format(*format) {
            // Token data is read from local files (a table in a shard or bucket is labels).
            Some(f) if item.source.path().is_some_and(|p| has_input_ids(p, f)) => {
                let path = item.source.path().map(|p| p.to_path_buf());
                super::tokens::token_files(item, path.as_slice(), f, ctx)
            }
            // Conversations (`messages`, ShareGPT `conversations`) are read as the chat
            // template renders them, not as a label table.
            Some(f) => match item
                .source
                .path()
                .and_then(|p| Some((p, chat_key(p, chat_format(f))?)))
            {
                Some((path, key)) => {
                    super::chat::chat_file(item, &[path.to_path_buf()], chat_format(f), key, ctx)
                }
                None => table_file(item, *format, ctx),
            },
            None => table_file(item, *format, ctx),
        },
        Task::Tokens { files, format } => match files
            .first()
            .and_then(|p| chat_key(p, chat_format(*format)))
        {
            Some(key) => super::chat::chat_file(item, files, chat_format(*format), key, ctx),
            None => super::tokens::token_files(item, files, *format, ctx),
        },
        Task::Image { class, .. } => image_sample(item, class, ctx),
        Task::Coco { images } => super::detection::coco::coco_file(item, images.as_deref(), ctx),
        Task::Yolo {
            image,
            missing_image,
        } => {
            let mut r = super::detection::yolo::label_file(item, image.as_ref(), ctx, bufs);
            if let Some(expected) = missing_image {
                r.findings.push(lg707::label_without_image(expected));
            }
            r
        }
        Task::VocXml {
            image,
            missing_image,
        } => {
            let mut r = super::detection::voc_xml::xml_file(item, image.as_ref(), ctx);
            if let Some(expected) = missing_image {
                r.findings.push(lg707::label_without_image(expected));
            }
            r
        }
        Task::TokenBin(kind) => super::token_bin::token_bin_file(item, kind, ctx),
        Task::RawLabels(kind) => super::raw_labels::raw_labels_file(item, kind, ctx),
        Task::ClassWeights => class_weights_file(item, ctx),
        Task::Model => super::model::model_dir(item),
    };
    if item.non_utf8 {
        r.findings.push(lg614_non_utf8_path::finding());
    }
    bufs.trim();
    r
}

/// [`analyze_item`] with a panic turned into an LG620 finding on the item. The thread's
/// buffers are replaced after a panic, since the panic may have left them half-updated.
pub fn analyze_item_isolated(item: &Item, ctx: &Ctx<'_>, bufs: &mut Buffers) -> FileResult {
    match isolated(|| {
        labelguard_io::fault::panic_if_chosen(&item.display);
        analyze_item(item, ctx, bufs)
    }) {
        Ok(r) => r,
        Err(message) => {
            *bufs = Buffers::default();
            let mut r = FileResult::new(item, FileKind::Other);
            r.findings.push(internal_error(&message));
            r
        }
    }
}
