//! Advanced indexing: `x[idx]` (`index`) and `x[idx] = v` / `index_put_` (`index_put`), from
//! torch/csrc/autograd/python_variable_indexing.cpp, aten/src/ATen/native/TensorAdvancedIndexing.cpp,
//! IndexingUtils.h and cuda/IndexKernel.cu. Behaviour checked against torch 2.15's CPU path.
//!
//! The index tensors are named `index`, `index1`, ..., `index7`; `dims` says at which dimension of
//! `input` each starts (default: one after the other). `input` is the tensor after its basic
//! indexing (integers, slices, None): only its shape and dtype are read.

use super::dtypes::*;
use super::index_range::*;
use super::indexing::labels_cause;
use super::shapes::*;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::kernels::{scan_int, IntRange};
use crate::rules::*;
use crate::tensor::TensorView;

/// The names of the index tensors, in order.
pub const INDEX_NAMES: [&str; 8] = [
    "index", "index1", "index2", "index3", "index4", "index5", "index6", "index7",
];

/// One index tensor and where it applies.
pub(crate) struct Placed<'c, 'a> {
    name: &'static str,
    t: &'c TensorView<'a>,
    /// The first dimension of `input` it indexes.
    dim: usize,
    /// A bool/uint8 mask (indexes `t.dim()` dimensions) or integer ids (one dimension).
    mask: bool,
}

impl Placed<'_, '_> {
    fn width(&self) -> usize {
        if self.mask {
            self.t.dim()
        } else {
            1
        }
    }
    /// The shape this index contributes to the broadcast: a mask selects its True entries.
    fn shape(&self) -> Vec<usize> {
        if !self.mask {
            return self.t.shape().to_vec();
        }
        let nonzero = scan_int(
            self.t,
            IntRange {
                lo: 0,
                hi: 0,
                ignore: None,
            },
        );
        vec![nonzero.bad as usize]
    }
}

pub(crate) fn invalid(message: String) -> Finding {
    Finding::new(&LG208, Verdict::Error, message).fix(
        "name the index tensors index, index1, ... and give dims=[d0, d1, ...] in increasing order",
    )
}

/// The index tensors, placed on `input`'s dimensions, after PyTorch's host checks of dtype,
/// rank and mask shapes.
pub(crate) fn place<'c, 'a>(
    call: &'c Call<'a>,
    input: &TensorView<'_>,
) -> Result<Vec<Placed<'c, 'a>>, Finding> {
    let given: Vec<(&'static str, &TensorView<'a>)> = INDEX_NAMES
        .iter()
        .map_while(|n| call.tensor(n).map(|t| (*n, t)))
        .collect();
    if given.is_empty()
        || INDEX_NAMES[given.len()..]
            .iter()
            .any(|n| call.tensor(n).is_some())
    {
        return Err(invalid(
            "the index tensors must be named index, index1, index2, ... without gaps".into(),
        ));
    }
    let dims = call.int_list("dims");
    if dims.is_some_and(|d| d.len() != given.len()) {
        return Err(invalid(format!(
            "dims has {} entries for {} index tensors",
            dims.map_or(0, |d| d.len()),
            given.len()
        )));
    }
    let mut placed = Vec::new();
    let mut cursor = 0usize;
    for (i, (name, t)) in given.into_iter().enumerate() {
        let mask = match t.dtype() {
            DType::I64 | DType::I32 => false,
            DType::Bool | DType::U8 => true,
            other => {
                return Err(index_dtype(
                    t,
                    name,
                    &[DType::I64],
                    format!("{name} is {other}: tensors used as indices must be long, int, byte or bool tensors"),
                )
                .expect("dtype was rejected"))
            }
        };
        let dim = match dims {
            Some(d) if d[i] < cursor as i64 => {
                return Err(invalid(format!(
                    "dims[{i}] = {} overlaps the dimensions of the index before it",
                    d[i]
                )))
            }
            Some(d) => d[i] as usize,
            None => cursor,
        };
        let p = Placed { name, t, dim, mask };
        cursor = dim + p.width();
        placed.push(p);
    }
    if cursor > input.dim() {
        return Err(Finding::new(
            &LG214,
            Verdict::Error,
            format!(
                "the indices address {cursor} dimensions of input of shape {}: too many indices for tensor of dimension {}",
                shape_str(input.shape()),
                input.dim()
            ),
        )
        .fix("check the rank of the indexed tensor: a squeezed batch dimension, or [N] where [N, C] was expected"));
    }
    for p in placed.iter().filter(|p| p.mask) {
        let wanted = &input.shape()[p.dim..p.dim + p.width()];
        if let Some(j) = (0..wanted.len()).find(|&j| p.t.shape()[j] != wanted[j]) {
            return Err(Finding::new(
                &LG211,
                Verdict::Error,
                format!(
                    "{} of shape {} indexes dims {}..{} of input {}: The shape of the mask {} at index {j} does not match the shape of the indexed tensor {} at index {}",
                    p.name,
                    shape_str(p.t.shape()),
                    p.dim,
                    p.dim + p.width(),
                    shape_str(input.shape()),
                    shape_str(p.t.shape()),
                    shape_str(input.shape()),
                    p.dim + j
                ),
            )
            .fix(if p.t.dtype() == DType::U8 {
                "a uint8 index is read as a mask: index with ids as long (x[idx.long()])"
            } else {
                "build the mask from the tensor it indexes, e.g. x[x > 0]"
            }));
        }
    }
    Ok(placed)
}

