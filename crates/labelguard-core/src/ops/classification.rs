//! `cross_entropy` and `nll_loss` (aten/src/ATen/native/LossNLL.cpp, LossNLL2d.cpp).
//!
//! cross_entropy picks one of three paths: class-probability targets when `input` and `target`
//! have the same shape; label smoothing when `label_smoothing > 0`; otherwise `nll_loss_nd` on
//! `log_softmax(input)`. nll_loss_nd dispatches on the input's rank: 1-D/2-D to `nll_loss`
//! (int64 or uint8 targets), 4-D to `nll_loss2d`, 3-D and 5-D+ reshaped to `nll_loss2d`
//! (int64 targets only).

use super::class_ids::*;
use super::dtypes::*;
use super::index_range::*;
use super::label_target::float_ids_hint;
use super::reduction::*;
use super::values::*;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::kernels::{int_histogram, scan_float, scan_int, IntRange, IntStats};
use crate::rule::Rule;
use crate::rules::*;
use crate::tensor::TensorView;

pub fn cross_entropy(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let target = call.required("target");
    let weight = call.tensor("weight");
    let ignore = call.int("ignore_index");
    let smoothing = call.float("label_smoothing");
    let reduction = match reduction(call) {
        Ok(r) => r,
        Err(f) => return vec![f],
    };
    if input.shape() == target.shape() {
        return probability_targets(input, target, weight, ignore, smoothing, reduction);
    }
    if smoothing > 1.0 {
        return vec![smoothing_finding(smoothing)];
    }
    if input.dim() == 0 {
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            "input is 0-d: Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        )
        .fix("give input a class dimension: logits of shape [C] or [N, C]")];
    }
    if let Some(f) = log_softmax_dtype(input) {
        return vec![f];
    }
    let mut findings = nll_loss_nd(input, target, weight, ignore, reduction);
    if findings.iter().any(|f| f.verdict.raises()) {
        return findings;
    }
    if smoothing > 0.0 && input.dim() == 1 && target.dim() == 1 {
        findings.push(
            Finding::new(
                &LG204,
                Verdict::Error,
                "with label_smoothing, a 1-D input and a 1-D target: output with shape [] doesn't match the broadcast shape [1]",
            )
            .fix("pass the target of one unbatched sample as a 0-d tensor: target.squeeze(0)"),
        );
        return findings;
    }
    if smoothing > 0.0 {
        if let Some(w) = weight {
            // cross_entropy_loss_label_smoothing views the weight as [1, C, 1, ...].
            if w.dim() == 0 || w.numel() != w.shape()[0] {
                findings.push(
                    Finding::new(
                        &LG301,
                        Verdict::Error,
                        format!(
                            "with label_smoothing, weight of shape {} cannot be viewed as one weight per class",
                            shape_str(w.shape())
                        ),
                    )
                    .fix("pass weight as a 1-D tensor of C entries: weight.flatten()"),
                );
                return findings;
            }
            // With reduction='mean' the weights of the labelled targets are looked up with
            // weight.gather(0, labelled_targets), which needs a 1-D weight and an int32/int64 index.
            let labelled = scan_int(
                target,
                IntRange {
                    lo: i64::MIN,
                    hi: i64::MAX,
                    ignore: Some(ignore),
                },
            );
            if reduction == Reduction::Mean && labelled.count > labelled.ignored {
                if w.dim() != 1 {
                    findings.push(
                        Finding::new(
                            &LG301,
                            Verdict::Error,
                            format!(
                                "with label_smoothing and reduction='mean', weight of shape {} fails in weight.gather(): Index tensor must have the same number of dimensions as input tensor",
                                shape_str(w.shape())
                            ),
                        )
                        .fix("pass weight as a 1-D tensor of C entries: weight.flatten()"),
                    );
                    return findings;
                }
                if target.dtype() == DType::U8 {
                    findings.push(
                        index_dtype(
                            target,
                            "target",
                            &[DType::I64, DType::I32],
                            "with label_smoothing, weight and reduction='mean', a uint8 target fails in weight.gather(): Expected dtype int32/int64 for index".into(),
                        )
                        .expect("uint8 is not an allowed index dtype"),
                    );
                    return findings;
                }
            }
        }
    }
    if let Some(f) = non_finite(input, "input") {
        findings.push(f);
    }
    findings
}

