//! Label arrays (`.npy`, `.npz`, `.safetensors`): pick the tensors that hold labels, check their
//! dtype and shape with the core's label-target contract
//! ([`labelguard_core::ops::label_target`], which the Python data guards use too: one verdict in
//! one wording), then the class-id check on the ids it leaves.

use super::class_ids::class_check;
use super::ctx::Ctx;
use super::result::FileResult;
use crate::checks::lg603_empty_file as lg603;
use crate::checks::lg604_decompression_bomb as lg604;
use crate::layout::paths::has_ext;
use crate::layout::Item;
use crate::limits::WIDEN_LIMIT;
use labelguard_core::finding::shape_str;
use labelguard_core::ops::label_target::{Extent, Holder, LabelTarget};
use labelguard_core::{DType, TensorView};
use labelguard_formats::read::array::array_read_problem;
use labelguard_formats::source::Source;
use std::path::Path;

/// Tensor names that hold labels, when a file holds several tensors.
const LABEL_NAMES: &[&str] = &[
    "mask",
    "masks",
    "label",
    "labels",
    "target",
    "targets",
    "y",
    "seg",
    "segmentation",
    "gt",
    "annotation",
    "annotations",
    "semantic",
];

pub(crate) fn array_file(r: &mut FileResult, item: &Item, ctx: &Ctx<'_>) {
    let limits = labelguard_io::Limits {
        max_tensor_bytes: ctx.opts.max_pixels.saturating_mul(8),
        max_tensors: 4096,
    };
    let read = match &item.source {
        Source::File(path) => labelguard_io::read_tensors(path, &limits),
        // A member or an object is read whole, under the same byte limit as a mask.
        other => {
            let mut bytes = Vec::new();
            if let Err(f) = other.read_all(ctx.max_file_bytes(), &mut bytes) {
                r.findings.push(f);
                return;
            }
            labelguard_io::read_tensors_from_bytes(Path::new(&item.display), bytes, &limits)
        }
    };
    let tensors = match read {
        Ok(t) => t,
        Err(e) => {
            r.findings.push(array_read_problem(e));
            return;
        }
    };
    if tensors.is_empty() {
        r.findings.push(lg603::array_file_without_arrays());
        return;
    }
    let labelled: Vec<&labelguard_io::NamedTensor> = tensors
        .iter()
        .filter(|t| LABEL_NAMES.contains(&t.name.to_ascii_lowercase().as_str()))
        .collect();
    let chosen: Vec<&labelguard_io::NamedTensor> = if tensors.len() > 1 && !labelled.is_empty() {
        labelled
    } else {
        tensors.iter().collect()
    };
    // .safetensors is torch's format; .npy and .npz are numpy's: the fixes use their API.
    let holder = if has_ext(&item.display, &["safetensors"]) {
        Holder::Torch
    } else {
        Holder::Numpy
    };
    for t in chosen {
        let view = t.tensor.view();
        if r.shape.is_none() {
            r.shape = Some(view.shape().to_vec());
        }
        array_tensor(r, &view, &t.name, ctx, holder);
    }
}

fn array_tensor(
    r: &mut FileResult,
    view: &TensorView<'_>,
    name: &str,
    ctx: &Ctx<'_>,
    holder: Holder,
) {
    let shape = view.shape().to_vec();
    let numel = view.numel() as u64;
    if numel == 0 {
        r.findings
            .push(lg603::array_without_elements(name, &shape_str(&shape)));
        return;
    }
    if numel > ctx.opts.max_pixels {
        r.findings
            .push(lg604::too_many_elements(name, numel, ctx.opts.max_pixels));
        return;
    }
    let target = LabelTarget {
        name,
        num_classes: ctx.opts.num_classes.map(i64::from),
        holder,
        extent: Extent::Stored,
    };
    if let Some(f) = target.dtype(view) {
        r.findings.push(f);
        // Whole-number floats (and bools) still describe classes: count them so the histogram
        // is right (for arrays up to WIDEN_LIMIT elements, so that the copy stays small).
        let whole = |v: f64| v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15;
        if view.numel() <= WIDEN_LIMIT && view.offsets().all(|o| whole(view.read_f64(o))) {
            let bytes: Vec<u8> = view
                .offsets()
                .flat_map(|o| (view.read_f64(o) as i64).to_le_bytes())
                .collect();
            let ids = TensorView::new(DType::I64, &shape, &bytes).expect("same element count");
            shaped_ids(r, &ids, &target, ctx);
        }
        return;
    }
    shaped_ids(r, view, &target, ctx);
}

/// The core's shape rules of a class-index target, then the class check on the ids they leave
/// (without a size-1 dimension).
fn shaped_ids(r: &mut FileResult, view: &TensorView<'_>, target: &LabelTarget<'_>, ctx: &Ctx<'_>) {
    let shaped = target.shape(view);
    r.findings.extend(shaped.finding);
    if let Some(ids) = shaped.ids {
        class_check(r, &ids, target.name, ctx, ctx.opts.palette.as_deref());
    }
}