/// The broadcast shape of the index tensors (masks as their True count).
pub(crate) fn broadcast_all(placed: &[Placed<'_, '_>]) -> Result<Vec<usize>, Finding> {
    let shapes: Vec<Vec<usize>> = placed.iter().map(Placed::shape).collect();
    let mut out: Vec<usize> = Vec::new();
    for s in &shapes {
        match broadcast(&out, s) {
            Some(b) => out = b,
            None => {
                let listed: Vec<String> = shapes.iter().map(|s| shape_str(s)).collect();
                return Err(Finding::new(
                    &LG212,
                    Verdict::Error,
                    format!(
                        "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                        listed.join(", ")
                    ),
                )
                .fix("give the index tensors one shape (labels.view(-1) for [N, 1] labels), or rows[:, None] to select a block"));
            }
        }
    }
    Ok(out)
}

/// The shape of `input[indices]`: the broadcast shape replaces the indexed dimensions when they
/// are adjacent, and goes first when they are not (NumPy's rule).
fn result_shape(input: &TensorView<'_>, placed: &[Placed<'_, '_>], b: &[usize]) -> Vec<usize> {
    let first = placed[0].dim;
    let last = placed.last().map_or(0, |p| p.dim + p.width());
    let adjacent = placed
        .windows(2)
        .all(|w| w[1].dim == w[0].dim + w[0].width());
    let indexed = |d: usize| {
        placed
            .iter()
            .any(|p| (p.dim..p.dim + p.width()).contains(&d))
    };
    let rest: Vec<usize> = (0..input.dim())
        .filter(|&d| !indexed(d))
        .map(|d| input.shape()[d])
        .collect();
    if adjacent {
        let mut out = input.shape()[..first].to_vec();
        out.extend_from_slice(b);
        out.extend_from_slice(&input.shape()[last..]);
        out
    } else {
        let mut out = b.to_vec();
        out.extend(rest);
        out
    }
}

/// LG409 (a host error) for an index into a dimension of size 0, when anything is indexed.
pub(crate) fn empty_dims(
    input: &TensorView<'_>,
    placed: &[Placed<'_, '_>],
    b: &[usize],
) -> Option<Finding> {
    if b.contains(&0) {
        return None;
    }
    let p = placed
        .iter()
        .find(|p| !p.mask && input.shape()[p.dim] == 0 && p.t.numel() > 0)?;
    Some(
        Finding::new(
            &LG409,
            Verdict::Error,
            format!(
                "input has size 0 along dim {}: index is out of bounds for dimension with size 0",
                p.dim
            ),
        )
        .fix("there is nothing to select: check why the tensor is empty"),
    )
}

/// Whether the index tensors address single elements of a tensor of 2 or more dimensions (every
/// dimension indexed, masks included): `x[rows, labels]`, `t[mask, labels] = 1`. An integer index
/// into a dimension whose size no other dimension has then picks one class per element, as
/// hand-written NLL (`log_probs[arange(N), target]`) and one-hot targets (torchvision's RetinaNet
/// and FCOS heads, mmseg's `_expand_onehot_labels`) do.
fn class_dim(input: &TensorView<'_>, placed: &[Placed<'_, '_>], p: &Placed<'_, '_>) -> bool {
    let shape = input.shape();
    shape.len() >= 2
        && placed.iter().map(|q| q.width()).sum::<usize>() == shape.len()
        && shape.iter().filter(|&&n| n == shape[p.dim]).count() == 1
}

/// Whether the index values are checked when the result has no element.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum EmptyResult {
    /// The kernel reads no index when the result is empty (aten::index, index_put_ without
    /// accumulate).
    Unchecked,
    /// Every index of a non-empty broadcast is range-checked before the kernel:
    /// index_put_(accumulate=True) on CUDA, whose wrapIndexOnce (cuda/Indexing.cu) checks each
    /// broadcast index tensor with `index.numel() != 0` even where a dimension that is not
    /// indexed has size 0 (issue 19; the CPU writes nothing there and raises nothing).
    Checked,
}

