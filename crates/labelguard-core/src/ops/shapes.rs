//! Dimensions and shapes: broadcasting, wrapping a `dim` (when it is outside the tensor, the
//! contracts report [`crate::rules::lg207_dim_out_of_range::finding`]), the size along a dimension
//! of a 0-d tensor.

use crate::tensor::TensorView;

/// The broadcast shape of two shapes, or `None` when they do not broadcast.
pub fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// PyTorch's `maybe_wrap_dim`: a 0-d tensor accepts dims -1 and 0.
pub fn wrap_dim(dim: i64, ndim: usize) -> Option<usize> {
    let n = ndim.max(1) as i64;
    let d = if dim < 0 { dim + n } else { dim };
    (0..n).contains(&d).then_some(d as usize)
}

/// PyTorch's `ensure_nonempty_size`: a 0-d tensor has size 1 along its one pseudo-dimension.
pub fn nonempty_size(t: &TensorView<'_>, d: usize) -> usize {
    if t.dim() == 0 {
        1
    } else {
        t.shape()[d]
    }
}
