//! Label tables (CSV/TSV, JSONL, Parquet): the label column's ids, with the rows that are not
//! ids (LG612 unknown labels, LG201 floats) reported and kept out of the histogram.

use super::class_ids::class_check;
use super::ctx::Ctx;
use super::result::{FileKind, FileResult, Unit};
use crate::checks::lg603_empty_file as lg603;
use crate::checks::lg604_decompression_bomb as lg604;
use crate::checks::{lg612_unknown_label, lg613_label_column_missing};
use crate::layout::Item;
use labelguard_core::rules::LG201;
use labelguard_core::{Finding, TensorView, Verdict};
use labelguard_formats::bad_cell::BadCell;
use labelguard_formats::read::table::{read_labels, LabelColumn, TableError, TableFormat};

pub(crate) fn table_file(item: &Item, format: TableFormat, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Table);
    r.unit = Unit::Samples;
    let opts = ctx.opts;
    let map = (!ctx.class_map.is_empty()).then_some(&ctx.class_map);
    let col = match read_labels(
        &item.source,
        format,
        opts.label_column.as_deref(),
        map,
        opts.ignore_index,
        opts.max_rows,
    ) {
        Ok(c) => c,
        // The metadata of a Hugging Face image folder (captions for diffusers' text-to-image
        // fine-tuning): no label column to check unless one is named.
        Err(TableError::MissingColumn { available, .. })
            if opts.label_column.is_none() && image_folder_metadata(&item.display, &available) =>
        {
            return r;
        }
        // No column named and none of the usual names: a text dataset, not checked (a warning).
        Err(TableError::MissingColumn { available, .. }) if opts.label_column.is_none() => {
            r.findings
                .push(lg613_label_column_missing::no_usual_column(&available));
            return r;
        }
        Err(TableError::MissingColumn { wanted, available }) => {
            r.findings
                .push(lg613_label_column_missing::finding(&wanted, &available));
            return r;
        }
        Err(TableError::Problem(p)) => {
            r.findings.push(p);
            return r;
        }
    };
    table_findings(&mut r, &col, ctx);
    r
}

/// Whether a table is the metadata file of a `datasets` image folder: named `metadata.csv`,
/// `metadata.jsonl` or `metadata.parquet`, with the `file_name` column that names each image
/// (`datasets/packaged_modules/folder_based_builder`).
fn image_folder_metadata(display: &str, columns: &[String]) -> bool {
    let name = display.rsplit('/').next().unwrap_or(display);
    name.rsplit_once('.')
        .is_some_and(|(stem, _)| stem == "metadata")
        && columns
            .iter()
            .any(|c| c == "file_name" || c.ends_with("_file_name"))
}

fn table_findings(r: &mut FileResult, col: &LabelColumn, ctx: &Ctx<'_>) {
    let name = col.column.as_str();
    r.shape = Some(vec![col.ids.len()]);
    if col.ids.is_empty() {
        r.findings.push(lg603::table_without_rows(name));
        return;
    }
    if let Some(n) = col.truncated_at {
        r.findings.push(lg604::rows_not_checked(n));
    }
    if let Some(f) = lg612_unknown_label::finding(
        name,
        col.ids.len(),
        col.unknown,
        &col.unknown_first,
        &col.unknown_values,
        !ctx.class_map.is_empty(),
    ) {
        if f.severity == labelguard_core::Severity::Error {
            r.bad += col.unknown;
        }
        r.findings.push(f);
    }
    if col.floats > 0 {
        let first = &col.float_first[0];
        let mut f = Finding::new(
            &LG201,
            Verdict::Error,
            format!("{} in '{name}' {} floating-point numbers ({} with a fraction); first: {name}[{}] = {}", labelguard_core::finding::count(col.floats, "label"), labelguard_core::finding::is_are(col.floats), col.fractional, first.row, first.text),
        )
        .hint(if col.fractional == 0 {
            "whole numbers written as floats: pandas turns an integer column with a missing value into float64"
        } else {
            "fractional labels are not class ids: regression targets or probabilities?"
        })
        .fix(format!("fill or drop missing rows and store integers: df['{name}'] = df['{name}'].astype('int64')"));
        f.locations = BadCell::locations(&col.float_first, name, str::to_string);
        f.count = Some(col.floats);
        r.findings.push(f);
    }
    let view = TensorView::of_i64(&col.ids);
    let before = r.findings.len();
    class_check(r, &view, name, ctx, None);
    in_rows(&mut r.findings[before..], col, name);
    // Rows that were not ids carry the ignore value: they are counted as unknown, not as classes.
    r.histogram
        .retain(|(v, _)| *v != ctx.opts.ignore_index || col.unknown + col.fractional == 0);
}

/// A column of lists (`ner_tags`) was checked as one run of ids: each place `name[i]` the
/// findings name becomes the row and the word, `name[row, word]`, in their locations and
/// messages.
fn in_rows(findings: &mut [Finding], col: &LabelColumn, name: &str) {
    if col.row_starts.is_empty() {
        return;
    }
    for f in findings {
        for l in &mut f.locations {
            let [i] = l.index[..] else { continue };
            let Some((row, word)) = col.row_of(i) else {
                continue;
            };
            let (flat, nested) = (format!("{name}[{i}] ="), format!("{name}[{row}, {word}] ="));
            f.message = f.message.replace(&flat, &nested);
            l.index = vec![row, word];
        }
    }
}