/// LG409 for each integer index with values outside its dimension, unless nothing is indexed
/// (see `EmptyResult`); with `labels`, an index into a class dimension (`class_dim`) gets the
/// cause its values show (LG416, LG417).
pub(crate) fn ranges(
    input: &TensorView<'_>,
    placed: &[Placed<'_, '_>],
    b: &[usize],
    verdict: Verdict,
    labels: bool,
    empty: EmptyResult,
) -> Vec<Finding> {
    if let Some(f) = empty_dims(input, placed, b) {
        return vec![f];
    }
    let nothing_read = match empty {
        EmptyResult::Unchecked => result_shape(input, placed, b).contains(&0),
        EmptyResult::Checked => b.contains(&0),
    };
    if nothing_read {
        return Vec::new(); // no element is read or written
    }
    let mut out = Vec::new();
    for p in placed.iter().filter(|p| !p.mask) {
        let size = input.shape()[p.dim];
        let fix = format!(
            "keep {} in [-{size}, {}] (the size of dim {} is {size}); mask ignore values (255, -100) out before using labels as indices, and make lookup tables cover every value",
            p.name,
            size as i64 - 1,
            p.dim
        );
        let f = bounded_index(
            p.t,
            p.name,
            Bounds::wrapping(size),
            &LG409,
            verdict,
            &format!("input along dim {}", p.dim),
            fix,
        );
        out.extend(f.map(|f| {
            if labels && class_dim(input, placed, p) {
                labels_cause(f, p.t, size as i64, !placed.iter().any(|q| q.mask))
            } else {
                f
            }
        }));
    }
    out
}

/// The placed index tensors and their broadcast shape, or the host error that stops the call.
fn placed_and_broadcast<'c, 'a>(
    call: &'c Call<'a>,
    input: &TensorView<'_>,
) -> Result<(Vec<Placed<'c, 'a>>, Vec<usize>), Finding> {
    let placed = place(call, input)?;
    let b = broadcast_all(&placed)?;
    Ok((placed, b))
}

/// `x[indices]`.
pub fn index(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    match placed_and_broadcast(call, input) {
        Ok((placed, b)) => ranges(
            input,
            &placed,
            &b,
            Verdict::DeviceAssert,
            true,
            EmptyResult::Unchecked,
        ),
        Err(f) => vec![f],
    }
}

/// `x[indices] = values` and `x.index_put_(indices, values, accumulate)`.
pub fn index_put(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let (placed, b) = match placed_and_broadcast(call, input) {
        Ok(x) => x,
        Err(f) => return vec![f],
    };
    let values = call.tensor("values");
    if let (Some(v), [p]) = (values, placed.as_slice()) {
        if p.mask && v.numel() == 1 && !call.bool("accumulate") {
            // One mask, one value, no accumulate: PyTorch takes masked_fill_, which casts the value and
            // refuses uint8 masks.
            if p.t.dtype() == DType::U8 {
                return vec![index_dtype(
                    p.t,
                    p.name,
                    &[DType::Bool],
                    "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char".into(),
                )
                .expect("uint8 is not bool")];
            }
            return Vec::new();
        }
    }
    if let Some(values) = values {
        if let Some(f) = dtype_differs(values, input, "values", |a, b| {
            format!("Index put requires the source and destination dtypes match, got {a} for the destination and {b} for the source.")
        }) {
            return vec![f];
        }
        let result = result_shape(input, &placed, &b);
        if !expands_to(values.shape(), &result) {
            return vec![Finding::new(
                &LG213,
                Verdict::Error,
                format!(
                    "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
                    shape_str(values.shape()),
                    shape_str(&result)
                ),
            )
            .fix("select the values with the same index (x[mask] = y[mask]), or write a scalar")];
        }
    }
    // With accumulate=True the indices are checked on the host, on CUDA too.
    let (verdict, empty) = if call.bool("accumulate") {
        (Verdict::Error, EmptyResult::Checked)
    } else {
        (Verdict::DeviceAssert, EmptyResult::Unchecked)
    };
    // One value written at each addressed element: a one-hot target being built.
    let one_value = values.is_none_or(|v| v.numel() <= 1);
    ranges(input, &placed, &b, verdict, one_value, empty)
}

/// Whether a tensor of shape `from` can be `expand`ed to `to`.
pub fn expands_to(from: &[usize], to: &[usize]) -> bool {
    from.len() <= to.len()
        && from
            .iter()
            .rev()
            .zip(to.iter().rev())
            .all(|(&f, &t)| f == t || f == 1)
}
