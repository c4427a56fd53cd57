//! The raw label files of torchvision's classification datasets (MNIST's IDX labels, CIFAR
//! batches): read as torchvision reads them ([`labelguard_formats::read::torchvision_raw`]), then the
//! class-id check every label ends in ([`super::class_ids::class_check`]: LG101 and the
//! numbering causes), one sample per label, against `--num-classes` or the dataset's own count.

use super::class_ids::class_check;
use super::ctx::Ctx;
use super::result::{FileKind, FileResult, Unit};
use crate::checks::lg602_corrupt_file::corrupt_text;
use crate::layout::Item;
use labelguard_core::{DType, TensorView};
use labelguard_formats::read::torchvision_raw::{
    cifar_labels, mnist_image_count, mnist_labels, RawLabels,
};

/// Checks the label file of `item`.
pub(crate) fn raw_labels_file(item: &Item, kind: &RawLabels, ctx: &Ctx<'_>) -> FileResult {
    let mut r = FileResult::new(item, FileKind::Table);
    r.unit = Unit::Samples;
    let Some(path) = item.source.path() else {
        r.findings
            .push(crate::checks::lg601_unreadable_file::local_only(
                "a raw label file",
            ));
        return r;
    };
    match kind {
        RawLabels::Mnist { images } => {
            let ids = match mnist_labels(path) {
                Ok(ids) => ids,
                Err(m) => {
                    r.findings.push(corrupt_text("MNIST labels file", &m));
                    return r;
                }
            };
            if let Some(images) = images {
                match mnist_image_count(images) {
                    Ok(n) if n != ids.len() as u64 => r.findings.push(corrupt_text(
                        "MNIST split",
                        &format!(
                            "the images file counts {n} images but the labels file {} labels: torchvision pairs them by index",
                            ids.len()
                        ),
                    )),
                    Ok(_) => {}
                    Err(m) => r.findings.push(corrupt_text("MNIST images file", &m)),
                }
            }
            let view = TensorView::new(DType::U8, &[ids.len()], &ids).expect("one byte per label");
            r.shape = Some(vec![ids.len()]);
            class_check(&mut r, &view, "targets", ctx, None);
        }
        RawLabels::Cifar => {
            let (ids, key, rows) = match cifar_labels(path) {
                Ok(x) => x,
                Err(m) => {
                    r.findings.push(corrupt_text("CIFAR batch", &m));
                    return r;
                }
            };
            if let Some(rows) = rows.filter(|&n| n != ids.len() as u64) {
                r.findings.push(corrupt_text(
                    "CIFAR batch",
                    &format!(
                        "its data holds {rows} images but '{key}' {} labels: torchvision pairs them by index",
                        ids.len()
                    ),
                ));
            }
            r.shape = Some(vec![ids.len()]);
            class_check(&mut r, &TensorView::of_i64(&ids), key, ctx, None);
        }
    }
    r
}
