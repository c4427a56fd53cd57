//! `binary_cross_entropy` (Loss.cpp, Loss.cu) and `binary_cross_entropy_with_logits` (Loss.cpp).
//!
//! BCE checks both input and target against [0, 1] per element: the CPU kernel raises and the
//! CUDA kernel asserts. BCE-with-logits checks nothing about values; its dtype rules come from
//! the arithmetic it is written in (`(1 - target).mul_(input)`, `(pos_weight - 1).mul(target)`).

use super::dtypes::*;
use super::evidence::WithLocated;
use super::reduction::*;
use super::shapes::*;
use super::values::*;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{is_are, shape_str, Finding, Verdict, MAX_LOCATIONS};
use crate::kernels::{locate, scan_float};
use crate::rules::*;
use crate::tensor::TensorView;

pub(crate) fn same_size(
    input: &TensorView<'_>,
    target: &TensorView<'_>,
    message: String,
) -> Option<Finding> {
    (input.shape() != target.shape()).then(|| {
        let mut f = Finding::new(&LG204, Verdict::Error, message).fix(format!(
            "give target the shape of input {}",
            shape_str(input.shape())
        ));
        let squeezed: Vec<usize> = target.shape().iter().copied().filter(|&d| d != 1).collect();
        let input_squeezed: Vec<usize> =
            input.shape().iter().copied().filter(|&d| d != 1).collect();
        if squeezed == input_squeezed {
            f = f
                .hint("the shapes differ only by size-1 dimensions")
                .fix(format!(
                    "target = target.view({})",
                    input
                        .shape()
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
        }
        f
    })
}

/// LG303 when a weight does not broadcast to exactly `shape` (it multiplies the loss in place).
pub(crate) fn broadcast_to(w: &TensorView<'_>, name: &str, shape: &[usize]) -> Option<Finding> {
    match broadcast(w.shape(), shape) {
        Some(b) if b == shape => None,
        Some(b) => Some(
            Finding::new(
                &LG303,
                Verdict::Error,
                format!(
                    "{name} of shape {}: output with shape {} doesn't match the broadcast shape {}",
                    shape_str(w.shape()),
                    shape_str(shape),
                    shape_str(&b)
                ),
            )
            .fix(format!("{name} must broadcast to the target's shape {}", shape_str(shape))),
        ),
        None => Some(
            Finding::new(
                &LG303,
                Verdict::Error,
                format!(
                    "{name} of shape {} does not broadcast with the target's shape {}",
                    shape_str(w.shape()),
                    shape_str(shape)
                ),
            )
            .fix(format!(
                "{name} must broadcast to {}: one entry per class on the last dimension ([C]), or per sample ([N, 1])",
                shape_str(shape)
            )),
        ),
    }
}

/// Elements outside [0, 1] or NaN, as the BCE kernel checks them.
pub(crate) fn probability_range(
    t: &TensorView<'_>,
    name: &str,
    rule: &'static crate::rule::Rule,
) -> Option<Finding> {
    let s = scan_float(t, 0.0, 1.0);
    let bad = s.below + s.above + s.nan;
    if bad == 0 {
        return None;
    }
    let located = locate(t, MAX_LOCATIONS, |t, o| {
        let v = t.read_f64(o);
        !(0.0..=1.0).contains(&v)
    });
    let (index, value) = located.first[0].clone();
    let range = match (s.min, s.max) {
        (Some(lo), Some(hi)) => format!(
            " (min {}, max {})",
            crate::tensor::format_float(lo),
            crate::tensor::format_float(hi)
        ),
        _ => String::new(),
    };
    let message = format!(
        "{bad} of {} elements of {name} {} outside [0, 1] or NaN{range}: all elements of {name} should be between 0 and 1; first: {name}{} = {value}",
        s.count,
        is_are(bad),
        shape_str(&index)
    );
    let (hint, fix) = if rule.code == LG501.code {
        if s.below > 0 || s.above > 0 {
            (
                Some("values below 0 or above 1: these look like logits, not probabilities".to_string()),
                "pass the logits to F.binary_cross_entropy_with_logits (nn.BCEWithLogitsLoss), or apply torch.sigmoid first".to_string(),
            )
        } else {
            (
                Some("NaN predictions: the model diverged or overflowed before the loss".to_string()),
                "find where the NaN appears (learning rate, fp16 overflow); BCEWithLogitsLoss is more stable".to_string(),
            )
        }
    } else if s.max == Some(255.0) {
        (
            Some("the largest value is 255: a binary mask stored as 0/255".to_string()),
            "scale the mask: target = mask / 255 (or (mask > 0).float())".to_string(),
        )
    } else {
        (
            None,
            "targets of BCE must be probabilities in [0, 1]".to_string(),
        )
    };
    Some(
        Finding::new(rule, Verdict::DeviceAssert, message)
            .maybe_hint(hint)
            .fix(fix)
            .located(name, &located),
    )
}

pub fn binary_cross_entropy(call: &Call<'_>) -> Vec<Finding> {
    let reduction = match reduction(call) {
        Ok(r) => r,
        Err(f) => return vec![f],
    };
    let input = call.required("input");
    let target = call.required("target");
    let weight = call.tensor("weight");
    if let Some(f) = same_size(
        input,
        target,
        format!(
            "Using a target size ({}) that is different to the input size ({}) is deprecated. Please ensure they have the same size.",
            shape_str(target.shape()),
            shape_str(input.shape())
        ),
    ) {
        return vec![f];
    }
    // The Python wrapper expands the weight to the broadcast shape (failing only when the shapes
    // do not broadcast at all); the in-place multiply that rejects a larger broadcast shape runs
    // after the kernel has checked the values.
    let weight_error = weight.and_then(|w| broadcast_to(w, "weight", target.shape()));
    if let Some(f) = weight_error
        .as_ref()
        .filter(|f| f.message.contains("does not broadcast"))
    {
        return vec![f.clone()];
    }
    if let Some(f) = require_float(input, "input", "binary_cross_entropy") {
        return vec![f];
    }
    if target.dtype() != input.dtype() {
        return vec![Finding::new(
            &LG209,
            Verdict::Error,
            format!(
                "target is {} but input is {}: Found dtype {} but expected {}",
                target.dtype(),
                input.dtype(),
                target.dtype().scalar_type_name(),
                input.dtype().scalar_type_name()
            ),
        )
        .fix("target = target.to(input.dtype)")];
    }
    let mut findings: Vec<Finding> = [
        probability_range(input, "input", &LG501),
        probability_range(target, "target", &LG502),
    ]
    .into_iter()
    .flatten()
    .collect();
    if findings.is_empty() {
        if let Some(f) = weight_error {
            return vec![f];
        }
        if let Some(w) = weight {
            findings.extend(weight_values(w, "weight"));
        }
        if reduction == Reduction::Mean && input.numel() == 0 {
            findings.push(lg108_nan_loss::finding("the tensors are empty"));
        }
    }
    findings
}

pub fn binary_cross_entropy_with_logits(call: &Call<'_>) -> Vec<Finding> {
    let reduction = match reduction(call) {
        Ok(r) => r,
        Err(f) => return vec![f],
    };
    let input = call.required("input");
    let target = call.required("target");
    if let Some(f) = same_size(
        input,
        target,
        format!(
            "Target size ({}) must be the same as input size ({})",
            shape_str(target.shape()),
            shape_str(input.shape())
        ),
    ) {
        return vec![f];
    }
    if let Some(f) = require_float(input, "input", "log_sigmoid_cpu") {
        return vec![f];
    }
    if let Some(pw) = call.tensor("pos_weight") {
        if let Some(f) = arithmetic_dtype(pw, "pos_weight") {
            return vec![f];
        }
        if let Some(f) = broadcast_to(pw, "pos_weight", input.shape()) {
            return vec![f];
        }
    }
    if !target.dtype().is_floating() {
        let message = match target.dtype() {
            DType::Bool => "target is torch.bool: Subtraction, the `-` operator, with two bool tensors is not supported".to_string(),
            DType::U16 => "target is torch.uint16: \"add_stub\" not implemented for 'UInt16'".to_string(),
            d => format!(
                "target is {d}: result type {} can't be cast to the desired output type {}",
                input.dtype().scalar_type_name(),
                d.scalar_type_name()
            ),
        };
        return vec![Finding::new(&LG209, Verdict::Error, message)
            .fix("pass a floating-point target: target.float()")
            .hint("binary_cross_entropy_with_logits computes (1 - target) * input, which needs a float target")];
    }
    if let Some(w) = call.tensor("weight") {
        if let Some(f) = broadcast_to(w, "weight", input.shape()) {
            return vec![f];
        }
    }
    let mut findings = Vec::new();
    let s = scan_float(target, 0.0, 1.0);
    let bad = s.below + s.above + s.nan;
    if bad > 0 {
        let located = locate(target, MAX_LOCATIONS, |t, o| {
            !(0.0..=1.0).contains(&t.read_f64(o))
        });
        let mut f = Finding::new(
            &LG503,
            Verdict::Silent,
            format!(
                "{bad} of {} targets {} outside [0, 1] or NaN; the loss has no minimum there and training diverges",
                s.count,
                is_are(bad)
            ),
        )
        .fix("targets must be in [0, 1]: scale 0/255 masks with mask / 255; mask ignored positions with weight, not with the target")
        .located("target", &located);
        if s.max == Some(255.0) {
            f = f.hint("the largest value is 255: a binary mask stored as 0/255, or 255 used as an ignore value");
        } else if s.min == Some(-1.0) {
            f = f.hint("-1 in the target: an ignore marker that BCE does not understand");
        } else if s.fractional > 0 && s.below > 0 {
            f = f
                .hint("negative, fractional targets: these look like logits (a teacher's raw outputs), not probabilities")
                .fix("pass probabilities: target = teacher_logits.sigmoid()");
        }
        findings.push(f);
    }
    findings.extend(non_finite(input, "input"));
    for name in ["pos_weight", "weight"] {
        if let Some(w) = call.tensor(name) {
            findings.extend(weight_values(w, name));
        }
    }
    if reduction == Reduction::Mean && input.numel() == 0 {
        findings.push(lg108_nan_loss::finding("the tensors are empty"));
    }
    findings
}

/// `pos_weight - 1` fails for bool and uint16 (no subtraction kernels).
pub(crate) fn arithmetic_dtype(t: &TensorView<'_>, name: &str) -> Option<Finding> {
    let message = match t.dtype() {
        DType::Bool => format!("{name} is torch.bool: Subtraction, the `-` operator, with a bool tensor is not supported"),
        DType::U16 => format!("{name} is torch.uint16: \"add_stub\" not implemented for 'UInt16'"),
        _ => return None,
    };
    Some(
        Finding::new(&LG209, Verdict::Error, message)
            .fix(format!("pass {name} as floats: {name}.float()")),
    )
}