pub fn nll_loss(call: &Call<'_>) -> Vec<Finding> {
    let reduction = match reduction(call) {
        Ok(r) => r,
        Err(f) => return vec![f],
    };
    let input = call.required("input");
    let target = call.required("target");
    let mut findings = nll_loss_nd(
        input,
        target,
        call.tensor("weight"),
        call.int("ignore_index"),
        reduction,
    );
    if !findings.iter().any(|f| f.verdict.raises()) {
        // Log-probabilities may be -inf (zero probability); NaN and +inf are garbage.
        findings.extend(non_finite(input, "input"));
    }
    findings
}

/// log_softmax dispatches on the dtype only when there are elements to compute.
fn log_softmax_dtype(input: &TensorView<'_>) -> Option<Finding> {
    if input.numel() == 0 {
        return None;
    }
    require_float(input, "input", "log_softmax_lastdim_kernel_impl")
}

pub(crate) fn smoothing_finding(smoothing: f64) -> Finding {
    Finding::new(
        &LG208,
        Verdict::Error,
        format!("label_smoothing must be between 0.0 and 1.0. Got: {smoothing}"),
    )
    .fix("use a label_smoothing in [0, 1]; 0.1 is the usual value")
}

/// The class-probability path (`cross_entropy_loss_prob_target`).
pub(crate) fn probability_targets(
    input: &TensorView<'_>,
    target: &TensorView<'_>,
    weight: Option<&TensorView<'_>>,
    ignore: i64,
    smoothing: f64,
    reduction: Reduction,
) -> Vec<Finding> {
    if !target.dtype().is_floating() {
        let one_hot = is_binary(target);
        let f = Finding::new(
            &LG202,
            Verdict::Error,
            format!(
                "target has the shape of input ({}) but dtype {}: Expected floating point type for target with class probabilities, got {}",
                shape_str(target.shape()),
                target.dtype(),
                target.dtype().scalar_type_name()
            ),
        )
        .fix(if input.dim() <= 1 {
            "for a class index pass a 0-d target (target.argmax()), or target.float() to use it as probabilities".to_string()
        } else {
            "for class indices pass target.argmax(dim=1); to use it as class probabilities pass target.float()".to_string()
        });
        return vec![if one_hot {
            f.hint("the target holds only 0 and 1: one-hot encoded labels")
        } else {
            f
        }];
    }
    if ignore >= 0 {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("ignore_index={ignore}: ignore_index is not supported for floating point target"),
        )
        .fix("drop ignore_index for probability targets, or pass class indices (target.argmax(1).long()) to use it")];
    }
    if input.dim() == 0 {
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            "input and target are 0-d: Dimension specified as 1 but tensor has no dimensions",
        )
        .fix("give input a class dimension: logits of shape [C] or [N, C]")];
    }
    let class_dim = if input.dim() == 1 { 0 } else { 1 };
    let c = input.shape()[class_dim];
    if let Some(w) = weight {
        if !(w.dim() == 1 && w.numel() == c) {
            return vec![weight_length(c, w, true)];
        }
    }
    if let Some(f) = log_softmax_dtype(input) {
        return vec![f];
    }
    if smoothing > 1.0 {
        return vec![smoothing_finding(smoothing)];
    }
    let mut findings = Vec::new();
    if let Some(f) = soft_target_distribution(target, class_dim) {
        findings.push(f);
    }
    if let Some(f) = non_finite(input, "input") {
        findings.push(f);
    }
    if let Some(w) = weight {
        findings.extend(weight_values(w, "weight"));
    }
    if reduction == Reduction::Mean && input.numel() == 0 {
        findings.push(lg108_nan_loss::finding("the tensors are empty"));
    }
    findings
}

