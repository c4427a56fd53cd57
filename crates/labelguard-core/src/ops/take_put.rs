//! `torch.take`, `Tensor.put_` (flat indices; cuda/IndexKernel.cu `cuda_take_put_kernel`) and
//! `torch.take_along_dim` (a gather after broadcasting, TensorAdvancedIndexing.cpp). Messages
//! as torch 2.15's CPU path prints them.

use super::dtypes::*;
use super::index_range::*;
use super::shapes::*;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::rules::*;
use crate::tensor::TensorView;

fn long_index(index: &TensorView<'_>, op: &str) -> Option<Finding> {
    index_dtype(
        index,
        "index",
        &[DType::I64],
        format!(
            "{op}(): Expected a long tensor for index, but got {}",
            index.dtype().scalar_type_name()
        ),
    )
}

/// LG410 for flat indices outside `[-numel, numel-1]`.
pub(crate) fn flat_range(input: &TensorView<'_>, index: &TensorView<'_>, op: &str) -> Vec<Finding> {
    let n = input.numel();
    if n == 0 && index.numel() > 0 {
        let what = if op == "take" {
            "take(): tried to take from an empty tensor"
        } else {
            "put_(): Tried to put elements into an empty tensor"
        };
        return vec![Finding::new(&LG410, Verdict::Error, what)
            .fix("the tensor is empty: check where it was made")];
    }
    bounded_index(
        index,
        "index",
        Bounds::wrapping(n),
        &LG410,
        Verdict::DeviceAssert,
        "the flattened input",
        format!(
            "flat indices address input.view(-1): keep them in [-{n}, {}] (row * input.size(1) + col for a 2-D input)",
            n as i64 - 1
        ),
    )
    .into_iter()
    .collect()
}

pub fn take(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let index = call.required("index");
    if let Some(f) = long_index(index, "take") {
        return vec![f];
    }
    flat_range(input, index, "take")
}

pub fn put(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let index = call.required("index");
    let source = call.required("source");
    if let Some(f) = long_index(index, "put_") {
        return vec![f];
    }
    if let Some(f) = dtype_differs(source, input, "source", |a, b| {
        format!("put_(): self and source expected to have the same dtype, but got self.dtype = {a} and source.dtype = {b}")
    }) {
        return vec![f];
    }
    if source.numel() != index.numel() {
        return vec![Finding::new(
            &LG213,
            Verdict::Error,
            format!(
                "put_(): Expected source and index to have the same number of elements, but got source.numel() = {}, index.numel() = {}",
                source.numel(),
                index.numel()
            ),
        )
        .fix("give one source value per index")];
    }
    flat_range(input, index, "put_")
}

pub fn take_along_dim(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let indices = call.required("indices");
    if call.opt_int("dim").is_none() {
        // Both flattened, then a gather along dim 0: gather's dtypes, and indices are not wrapped.
        if let Some(f) = index_dtype(
            indices,
            "indices",
            &[DType::I64, DType::I32],
            "gather(): Expected dtype int32/int64 for index".into(),
        ) {
            return vec![f];
        }
        return index_range(
            indices,
            "indices",
            input.numel(),
            &LG402,
            Verdict::DeviceAssert,
            "the flattened input",
            format!(
                "without dim, take_along_dim reads input.view(-1): keep indices in [0, {}]",
                input.numel() as i64 - 1
            ),
        )
        .into_iter()
        .collect();
    }
    if indices.dtype() != DType::I64 {
        return vec![index_dtype(
            indices,
            "indices",
            &[DType::I64],
            format!(
                "torch.take_along_dim(): dtype of indices should be Long but got {}",
                indices.dtype().scalar_type_name()
            ),
        )
        .expect("dtype was rejected")];
    }
    let dim = call.opt_int("dim").expect("checked above");
    if input.dim() == 0 {
        return vec![Finding::new(
            &LG207,
            Verdict::Error,
            format!("Dimension specified as {dim} but tensor has no dimensions"),
        )
        .fix("a 0-d input has no dimension to take along: leave dim out")];
    }
    let Some(d) = wrap_dim(dim, input.dim()) else {
        return vec![lg207_dim_out_of_range::finding(dim, input.dim())];
    };
    if indices.dim() != input.dim() {
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            format!(
                "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices",
                input.dim(),
                indices.dim()
            ),
        )
        .fix("unsqueeze the indices to the input's rank, e.g. idx[:, None]")];
    }
    let mut a = input.shape().to_vec();
    let mut b = indices.shape().to_vec();
    a[d] = 1;
    b[d] = 1;
    let Some(mut taken) = broadcast(&a, &b) else {
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            format!(
                "input {} and indices {} do not broadcast outside dim {d}",
                shape_str(input.shape()),
                shape_str(indices.shape())
            ),
        )
        .fix("indices must match the input (or be 1) in every dimension but dim")];
    };
    // _take_along_dim_helper (aten/src/ATen/native/TensorAdvancedIndexing.cpp) expands the
    // indices to the broadcast shape before it wraps them: when a dimension other than dim
    // broadcasts to 0, no index is left to wrap or read (issue 19).
    taken[d] = indices.shape()[d];
    if taken.contains(&0) {
        return Vec::new();
    }
    if input.shape()[d] == 0 {
        // torch 2.15 wraps the indices modulo the size, which divides by zero here.
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            format!("input has size 0 along dim {d}: there is nothing to take (ZeroDivisionError)"),
        )
        .fix("check why the input is empty")];
    }
    // With a dim, torch 2.15 takes the indices modulo the size: any value is accepted, and a
    // value beyond [-size, size-1] silently reads another entry.
    let size = input.shape()[d];
    bounded_index(
        indices,
        "indices",
        Bounds::wrapping(size),
        &LG402,
        Verdict::Silent,
        &format!("input along dim {d}"),
        format!("keep indices in [0, {}]: take_along_dim wraps larger values around and reads the wrong entry", size as i64 - 1),
    )
    .into_iter()
    .collect()
}
