//! `embedding_bag` (torch/nn/functional.py, aten/src/ATen/native/EmbeddingBag.cpp,
//! cuda/EmbeddingBag.cu): the Python wrapper's shape checks, then offsets and ids. Messages as
//! torch 2.15's CPU path prints them.

use super::dtypes::*;
use super::embedding::{embedding_ids, table_rows, weight_rank};
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::rules::*;
use crate::tensor::TensorView;

pub(crate) fn offsets_finding(verdict: Verdict, message: String) -> Finding {
    Finding::new(&LG413, verdict, message).fix(
        "offsets are the start of each bag: torch.cat([lengths.new_zeros(1), lengths.cumsum(0)[:-1]])",
    )
}

pub fn embedding_bag(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let per_sample_weights = call.tensor("per_sample_weights");
    // The Python wrapper's first check (torch/nn/functional.py, embedding_bag), before the
    // weight's rank.
    if let Some(p) = per_sample_weights.filter(|p| p.shape() != input.shape()) {
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            format!(
                "embedding_bag: If per_sample_weights ({}) is not None, then it must have the same shape as the input ({})",
                shape_str(p.shape()),
                shape_str(input.shape())
            ),
        )
        .fix("give one weight per id: per_sample_weights of the ids' shape")];
    }
    let rows = match table_rows(call) {
        Ok(Some(n)) => n as usize,
        Ok(None) => return vec![weight_rank(&[])],
        Err(f) => return vec![f],
    };
    if let Some(w) = call.tensor("weight").filter(|w| w.dim() != 2) {
        return vec![weight_rank(w.shape())];
    }
    let offsets = call.tensor("offsets");
    let usage = |m: &str| {
        vec![Finding::new(&LG210, Verdict::Error, m.to_string())
            .fix("give 1-D ids with 1-D offsets, or 2-D ids [bags, ids per bag] without offsets")]
    };
    match (input.dim(), offsets) {
        (2, Some(_)) => return usage("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences"),
        (1, None) => return usage("offsets has to be a 1D Tensor but got None"),
        (1, Some(o)) if o.dim() != 1 => return usage("offsets has to be a 1D Tensor"),
        // The wrapper makes the offsets of 2-D ids with torch.arange(0, numel, input.size(1)):
        // a step of 0 for ids of width 0.
        (2, None) if input.shape()[1] == 0 => return usage("step must be nonzero"),
        (1 | 2, _) => {}
        (d, _) => return usage(&format!("input has to be 1D or 2D Tensor, but got Tensor of dimension {d}")),
    }
    let mode = call.str("mode");
    if !matches!(mode, "sum" | "mean" | "max") {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            "mode has to be one of sum, mean or max",
        )
        .fix("mode='sum', 'mean' or 'max'")];
    }
    if per_sample_weights.is_some() && mode != "sum" {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='{mode}')"),
        )
        .fix("use mode='sum' with per_sample_weights")];
    }
    let n = rows as i64;
    if let Some(pad) = call.opt_int("padding_idx") {
        if pad >= n || pad < -n {
            return vec![Finding::new(
                &LG208,
                Verdict::Error,
                format!("padding_idx must be within the number of embeddings, -{n} through {}, but got {pad}", n - 1),
            )
            .fix(format!("use a padding_idx in [-{n}, {}]", n - 1))];
        }
    }
    if let Some(f) = index_dtype(
        input,
        "input",
        &[DType::I64, DType::I32],
        format!("input is {}: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int", input.dtype()),
    ) {
        return vec![f];
    }
    // checkSameType(weight, per_sample_weights) in EmbeddingBag.cpp's check_arguments (and
    // _embedding_bag_cuda's), on the host; a table given as num_embeddings has no dtype.
    if let (Some(p), Some(w)) = (per_sample_weights, call.tensor("weight")) {
        if let Some(f) = dtype_differs(p, w, "per_sample_weights", |a, b| {
            format!("Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 'per_sample_weights'; but type torch.{a}Tensor does not equal torch.{b}Tensor (while checking arguments for embedding_bag)")
        }) {
            return vec![f];
        }
    }
    let mut used = input.numel();
    let mut findings = Vec::new();
    if let Some(o) = offsets.filter(|_| input.dim() == 1) {
        if let Some(f) = index_dtype(
            o,
            "offsets",
            &[DType::I64, DType::I32],
            format!("offsets is {}: offsets must be Long or Int", o.dtype()),
        ) {
            return vec![f];
        }
        let v = o.to_i64_vec();
        if v.is_empty() && call.bool("include_last_offset") {
            // _embedding_bag_cpu_impl_out (EmbeddingBag.cpp) and _embedding_bag_cuda
            // (cuda/EmbeddingBag.cu) both check this on the host.
            return vec![offsets_finding(
                Verdict::Error,
                "include_last_offset: number of offset should be at least 1".into(),
            )];
        }
        if v.is_empty() {
            used = 0; // zero bags: no id is read (the ids' range is checked per bag)
        }
        if let Some(&first) = v.first() {
            if first != 0 {
                return vec![offsets_finding(Verdict::Error, format!("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got {first}"))];
            }
            let last = *v.last().expect("not empty");
            if last > input.numel() as i64 {
                return vec![offsets_finding(Verdict::Error, format!("offsets[-1] can not be greater than input's length {} but got offsets[-1] of {last}", input.numel()))];
            }
            if let Some(i) = v.iter().position(|&o| o > input.numel() as i64) {
                return vec![offsets_finding(
                    Verdict::DeviceAssert,
                    format!("offsets[{i}] = {} points past the end of input (length {}): the bag reads ids that do not exist (CPU: IndexError: index out of range in self)", v[i], input.numel()),
                )];
            }
            // cuda/EmbeddingBag.cu: bag b runs from offsets[b] to offsets[b + 1] (the last bag to
            // the end of input, and with include_last_offset the last offset is no bag's end),
            // and both kernels (sum/mean and max, with or without padding_idx) assert
            // `end >= begin`. The CPU's max and padding_idx paths read such a bag as empty
            // instead, but CUDA is the device this guards (issue 19).
            let read = &v[..v.len() - usize::from(call.bool("include_last_offset"))];
            if let Some(i) = read.windows(2).position(|w| w[1] < w[0]) {
                return vec![offsets_finding(
                    Verdict::DeviceAssert,
                    format!("offsets decrease at offsets[{}] = {} < offsets[{i}] = {}: a bag ends before it begins (CUDA: Assertion `end >= begin` failed)", i + 1, v[i + 1], v[i]),
                )];
            }
            // With include_last_offset the CPU's float32 sum/mean path (fbgemm) leaves the ids
            // after the last offset in no bag, but CUDA's last bag runs to the end of input
            // (`end = numIndices` in cuda/EmbeddingBag.cu) and reads them all, as the CPU's
            // other paths do: every id is checked (issue 19).
            if call.bool("include_last_offset") && v.len() == 1 && input.numel() > 0 {
                {
                    // Probed: torch 2.15's CPU kernel aborts the process with mode='max', or
                    // with a padding_idx (free(): invalid size, munmap_chunk(): invalid pointer).
                    return vec![offsets_finding(
                        Verdict::Silent,
                        "include_last_offset=True with a single offset makes zero bags of a non-empty input; PyTorch's CPU kernel can corrupt memory and abort the process here (free(): invalid size)".into(),
                    )
                    .severity(crate::finding::Severity::Error)];
                }
            }
        }
    }
    let region = if used < input.numel() {
        TensorView::with_strides(input.dtype(), &[used], &input.strides()[..1], input.bytes())
            .expect("a prefix of a 1-D view")
    } else {
        input.clone()
    };
    findings.extend(embedding_ids(
        &region,
        "input",
        rows,
        &LG412,
        "the embedding_bag table",
    ));
    findings
}