/// LG504: entries outside [0, 1] or slices along the class dimension that do not sum to 1.
pub(crate) fn soft_target_distribution(
    target: &TensorView<'_>,
    class_dim: usize,
) -> Option<Finding> {
    let s = scan_float(target, 0.0, 1.0);
    let c = target.shape()[class_dim];
    let tolerance = sum_tolerance(target.dtype());
    let mut rows_off = 0u64;
    let mut first_off: Option<(Vec<usize>, f64)> = None;
    if c > 0 && target.is_constant() {
        // One value everywhere: every distribution sums to c * value.
        let sum = c as f64 * target.read_f64(0);
        if (sum - 1.0).abs() > tolerance {
            rows_off = (target.numel() / c) as u64;
            first_off = Some((vec![0; target.dim()], sum));
        }
    } else if c > 0 {
        let outer: usize = target.shape()[..class_dim].iter().product();
        let inner: usize = target.shape()[class_dim + 1..].iter().product();
        let values = target.to_f64_vec();
        for o in 0..outer {
            for i in 0..inner {
                let sum: f64 = (0..c).map(|k| values[(o * c + k) * inner + i]).sum();
                if (sum - 1.0).abs() > tolerance {
                    rows_off += 1;
                    if first_off.is_none() {
                        let mut index = target.unravel(o * c * inner + i);
                        index[class_dim] = 0;
                        first_off = Some((index, sum));
                    }
                }
            }
        }
    }
    let outside = s.below + s.above + s.nan;
    if outside == 0 && rows_off == 0 {
        return None;
    }
    let mut f = Finding::new(
        &LG504,
        Verdict::Silent,
        format!(
            "class-probability target: {outside} entries outside [0, 1] and {rows_off} distributions that do not sum to 1"
        ),
    )
    .fix("normalise the targets: target = target / target.sum(dim=1, keepdim=True); or pass class indices as a long tensor");
    if let Some((index, sum)) = first_off {
        f = f.at(
            "target",
            index,
            format!(
                "sum along dim {class_dim} = {}",
                crate::tensor::format_float(sum)
            ),
        );
    }
    if s.fractional == 0 && s.nan == 0 && s.above > 0 {
        f = f.hint("the values are whole numbers above 1: class ids in a tensor that happens to have the shape of input");
    } else if s.fractional > 0 && s.below > 0 && rows_off > 0 {
        f = f
            .hint("negative, fractional targets whose rows do not sum to 1: these look like logits (a teacher's raw outputs), not probabilities")
            .fix(format!("pass probabilities: target = teacher_logits.softmax(dim={class_dim}) (divide the logits by the distillation temperature first)"));
    }
    Some(f)
}

/// How far from 1 a distribution stored in `dtype` may sum: rounding each probability to the
/// dtype moves the sum by at most the dtype's unit roundoff (2^-8 for bfloat16, 2^-11 for
/// float16), so a softmax cast to bfloat16 sums to 1 within 4 units; float32 and float64 within 1e-3.
pub(crate) fn sum_tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::BF16 => 4.0 / 256.0,
        DType::F16 => 4.0 / 2048.0,
        _ => 1e-3,
    }
}

pub(crate) fn weight_length(c: usize, w: &TensorView<'_>, probabilities: bool) -> Finding {
    Finding::new(
        &LG301,
        Verdict::Error,
        format!(
            "{}weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {}",
            if probabilities { "cross_entropy: " } else { "" },
            shape_str(w.shape())
        ),
    )
    .fix(format!("pass one weight per class: a 1-D tensor of {c} entries"))
    .maybe_hint((w.numel() == c + 1).then(|| {
        "one entry too many: weights computed over the label values including the void/background id?".to_string()
    }))
}

/// Which rule explains a target whose shape does not fit, and how to fix it.
pub(crate) fn target_shape(
    input: &TensorView<'_>,
    target: &TensorView<'_>,
    expected: &[usize],
    message: String,
) -> Finding {
    let c = if input.dim() == 1 {
        input.shape()[0]
    } else {
        input.shape()[1]
    };
    let mut rule: &Rule = &LG204;
    let mut fix = format!(
        "the target must have shape {} (input {} without its class dimension)",
        shape_str(expected),
        shape_str(input.shape())
    );
    let mut hint = None;
    if target.dim() == expected.len() + 1 {
        for d in 0..target.dim() {
            let mut squeezed = target.shape().to_vec();
            squeezed.remove(d);
            if target.shape()[d] == 1 && squeezed == expected {
                rule = &LG203;
                fix = format!("remove the size-1 dimension: target.squeeze({d})");
                hint = Some(
                    "masks read as single-channel images keep a channel dimension".to_string(),
                );
                break;
            }
        }
        if rule.code != LG203.code && is_binary(target) {
            let last = target.dim() - 1;
            if target.shape()[last] == c && target.shape()[..last] == *expected {
                rule = &LG202;
                fix = "take the class index: target.argmax(dim=-1) (or use binary_cross_entropy_with_logits for multi-label data)".to_string();
                hint = Some("the target holds only 0 and 1 with a last dimension of size C: one-hot encoded labels".into());
            }
        }
    }
    Finding::new(rule, Verdict::Error, message)
        .fix(fix)
        .maybe_hint(hint)
}

