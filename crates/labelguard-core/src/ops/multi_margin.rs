//! `multi_margin_loss` (torch/nn/functional.py, aten/src/ATen/native/LossMultiMargin.cpp and
//! cuda/MultiMarginLoss.cu): the multi-class hinge loss of `nn.MultiMarginLoss`.
//!
//! In PyTorch's order: the Python wrapper's `reduction`, `p` (1 or 2) and a 1-D `weight`; the
//! shape check (a non-empty vector or matrix, or a 0-d input; a 1-D target of one class id per
//! sample; one weight per class); an empty input then returns before any dtype is read; the
//! dtypes (int64 targets; a floating input, Half and BFloat16 too on CUDA, the truth where the
//! CPU kernel lacks them; a weight of the input's dtype); then the kernel, which asserts on CUDA (`target_k >= 0 && target_k < dim && "target index is out
//! of bounds"`) and raises `target out of range` on the CPU for a class id outside [0, C-1].
//! There is no ignore_index: every target is a class.

use super::class_id_words::NO_IGNORE;
use super::class_ids::class_ids;
use super::classification::{target_shape, weight_length};
use super::dtypes::{dtype_differs, index_dtype};
use super::label_target::float_ids_hint;
use super::reduction::reduction;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::rules::*;

pub fn multi_margin_loss(call: &Call<'_>) -> Vec<Finding> {
    if let Err(f) = reduction(call) {
        return vec![f];
    }
    let input = call.required("input");
    let target = call.required("target");
    let weight = call.tensor("weight");
    let p = call.int("p");
    if p != 1 && p != 2 {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("p={p}: only p == 1 and p == 2 supported"),
        )
        .fix("pass p=1 (the hinge loss) or p=2 (its square)")];
    }
    if let Some(w) = weight.filter(|w| w.dim() != 1) {
        return vec![Finding::new(
            &LG301,
            Verdict::Error,
            format!(
                "weight of shape {}: weight must be one-dimensional",
                shape_str(w.shape())
            ),
        )
        .fix("pass one weight per class: a 1-D tensor of C entries (weight.flatten())")];
    }
    let (nframe, c) = match input.shape() {
        [] => (1, 1),
        [c] if *c != 0 => (1, *c),
        [n, c] if *c != 0 => (*n, *c),
        shape => {
            return vec![Finding::new(
                &LG210,
                Verdict::Error,
                format!("input of shape {}: Expected non-empty vector or matrix with optional 0-dim batch size", shape_str(shape)),
            )
            .fix("pass scores of shape [N, C] (or [C] for one sample), with C > 0 classes")]
        }
    };
    if target.dim() > 1 || target.numel() != nframe {
        let message = format!(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples (batch size). Expected target size [{nframe}], but got {}",
            shape_str(target.shape())
        );
        if input.dim() == 0 {
            return vec![Finding::new(&LG204, Verdict::Error, message).fix(
                "a 0-d input scores one sample: pass one class id (a 0-d or 1-element target)",
            )];
        }
        let expected: &[usize] = if input.dim() == 2 { &[nframe] } else { &[] };
        return vec![target_shape(input, target, expected, message)];
    }
    if let Some(w) = weight.filter(|w| w.numel() != c) {
        return vec![weight_length(c, w, false)];
    }
    if input.numel() == 0 {
        return Vec::new(); // an empty batch: the kernel returns before it reads a dtype or a target
    }
    if target.dtype() != DType::I64 {
        let message = format!(
            "target is {}: expected scalar type Long but found {}",
            target.dtype(),
            target.dtype().scalar_type_name()
        );
        if target.dtype().is_floating() {
            return vec![Finding::new(&LG201, Verdict::Error, message)
                .fix("cast the class ids: target.long()")
                .maybe_hint(float_ids_hint(target))];
        }
        return vec![index_dtype(target, "target", &[DType::I64], message).expect("not int64")];
    }
    if !input.dtype().is_floating() {
        return vec![Finding::new(
            &LG206,
            Verdict::Error,
            format!(
                "input is {}: \"multi_margin_loss\" is not implemented for '{}'",
                input.dtype(),
                input.dtype().scalar_type_name()
            ),
        )
        .fix("pass floating-point scores: input.float()")];
    }
    if let Some(f) = weight.and_then(|w| {
        dtype_differs(w, input, "weight", |i, w| {
            format!("weight is {w} and input {i}: expected scalar type {i} but found {w}")
        })
    }) {
        return vec![f];
    }
    class_ids(target, "target", c as i64, NO_IGNORE, Verdict::DeviceAssert)
}
