//! `ctc_loss` (aten/src/ATen/native/LossCTC.cpp). The host checks cover shapes and lengths;
//! target values are never checked, so out-of-range labels read out of bounds (garbage on the
//! CPU, `illegal memory access` on CUDA): a silent verdict with error severity.

use super::reduction::*;
use super::values::*;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{count, is_are, shape_str, Finding, Severity, Verdict};
use crate::rules::*;
use crate::tensor::TensorView;

/// Lengths from a tensor or an int-list argument.
pub(crate) fn lengths(call: &Call<'_>, name: &str) -> Result<Vec<i64>, Finding> {
    if let Some(t) = call.tensor(name) {
        if !t.dtype().is_integral() {
            return Err(Finding::new(
                &LG205,
                Verdict::Error,
                format!("{name} is {}: {name} must be integral", t.dtype()),
            )
            .fix(format!("{name} = {name}.long()")));
        }
        return Ok(t.to_i64_vec());
    }
    match call.int_list(name) {
        Some(v) => Ok(v.to_vec()),
        None => Err(Finding::new(
            &LG208,
            Verdict::Error,
            format!("ctc_loss needs {name} (a tensor in the file, or --arg {name}=[...])"),
        )
        .fix(format!("give {name}, one entry per sequence"))),
    }
}

pub(crate) fn lengths_finding(message: String) -> Finding {
    Finding::new(&LG407, Verdict::Error, message)
        .fix("compute lengths after any downsampling of the time axis and before padding; one entry per sequence")
}

pub fn ctc_loss(call: &Call<'_>) -> Vec<Finding> {
    if let Err(f) = reduction(call) {
        return vec![f];
    }
    let log_probs = call.required("log_probs");
    let targets = call.required("targets");
    let (il, tl) = match (
        lengths(call, "input_lengths"),
        lengths(call, "target_lengths"),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(f), _) | (_, Err(f)) => return vec![f],
    };
    if !(2..=3).contains(&log_probs.dim()) {
        let seen = if log_probs.dim() == 3 {
            3
        } else {
            log_probs.dim() + 1
        };
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            format!("log_probs of shape {}: Expected 3-dimensional tensor, but got {seen}-dimensional tensor for argument #1 'log_probs'", shape_str(log_probs.shape())),
        )
        .fix("log_probs is [T, N, C] (or [T, C] for one sequence): time first, classes last")];
    }
    if !(1..=2).contains(&targets.dim()) {
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            format!("targets of shape {}: Expected 1 to 2 dimensions, but got {}-dimensional tensor for argument #2 'targets'", shape_str(targets.shape()), targets.dim()),
        )
        .fix("targets are [N, S] padded, or 1-D concatenated (sum(target_lengths) entries)")];
    }
    if !matches!(log_probs.dtype(), DType::F32 | DType::F64) {
        return vec![Finding::new(
            &LG206,
            Verdict::Error,
            format!(
                "log_probs is {}: \"ctc_loss_cpu\" not implemented for '{}'",
                log_probs.dtype(),
                log_probs.dtype().scalar_type_name()
            ),
        )
        .fix("compute the CTC loss in float32: F.ctc_loss(log_probs.float(), ...)")];
    }
    let (t_max, batch, c) = if log_probs.dim() == 3 {
        (
            log_probs.shape()[0],
            log_probs.shape()[1],
            log_probs.shape()[2],
        )
    } else {
        (log_probs.shape()[0], 1, log_probs.shape()[1])
    };
    let blank = call.int("blank");
    if !(0..c as i64).contains(&blank) {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("blank={blank} with {c} classes: blank must be in label range"),
        )
        .fix(format!("blank must be a class id in [0, {}]", c as i64 - 1))];
    }
    if il.len() != batch {
        return vec![lengths_finding(format!(
            "{} input_lengths for {batch} sequences: input_lengths must be of size batch_size",
            il.len()
        ))];
    }
    if tl.len() != batch {
        return vec![lengths_finding(format!(
            "{} target_lengths for {batch} sequences: target_lengths must be of size batch_size",
            tl.len()
        ))];
    }
    if let Some(&bad) = tl.iter().find(|&&l| l < 0) {
        return vec![lengths_finding(format!(
            "Expected target_lengths to have value at least 0, but got value {bad}"
        ))];
    }
    let mut offsets = Vec::with_capacity(batch);
    if targets.dim() == 1 {
        let mut pos = 0i64;
        for &l in &tl {
            offsets.push(pos as usize);
            pos += l;
        }
        if targets.shape()[0] as i64 != pos {
            return vec![lengths_finding(format!(
                "targets has {} entries but sum(target_lengths) = {pos}: Expected tensor to have size {pos} at dimension 0",
                targets.shape()[0]
            ))];
        }
    } else {
        let max = tl.iter().copied().max().unwrap_or(0);
        if targets.shape()[0] != batch {
            return vec![lengths_finding(format!(
                "targets of shape {} for {batch} sequences: Expected tensor to have size {batch} at dimension 0",
                shape_str(targets.shape())
            ))];
        }
        if (targets.shape()[1] as i64) < max {
            return vec![lengths_finding(format!(
                "Expected tensor to have size at least {max} at dimension 1, but got size {} for argument #2 'targets'",
                targets.shape()[1]
            ))];
        }
        offsets = (0..batch).map(|b| b * targets.shape()[1]).collect();
    }
    for &l in &il {
        if l < 0 {
            return vec![lengths_finding(format!(
                "Expected input_lengths to have value at least 0, but got value {l}"
            ))];
        }
        if l > t_max as i64 {
            return vec![lengths_finding(format!(
                "Expected input_lengths to have value at most {t_max}, but got value {l}"
            ))];
        }
    }
    value_checks(log_probs, targets, &il, &tl, &offsets, c, blank)
}

