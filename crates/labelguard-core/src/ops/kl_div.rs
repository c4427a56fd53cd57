//! `kl_div` (torch/nn/functional.py, aten/src/ATen/native/Loss.cpp): `input` holds
//! log-probabilities, `target` probabilities (log-probabilities with `log_target=True`); the loss
//! is `target * (log(target) - input)` elementwise (`xlogy(target, target) - target * input`, or
//! `exp(target) * (target - input)`), with no check of either. So the only host errors are the
//! reduction's name and shapes that do not broadcast; the rest is garbage that trains
//! (LG422, LG423).

use super::classification::sum_tolerance;
use super::reduction::reduction;
use super::shapes::broadcast;
use crate::call::Call;
use crate::finding::{shape_str, Finding, Verdict};
use crate::rules::*;
use crate::tensor::{format_float, TensorView};

pub fn kl_div(call: &Call<'_>) -> Vec<Finding> {
    // F.kl_div takes 'batchmean' itself (a sum divided by the batch size) before the enum.
    if call.str("reduction") != "batchmean" {
        if let Err(f) = reduction(call) {
            return vec![f];
        }
    }
    let input = call.required("input");
    let target = call.required("target");
    if broadcast(input.shape(), target.shape()).is_none() {
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            format!(
                "input of shape {} and target of shape {} do not broadcast: The size of tensor a must match the size of tensor b at non-singleton dimension",
                shape_str(input.shape()),
                shape_str(target.shape())
            ),
        )
        .fix("give target the shape of input: one probability per entry of the log-probabilities")];
    }
    if !input.dtype().is_floating() || !target.dtype().is_floating() || input.numel() == 0 {
        return Vec::new();
    }
    let log_target = call.bool("log_target");
    let mut findings = Vec::new();
    findings.extend(target_finding(target, log_target));
    findings.extend(input_finding(input));
    findings
}

/// How the values of a tensor sit against the distributions it should hold.
struct Profile {
    /// Finite entries below 0 and above 1 (as probabilities), or above 0 (as log-probabilities).
    negative: u64,
    above_one: u64,
    positive: u64,
    non_finite: u64,
    /// Whether the slices along some dimension (the batch dimension 0 left out, unless 1-D) sum
    /// to 1: as probabilities (`probabilities`) and, exponentiated, as log-probabilities (`log`).
    probabilities: bool,
    log: bool,
}

fn profile(t: &TensorView<'_>) -> Profile {
    let values = t.to_f64_vec();
    let tolerance = sum_tolerance(t.dtype());
    let finite = |v: &f64| v.is_finite();
    let shape = t.shape();
    let dims: Vec<usize> = if shape.len() <= 1 {
        vec![0]
    } else {
        (1..shape.len()).collect()
    };
    let sums_to_one = |map: &dyn Fn(f64) -> f64, tol: f64| {
        dims.iter().any(|&d| {
            let c = shape.get(d).copied().unwrap_or(1).max(1);
            let inner: usize = shape.iter().skip(d + 1).product();
            let outer = values.len() / (c * inner).max(1);
            (0..outer).all(|o| {
                (0..inner).all(|i| {
                    let sum: f64 = (0..c).map(|k| map(values[(o * c + k) * inner + i])).sum();
                    (sum - 1.0).abs() <= tol
                })
            })
        })
    };
    let c_max = shape.iter().copied().max().unwrap_or(1).max(1) as f64;
    Profile {
        negative: values.iter().filter(|v| finite(v) && **v < 0.0).count() as u64,
        above_one: values.iter().filter(|v| finite(v) && **v > 1.0).count() as u64,
        positive: values
            .iter()
            .filter(|v| finite(v) && **v > tolerance)
            .count() as u64,
        non_finite: values
            .iter()
            .filter(|v| v.is_nan() || **v == f64::INFINITY)
            .count() as u64,
        probabilities: sums_to_one(&|v| v, tolerance),
        // Rounding a log-probability moves its probability by up to |log p| units: the sum of the
        // exponentials by up to the entropy's worth, at most log C.
        log: sums_to_one(&|v: f64| v.exp(), tolerance * (1.0 + c_max.ln())),
    }
}

/// LG422: the target is not a distribution of the kind `log_target` says.
fn target_finding(target: &TensorView<'_>, log_target: bool) -> Option<Finding> {
    let p = profile(target);
    let (message, hint, fix) = if !log_target {
        let valid = p.negative == 0 && p.above_one == 0 && p.non_finite == 0 && p.probabilities;
        if valid {
            return None;
        }
        if p.positive == 0 && p.log {
            (
                "target holds log-probabilities (every entry <= 0, their exponentials sum to 1) but log_target=False reads it as probabilities: the loss is garbage".to_string(),
                "log_softmax output passed as the target (a teacher's log-probabilities)",
                "pass log_target=True (F.kl_div(input, target, log_target=True)), or give target = teacher_logits.softmax(dim)".to_string(),
            )
        } else {
            (
                format!(
                    "target is not a probability distribution: {} negative entries (xlogy of a negative target is NaN), {} above 1, {} NaN or infinite{}",
                    p.negative,
                    p.above_one,
                    p.non_finite,
                    if p.probabilities { "" } else { "; no dimension along which it sums to 1" }
                ),
                if p.negative > 0 { "negative, fractional targets: these look like logits (a teacher's raw outputs), not probabilities" } else { "the targets are not normalised" },
                "pass probabilities: target = teacher_logits.softmax(dim) (at the distillation temperature), or log-probabilities with log_target=True".to_string(),
            )
        }
    } else {
        if p.positive == 0 && p.non_finite == 0 && p.log {
            return None;
        }
        if p.negative == 0 && p.above_one == 0 && p.probabilities {
            (
                "target holds probabilities (entries in [0, 1] summing to 1) but log_target=True reads it as log-probabilities: the loss is garbage".to_string(),
                "softmax output passed with log_target=True",
                "drop log_target=True (probabilities are the default), or pass target.log_softmax(dim)".to_string(),
            )
        } else {
            (
                format!("target is not log-probabilities (log_target=True): {} entries above 0, their exponentials {} to 1 along any dimension", p.positive, if p.log { "sum" } else { "do not sum" }),
                "raw logits passed as the target",
                "pass target = teacher_logits.log_softmax(dim) with log_target=True".to_string(),
            )
        }
    };
    Some(
        Finding::new(&LG422, Verdict::Silent, message)
            .hint(hint)
            .fix(fix),
    )
}

/// LG423: the input is not log-probabilities.
fn input_finding(input: &TensorView<'_>) -> Option<Finding> {
    let p = profile(input);
    if p.positive == 0 && p.non_finite == 0 && (p.log || input.numel() == 1) {
        return None;
    }
    let probabilities = p.negative == 0 && p.above_one == 0 && p.probabilities;
    let (hint, fix) = if probabilities {
        ("input holds probabilities (entries in [0, 1] summing to 1): kl_div expects their logarithm", "pass input = student_logits.log_softmax(dim), not softmax")
    } else {
        ("input looks like raw logits (not normalised, entries above 0): kl_div expects log-probabilities", "pass input = student_logits.log_softmax(dim)")
    };
    let max = input
        .to_f64_vec()
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(f64::NEG_INFINITY, f64::max);
    Some(
        Finding::new(
            &LG423,
            Verdict::Silent,
            format!(
                "input is not log-probabilities: {} entries above 0 (largest {}){}; the loss is garbage",
                p.positive,
                format_float(max),
                if p.log { "" } else { ", their exponentials sum to 1 along no dimension" }
            ),
        )
        .hint(hint)
        .fix(fix),
    )
}