/// `nll_loss_nd`: the shared core of cross_entropy (after log_softmax) and nll_loss.
pub(crate) fn nll_loss_nd(
    input: &TensorView<'_>,
    target: &TensorView<'_>,
    weight: Option<&TensorView<'_>>,
    ignore: i64,
    reduction: Reduction,
) -> Vec<Finding> {
    if input.dim() < 1 {
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            "Expected 1 or more dimensions (got 0)",
        )
        .fix("input must be [C] or [N, C, ...]")];
    }
    let class_dim = if input.dim() == 1 { 0 } else { 1 };
    let c = input.shape()[class_dim];
    let mut expected: Vec<usize> = input.shape().to_vec();
    expected.remove(class_dim);
    if input.dim() != 1 && (target.dim() == 0 || input.shape()[0] != target.shape()[0]) {
        let got = target.shape().first().copied().unwrap_or(0);
        return vec![target_shape(
            input,
            target,
            &expected,
            format!(
                "Expected input batch_size ({}) to match target batch_size ({got}); input {}, target {}",
                input.shape()[0],
                shape_str(input.shape()),
                shape_str(target.shape())
            ),
        )];
    }
    if input.dim() == 1 && target.dim() == 1 && target.shape()[0] != 1 {
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            format!(
                "For 1D input, 1D target must have size 1, but got target size: {}",
                target.shape()[0]
            ),
        )
        .fix(
            "for one unbatched sample pass a 0-d target; for a batch pass input of shape [N, C]",
        )];
    }
    let target_dtype_ok = match input.dim() {
        1 | 2 => matches!(target.dtype(), DType::I64 | DType::U8),
        // nll_loss2d reads targets through an int64 accessor, which rejects uint8 when it is
        // made: always with reduction='none', otherwise only for non-empty targets.
        _ => {
            target.dtype() == DType::I64
                || (target.dtype() == DType::U8
                    && target.numel() == 0
                    && reduction != Reduction::None)
        }
    };
    let mut findings = Vec::new();
    match input.dim() {
        1 | 2 => {
            if target.dim() > 1 {
                return vec![target_shape(
                    input,
                    target,
                    &expected,
                    format!(
                        "target of shape {}: 0D or 1D target tensor expected, multi-target not supported",
                        shape_str(target.shape())
                    ),
                )];
            }
            if let Some(w) = weight {
                if !(w.dim() == 1 && w.numel() == c) {
                    return vec![weight_length(c, w, false)];
                }
            }
        }
        4 => {
            if target.dim() != 3 {
                return vec![target_shape(
                    input,
                    target,
                    &expected,
                    format!(
                        "target of shape {}: only batches of spatial targets supported (3D tensors) but got targets of dimension: {}",
                        shape_str(target.shape()),
                        target.dim()
                    ),
                )];
            }
            if let Some(w) = weight {
                if w.numel() != c {
                    return vec![weight_length(c, w, false)];
                }
            }
            if target.shape() != expected.as_slice() {
                return vec![target_shape(
                    input,
                    target,
                    &expected,
                    format!(
                        "size mismatch (got input: {}, target: {})",
                        shape_str(input.shape()),
                        shape_str(target.shape())
                    ),
                )];
            }
        }
        _ => {
            if target.shape().get(1..) != Some(&input.shape()[2..]) {
                return vec![target_shape(
                    input,
                    target,
                    &expected,
                    format!(
                        "Expected target size {}, got {}",
                        shape_str(&expected),
                        shape_str(target.shape())
                    ),
                )];
            }
            if let Some(w) = weight {
                if w.numel() != c {
                    return vec![weight_length(c, w, false)];
                }
            }
            if input.numel() == 0 && target.numel() > 0 {
                // The input is viewed as [N, C, 0, 0] and the target as [N, 1, -1].
                return vec![target_shape(
                    input,
                    target,
                    &expected,
                    format!(
                        "input {} is empty but target {} is not: size mismatch",
                        shape_str(input.shape()),
                        shape_str(target.shape())
                    ),
                )];
            }
        }
    }
    if !target_dtype_ok {
        let message = if target.dtype() == DType::U8 {
            format!(
                "target is torch.uint8: expected scalar type Long but found Byte (uint8 targets work only with 1-D/2-D input; this input is {}-D)",
                input.dim()
            )
        } else {
            format!(
                "expected target dtype to be Long or Byte, but got {}",
                target.dtype().scalar_type_name()
            )
        };
        if target.dtype().is_floating() {
            findings.push(
                Finding::new(&LG201, Verdict::Error, message)
                    .fix("cast the class ids: target.long()")
                    .maybe_hint(float_ids_hint(target)),
            );
            return findings;
        }
        findings.push(
            index_dtype(target, "target", &[DType::I64], message).expect("dtype is not int64"),
        );
    }
    if let Some(w) = weight {
        if w.dtype() != input.dtype() {
            findings.push(
                Finding::new(
                    &LG209,
                    Verdict::Error,
                    format!(
                        "weight is {} but input is {}: expected scalar type {} but found {}",
                        w.dtype(),
                        input.dtype(),
                        input.dtype().scalar_type_name(),
                        w.dtype().scalar_type_name()
                    ),
                )
                .fix("weight = weight.to(input.dtype)"),
            );
        }
    }
    if let Some(f) = require_float(input, "input", "nll_loss_forward_reduce_cpu_kernel_2d") {
        findings.push(f);
    }
    if target.dtype() == DType::Bool || target.dtype().is_floating() {
        return findings;
    }
    // The one pass over the target: its counts serve the class-id check and the NaN-loss check.
    let stats = scan_int(target, IntRange::below(c as i64, Some(ignore)));
    let bad = class_ids_scanned(
        target,
        "target",
        c as i64,
        ignore,
        Verdict::DeviceAssert,
        &stats,
    );
    let bad: Vec<Finding> = if input.dim() == 2 {
        bad.into_iter()
            .map(|f| background_cause(f, target, c as i64))
            .collect()
    } else {
        bad
    };
    let any_bad = !bad.is_empty();
    findings.extend(bad);
    if let Some(w) = weight {
        findings.extend(weight_values(w, "weight"));
    }
    if !any_bad && reduction == Reduction::Mean {
        if let Some(why) = nothing_to_average(target, &stats, weight, ignore) {
            findings.push(lg108_nan_loss::finding(&why));
        }
    }
    findings
}