/// The silent problems: labels out of range or equal to blank, infeasible alignments, NaN.
pub(crate) fn value_checks(
    log_probs: &TensorView<'_>,
    targets: &TensorView<'_>,
    il: &[i64],
    tl: &[i64],
    offsets: &[usize],
    c: usize,
    blank: i64,
) -> Vec<Finding> {
    let flat: Vec<usize> = targets.offsets().collect();
    let mut out_of_range: Vec<(Vec<usize>, i64)> = Vec::new();
    let mut blanks: Vec<(Vec<usize>, i64)> = Vec::new();
    let mut infeasible: Vec<(usize, i64, i64)> = Vec::new();
    for (b, (&start, &len)) in offsets.iter().zip(tl).enumerate() {
        let labels: Vec<i64> = (start..start + len as usize)
            .map(|i| targets.read_i64(flat[i]))
            .collect();
        for (k, &v) in labels.iter().enumerate() {
            let index = targets.unravel(start + k);
            if !(0..c as i64).contains(&v) {
                out_of_range.push((index, v));
            } else if v == blank {
                blanks.push((index, v));
            }
        }
        let repeats = labels.windows(2).filter(|w| w[0] == w[1]).count() as i64;
        if il[b] < len + repeats {
            infeasible.push((b, il[b], len + repeats));
        }
    }
    let mut findings = Vec::new();
    let list = |v: &[(Vec<usize>, i64)]| {
        v.iter()
            .take(crate::finding::MAX_LOCATIONS)
            .map(|(i, x)| crate::finding::Location {
                tensor: "targets".into(),
                index: i.clone(),
                value: x.to_string(),
            })
            .collect::<Vec<_>>()
    };
    if !out_of_range.is_empty() {
        let n = out_of_range.len() as u64;
        let first = format!(
            "targets{} = {}",
            shape_str(&out_of_range[0].0),
            out_of_range[0].1
        );
        let mut f = if out_of_range.iter().all(|x| x.1 == -1) {
            // LG107's padding marker, counted by target_lengths: not a class the model lacks.
            // CUDA's CTC kernels do not check labels (LossCTC.cu get_target_prime): -1 reads the
            // entry before the class row and the backward writes its gradient there, so the
            // loss and a neighbour's gradient are garbage, without an assert.
            Finding::new(
                &LG107,
                Verdict::Silent,
                format!(
                    "{} {} -1 inside target_lengths: the targets are padded with -1 and the lengths count the padding; PyTorch reads log_probs[..., -1] for it (garbage loss on the CPU and on CUDA, no error); first: {first}",
                    count(n, "target label"),
                    is_are(n),
                ),
            )
            .hint("-1 is a padding marker; ctc_loss reads the first target_lengths[i] labels of each row as real labels")
            .fix("give the true lengths: target_lengths = (targets != -1).sum(1); the padding after them is never read")
        } else {
            Finding::new(
                &LG405,
                Verdict::Silent,
                format!(
                    "{} {} outside [0, {}] ({c} classes); PyTorch reads out of bounds: garbage on the CPU, 'an illegal memory access was encountered' on CUDA; first: {first}",
                    count(n, "target label"),
                    is_are(n),
                    c - 1,
                ),
            )
            .fix(format!("make the output layer {} classes wide (alphabet + blank), or remap the labels", out_of_range.iter().map(|x| x.1).max().unwrap_or(0).max(c as i64 - 1) + 1))
        }
        .severity(Severity::Error);
        f.locations = list(&out_of_range);
        f.count = Some(n);
        findings.push(f);
    }
    if !blanks.is_empty() {
        let mut f = Finding::new(
            &LG406,
            Verdict::Silent,
            format!(
                "{} {} the blank index {blank}",
                count(blanks.len() as u64, "target label"),
                if blanks.len() == 1 { "equals" } else { "equal" }
            ),
        )
        .fix("real labels must not use the blank id: shift the alphabet (labels from 1 when blank=0)");
        f.locations = list(&blanks);
        f.count = Some(blanks.len() as u64);
        findings.push(f);
    }
    if let Some(&(b, input_len, needed)) = infeasible.first() {
        findings.push(
            Finding::new(
                &LG408,
                Verdict::Silent,
                format!(
                    "{} cannot be aligned: sequence {b} has {input_len} frames but needs at least {needed} (labels plus blanks between repeats); its loss is inf",
                    count(infeasible.len() as u64, "sequence")
                ),
            )
            .fix("downsample the time axis less, drop those samples, or pass zero_infinity=True knowingly")
            .at("input_lengths", vec![b], input_len.to_string()),
        );
    }
    findings.extend(non_finite(log_probs, "log_probs"));
    findings
}
