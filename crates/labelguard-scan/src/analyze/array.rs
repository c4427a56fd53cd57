//! Label arrays (`.npy`, `.npz`, `.safetensors`): pick the tensors that hold labels, check their
//! dtype (LG201) and shape (LG202 one-hot, LG203 a size-1 dimension, LG210 a rank that is no
//! target, LG606 colours last), then the class-id check on the squeezed ids.

use super::class_ids::class_check;
use super::ctx::Ctx;
use super::result::FileResult;
use crate::checks::lg603_empty_file as lg603;
use crate::checks::lg604_decompression_bomb as lg604;
use crate::checks::lg606_colour_mask as lg606;
use crate::layout::Item;
use crate::limits::WIDEN_LIMIT;
use crate::read::array::array_read_problem;
use labelguard_core::finding::shape_str;
use labelguard_core::ops::class_ids::float_ids_hint;
use labelguard_core::ops::values::is_binary;
use labelguard_core::rules::{LG201, LG202, LG203, LG210};
use labelguard_core::{DType, Finding, TensorView, Verdict};

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
    let tensors = match labelguard_io::read_tensors(&item.path, &limits) {
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
    for t in chosen {
        let view = t.tensor.view();
        if r.shape.is_none() {
            r.shape = Some(view.shape().to_vec());
        }
        array_tensor(r, &view, &t.name, ctx);
    }
}

fn array_tensor(r: &mut FileResult, view: &TensorView<'_>, name: &str, ctx: &Ctx<'_>) {
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
    let c = ctx.opts.num_classes.map(|c| c as usize);
    let dtype = view.dtype();
    if dtype.is_floating() || dtype == DType::Bool {
        let mut f = Finding::new(
            &LG201,
            Verdict::Error,
            format!("{name} is {dtype}: class-index targets must be integers (cross_entropy raises 'expected scalar type Long')"),
        )
        .fix(format!("store integer ids: {name}.astype(np.int64) after checking that the values are whole, or rebuild them from the masks"));
        if dtype != DType::Bool {
            f = f.maybe_hint(float_ids_hint(view));
        }
        r.findings.push(f);
        // Whole-number floats still describe classes: count them so the histogram is right
        // (for arrays up to WIDEN_LIMIT elements, so that the copy stays small).
        let whole = |v: f64| v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15;
        if view.numel() <= WIDEN_LIMIT && view.offsets().all(|o| whole(view.read_f64(o))) {
            let bytes: Vec<u8> = view
                .offsets()
                .flat_map(|o| (view.read_f64(o) as i64).to_le_bytes())
                .collect();
            let ids = TensorView::new(DType::I64, &shape, &bytes).expect("same element count");
            shaped_ids(r, &ids, name, ctx, c);
        }
        return;
    }
    shaped_ids(r, view, name, ctx, c);
}

/// The shape rules of a class-index target, then the class check on the squeezed ids.
fn shaped_ids(
    r: &mut FileResult,
    view: &TensorView<'_>,
    name: &str,
    ctx: &Ctx<'_>,
    c: Option<usize>,
) {
    let shape = view.shape().to_vec();
    let rank = shape.len();
    let squeeze = |r: &mut FileResult, dim: usize, fix: &str| {
        r.findings.push(
            Finding::new(
                &LG203,
                Verdict::Error,
                format!("{name} has shape {} with a size-1 dimension {dim}: a class-index target has none", shape_str(&shape)),
            )
            .hint("masks read as single-channel images, or labels read as a one-column table, keep this dimension")
            .fix(fix.to_string()),
        );
    };
    let one_hot = |r: &mut FileResult, dim: usize| {
        r.findings.push(
            Finding::new(
                &LG202,
                Verdict::Error,
                format!("{name} has shape {} and holds only 0 and 1 along dimension {dim} ({} classes): a one-hot target where class indices are expected", shape_str(&shape), shape[dim]),
            )
            .fix(format!("take the index: {name}.argmax({dim}); or train on the one-hot form as probabilities with a float target")),
        );
    };
    let binary = || is_binary(view);
    if rank == 0 || rank >= 5 {
        r.findings.push(
            Finding::new(
                &LG210,
                Verdict::Error,
                format!(
                    "{name} has shape {}: a class-index target is [N], [H, W] or [N, H, W]",
                    shape_str(&shape)
                ),
            )
            .fix("reshape or split the array"),
        );
        return;
    }
    let mut removed: Option<usize> = None;
    match rank {
        2 if shape[1] == 1 && shape[0] > 1 => {
            squeeze(r, 1, &format!("{name}.squeeze(1)"));
            removed = Some(1);
        }
        3 | 4 if shape[rank - 1] == 1 => {
            squeeze(r, rank - 1, &format!("{name}.squeeze(-1)"));
            removed = Some(rank - 1);
        }
        4 if shape[1] == 1 => {
            squeeze(r, 1, &format!("{name}.squeeze(1)"));
            removed = Some(1);
        }
        3 | 4 => {
            let last = shape[rank - 1];
            let chan_first = if rank == 4 { shape[1] } else { shape[0] };
            let is_c = |n: usize| c == Some(n) || (c.is_none() && n > 1);
            if is_c(last) && last <= 1024 && binary() {
                one_hot(r, rank - 1);
                return;
            }
            if rank == 4 && is_c(chan_first) && binary() {
                one_hot(r, 1);
                return;
            }
            if rank == 3 && c == Some(chan_first) && binary() {
                one_hot(r, 0);
                return;
            }
            if let Some(last) = lg606::colours_last(&shape) {
                r.findings.push(lg606::colour_array(name, &shape, last));
                return;
            }
            if rank == 4 {
                r.findings.push(
                    Finding::new(&LG210, Verdict::Error, format!("{name} has shape {}: a 4-D class-index target is not supported by cross_entropy", shape_str(&shape)))
                        .fix("reshape to [N, H, W]"),
                );
                return;
            }
        }
        _ => {}
    }
    let squeezed;
    let ids = match removed {
        Some(d) => {
            let mut dims = shape.clone();
            dims.remove(d);
            let mut strides = view.strides().to_vec();
            strides.remove(d);
            squeezed = TensorView::with_strides(view.dtype(), &dims, &strides, view.bytes())
                .expect("same storage");
            &squeezed
        }
        None => view,
    };
    class_check(r, ids, name, ctx, ctx.opts.palette.as_deref());
}