/// Box classification (`[N, C]` logits) with labels 0..C, C the only bad value and 0 more than
/// half of at least 8 labels (detection heads sample mostly background proposals: torchvision's RoI
/// heads take 25% positives): background is label 0 and the head's class count left it out
/// (LG418).
pub(crate) fn background_cause(f: Finding, target: &TensorView<'_>, c: i64) -> Finding {
    let only_c = f.values.len() == 1 && f.values[0].value == c.to_string();
    if f.code != LG101.code || !only_c {
        return f;
    }
    let mostly_zero = crate::kernels::int_histogram(target, 4096).is_some_and(|h| {
        let labelled: u64 = h
            .iter()
            .filter(|(&v, _)| (0..=c).contains(&v))
            .map(|(_, &n)| n)
            .sum();
        // A batch of proposals, not a handful of samples: at least 8 labels, most of them 0.
        labelled >= 8 && h.get(&0).is_some_and(|&zeros| 2 * zeros > labelled)
    });
    if !mostly_zero {
        return f;
    }
    with_cause(
        f,
        &LG418,
        format!("the labels run from 0 to {c} on a head of {c} outputs: with 0 as background that is {} classes, so the class count left background out", c + 1),
        format!("count background in the head: num_classes={} (torchvision: FastRCNNPredictor(in_features, num_classes + 1)); or, if 0 is not background, map the labels to 0..{}", c + 1, c - 1),
    )
}

/// Why a mean over the targets divides by zero, if it does (`s`: the target's first pass).
fn nothing_to_average(
    target: &TensorView<'_>,
    s: &IntStats,
    weight: Option<&TensorView<'_>>,
    ignore: i64,
) -> Option<String> {
    if target.numel() == 0 {
        return Some("the target is empty".into());
    }
    if s.ignored == s.count {
        return Some(format!("every target is ignore_index ({ignore})"));
    }
    let w = weight?.to_f64_vec();
    if w.iter().all(|&x| x != 0.0) {
        return None;
    }
    let histogram = int_histogram(target, 1 << 16)?;
    let total: f64 = histogram
        .iter()
        .filter(|(&v, _)| v != ignore)
        .map(|(&v, &n)| w.get(v as usize).copied().unwrap_or(0.0) * n as f64)
        .sum();
    (total == 0.0).then(|| "the class weights of all labelled targets are zero".to_string())
}
