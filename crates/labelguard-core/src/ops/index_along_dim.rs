//! `index_add`, `index_copy`, `index_fill`: a vector of indices along `dim`
//! (TensorAdvancedIndexing.cpp, cuda/Indexing.cu, cuda/IndexKernel.cu). Messages as torch 2.15's
//! CPU path prints them.

use super::dtypes::*;
use super::index_range::*;
use super::shapes::*;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::rules::*;
use crate::tensor::TensorView;

pub(crate) fn shape_error(message: String) -> Finding {
    Finding::new(&LG213, Verdict::Error, message)
        .fix("source has the input's shape except along dim, where it has one slice per index")
}

/// LG411 for indices outside `dim` (index_fill also takes negative indices).
pub(crate) fn along_dim(
    input: &TensorView<'_>,
    index: &TensorView<'_>,
    dim: usize,
    bounds: fn(usize) -> Bounds,
    op: &str,
) -> Vec<Finding> {
    let size = nonempty_size(input, dim);
    bounded_index(
        index,
        "index",
        bounds(size),
        &LG411,
        Verdict::DeviceAssert,
        &format!("input along dim {dim}"),
        format!(
            "keep {op}'s index in [0, {}] along dim {dim}; class ids used as indices must exclude ignore values",
            size as i64 - 1
        ),
    )
    .into_iter()
    .collect()
}

/// For an empty input: an error when only `dim` is empty (torch 2.15 fails in setStorage),
/// nothing to check otherwise (no element is written).
pub(crate) fn empty_dim(
    input: &TensorView<'_>,
    index: &TensorView<'_>,
    dim: usize,
    op: &str,
) -> Option<Vec<Finding>> {
    if input.numel() != 0 {
        return None;
    }
    let others: usize = (0..input.dim())
        .filter(|&d| d != dim)
        .map(|d| input.shape()[d])
        .product();
    if nonempty_size(input, dim) == 0 && index.numel() > 0 && others > 0 {
        return Some(vec![Finding::new(
            &LG411,
            Verdict::Error,
            format!("input has size 0 along dim {dim}: {op} has nothing to write to (PyTorch fails in setStorage)"),
        )
        .fix("check why the tensor is empty")]);
    }
    Some(Vec::new())
}

/// LG210 when the index is not a vector (or a scalar); `message` is PyTorch's text.
pub(crate) fn vector_index(
    index: &TensorView<'_>,
    message: impl FnOnce() -> String,
) -> Option<Finding> {
    (index.dim() > 1).then(|| {
        Finding::new(&LG210, Verdict::Error, message()).fix("flatten the index: index.flatten()")
    })
}

/// The dim, or LG207.
pub(crate) fn dim_of(call: &Call<'_>, input: &TensorView<'_>) -> Result<usize, Finding> {
    wrap_dim(call.int("dim"), input.dim())
        .ok_or_else(|| lg207_dim_out_of_range::finding(call.int("dim"), input.dim()))
}

pub fn index_add(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let index = call.required("index");
    let source = call.required("source");
    let dim = match dim_of(call, input) {
        Ok(d) => d,
        Err(f) => return vec![f],
    };
    if let Some(f) = vector_index(index, || {
        format!(
            "index_add_(): Index is supposed to be a vector, but got dim: {} with type: {} and size: {}",
            index.dim(),
            index.dtype().scalar_type_name(),
            shape_str(index.shape())
        )
    }) {
        return vec![f];
    }
    if let Some(f) = index_dtype(
        index,
        "index",
        &[DType::I64, DType::I32],
        format!(
            "index_add_(): Expected dtype int32/int64 for index but got: {}",
            index.dtype().scalar_type_name()
        ),
    ) {
        return vec![f];
    }
    if let Some(f) = dtype_differs(source, input, "source", |a, b| {
        format!("index_add_(): self ({a}) and source ({b}) must have the same scalar type")
    }) {
        return vec![f];
    }
    let n = index.numel();
    let source_size = if source.dim() == 0 {
        1
    } else if dim < source.dim() {
        source.shape()[dim]
    } else {
        return vec![lg207_dim_out_of_range::finding(dim as i64, source.dim())];
    };
    if source.dim() > 0 && n != source_size {
        return vec![shape_error(format!(
            "index_add_(): Number of indices ({n}) should be equal to source.size(dim): ({source_size}), for dim: {dim}"
        ))];
    }
    // index_func_meta_impl (aten/src/ATen/native/TensorAdvancedIndexing.cpp) drops `dim` from
    // both shapes only when neither is 0-d, and then compares them whole: a 0-d input takes
    // only a 0-d source (issue 19: a 0-d input with a [1] source was let through).
    let same_slices = source.dim() == input.dim()
        && (0..input.dim()).all(|d| d == dim || source.shape()[d] == input.shape()[d]);
    if !same_slices {
        return vec![shape_error(format!(
            "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {} source.shape = {}",
            shape_str(input.shape()),
            shape_str(source.shape())
        ))];
    }
    if input.numel() == 0 && input.dim() > 1 {
        return Vec::new(); // nothing is written (a 1-D empty input is still checked: probed)
    }
    along_dim(input, index, dim, Bounds::below, "index_add")
}

pub fn index_copy(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let index = call.required("index");
    let source = call.required("source");
    let dim = match dim_of(call, input) {
        Ok(d) => d,
        Err(f) => return vec![f],
    };
    if let Some(f) = vector_index(index, || {
        format!(
            "index_copy_(): Index should have dimension 1 or 0 (got {})",
            index.dim()
        )
    }) {
        return vec![f];
    }
    let n = index.numel();
    if source.dim() > 0 && input.dim() > 0 && source.dim() != input.dim() {
        return vec![shape_error(format!(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source dimensionality ({}), destination dimensionality ({})",
            source.dim(),
            input.dim()
        ))];
    }
    let source_size = nonempty_size(source, dim.min(source.dim().saturating_sub(1)));
    if n != source_size {
        return vec![shape_error(format!(
            "index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({source_size})"
        ))];
    }
    if let Some(d) = (0..input.dim())
        .find(|&d| d != dim && source.dim() > 0 && source.shape()[d] != input.shape()[d])
    {
        return vec![shape_error(format!(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: {} at dimension {d} and source slice shape: {} at dimension {d}.",
            input.shape()[d],
            source.shape()[d]
        ))];
    }
    if let Some(f) = index_dtype(
        index,
        "index",
        &[DType::I64],
        format!(
            "index_copy_(): Expected a long tensor for index, but got {}",
            index.dtype().scalar_type_name()
        ),
    ) {
        return vec![f];
    }
    if let Some(f) = dtype_differs(source, input, "source", |a, b| {
        format!("index_copy_(): self and source expected to have the same dtype, but got (self) {a} and (source) {b}")
    }) {
        return vec![f];
    }
    if let Some(f) = empty_dim(input, index, dim, "index_copy") {
        return f;
    }
    along_dim(input, index, dim, Bounds::below, "index_copy")
}

pub fn index_fill(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let index = call.required("index");
    let dim = match dim_of(call, input) {
        Ok(d) => d,
        Err(f) => return vec![f],
    };
    if let Some(f) = index_dtype(
        index,
        "index",
        &[DType::I64],
        "index_fill_(): Expected dtype int64 for index.".into(),
    ) {
        return vec![f];
    }
    if let Some(f) = vector_index(index, || "Index has to be a vector/scalar".into()) {
        return vec![f];
    }
    if let Some(f) = empty_dim(input, index, dim, "index_fill") {
        return f;
    }
    along_dim(input, index, dim, Bounds::wrapping, "index_fill")
}
