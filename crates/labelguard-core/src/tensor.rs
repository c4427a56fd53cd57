//! Tensor views: shape, dtype and strides over borrowed little-endian bytes.
//!
//! A view never copies. Readers (files, NumPy buffers, DLPack) produce views; the contract
//! checks and kernels only read them. Strides are in elements, as in PyTorch, and never
//! negative, so any PyTorch layout (contiguous, channels-last, transposed, sliced, expanded)
//! can be described without a copy.

use crate::dtype::DType;
use std::sync::Arc;

#[cfg(target_endian = "big")]
compile_error!(
    "labelguard reads little-endian tensor bytes and supports little-endian targets only"
);

/// Why a view could not be built: the bytes do not cover the shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TensorError {
    #[error("shape {shape:?} with {dtype} needs {needed} bytes but {available} were given")]
    TooShort {
        shape: Vec<usize>,
        dtype: DType,
        needed: usize,
        available: usize,
    },
    #[error("shape {shape:?} has {} elements, more than this machine can address", numel.map_or("more than 2^128".to_string(), |n| n.to_string()))]
    Overflow {
        shape: Vec<usize>,
        numel: Option<u128>,
    },
    #[error("{strides} strides given for a tensor of rank {rank}")]
    StrideRank { strides: usize, rank: usize },
}

/// A borrowed, read-only tensor.
#[derive(Clone, Debug)]
pub struct TensorView<'a> {
    dtype: DType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    data: &'a [u8],
}

/// Row-major strides for a shape.
pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides: Vec<usize> = contiguous_strides_rev(shape).collect();
    strides.reverse();
    strides
}

/// Row-major strides, last dimension first: each is the product of the sizes after it.
fn contiguous_strides_rev(shape: &[usize]) -> impl Iterator<Item = usize> + '_ {
    shape.iter().rev().scan(1usize, |next, &n| {
        let stride = *next;
        *next = next.saturating_mul(n.max(1));
        Some(stride)
    })
}

/// The number of elements of `shape`, or `None` when it does not fit in a `u128` (a header
/// that claims `[2^32, 2^32, 2^32, 2^32]` must read as too large, never as 0 after a wrap).
pub fn numel_u128(shape: &[usize]) -> Option<u128> {
    shape
        .iter()
        .try_fold(1u128, |acc, &d| acc.checked_mul(d as u128))
}

fn checked_numel(shape: &[usize]) -> Result<usize, TensorError> {
    let n = numel_u128(shape);
    n.and_then(|n| usize::try_from(n).ok())
        .filter(|n| n.checked_mul(16).is_some())
        .ok_or(TensorError::Overflow {
            shape: shape.to_vec(),
            numel: n,
        })
}

impl<'a> TensorView<'a> {
    /// A row-major (C-contiguous) view. `data` may be longer than needed.
    pub fn new(dtype: DType, shape: &[usize], data: &'a [u8]) -> Result<Self, TensorError> {
        Self::with_strides(dtype, shape, &contiguous_strides(shape), data)
    }

    /// A 1-D int64 view over values in memory, without a copy (a table's label column can hold
    /// 2^25 ids, and a copy would double its memory). A view's bytes are little-endian, which
    /// is how a little-endian machine holds an i64; the kernels read them natively too.
    pub fn of_i64(values: &'a [i64]) -> TensorView<'a> {
        const {
            assert!(
                cfg!(target_endian = "little"),
                "views hold little-endian bytes"
            )
        };
        // SAFETY: u8 has alignment 1, and every byte of an initialised i64 is initialised.
        let bytes = unsafe {
            std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
        };
        TensorView::new(DType::I64, &[values.len()], bytes).expect("one i64 per value")
    }

    /// A strided view; element `i` lives at byte `offset(i) * dtype.size()` of `data`.
    pub fn with_strides(
        dtype: DType,
        shape: &[usize],
        strides: &[usize],
        data: &'a [u8],
    ) -> Result<Self, TensorError> {
        Self::from_parts(dtype, shape.to_vec(), strides.to_vec(), data)
    }

    /// `with_strides` taking its shape and strides by value (the Python hot path builds them
    /// per call; no second copy).
    pub fn from_parts(
        dtype: DType,
        shape: Vec<usize>,
        strides: Vec<usize>,
        data: &'a [u8],
    ) -> Result<Self, TensorError> {
        if strides.len() != shape.len() {
            return Err(TensorError::StrideRank {
                strides: strides.len(),
                rank: shape.len(),
            });
        }
        let numel = checked_numel(&shape)?;
        let needed = if numel == 0 {
            0
        } else {
            let last: u128 = shape
                .iter()
                .zip(&strides)
                .map(|(&n, &s)| (n as u128 - 1) * s as u128)
                .sum();
            ((last + 1) * dtype.size() as u128).min(usize::MAX as u128) as usize
        };
        if needed > data.len() {
            return Err(TensorError::TooShort {
                shape,
                dtype,
                needed,
                available: data.len(),
            });
        }
        Ok(TensorView {
            dtype,
            shape,
            strides,
            data: &data[..needed],
        })
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }
    pub fn dim(&self) -> usize {
        self.shape.len()
    }
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }
    /// `tensor.size(d)` with PyTorch's negative-dimension wrapping; `None` when out of range.
    pub fn size(&self, d: i64) -> Option<usize> {
        let n = self.dim() as i64;
        let d = if d < 0 { d + n } else { d };
        (0..n).contains(&d).then(|| self.shape[d as usize])
    }
    /// The raw bytes the view spans.
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// `strides == contiguous_strides(shape)`, without building them.
    pub fn is_contiguous(&self) -> bool {
        self.numel() <= 1
            || self
                .strides
                .iter()
                .rev()
                .copied()
                .eq(contiguous_strides_rev(&self.shape))
    }

    /// True when the elements fill their byte span exactly once (contiguous, channels-last,
    /// any transpose): order-free reductions can then run straight over the bytes.
    pub fn is_dense(&self) -> bool {
        if self.is_contiguous() {
            return true;
        }
        let mut dims: Vec<(usize, usize)> = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(&n, _)| n != 1)
            .map(|(&n, &s)| (s, n))
            .collect();
        dims.sort_unstable();
        let mut expected = 1usize;
        for (stride, n) in dims {
            if stride != expected {
                return false;
            }
            expected *= n;
        }
        true
    }

    /// True for a non-empty view whose strides are all zero: one value broadcast to the
    /// whole shape (`torch.Tensor.expand` of a scalar). Kernels answer such views in O(1);
    /// the Python bindings use them to check CUDA tensors from a few reduced values.
    pub fn is_constant(&self) -> bool {
        self.numel() > 0 && self.strides.iter().all(|&s| s == 0)
    }

    /// For a view with broadcast (zero-stride) dimensions of size > 1: the view without them,
    /// and how many times each of its elements repeats. Order-free reductions (min, max, counts)
    /// run over the smaller view and scale their counts.
    pub fn without_broadcast(&self) -> Option<(TensorView<'a>, u64)> {
        let broadcast = |(&n, &s): (&usize, &usize)| s == 0 && n > 1;
        if self.numel() == 0 || !self.shape.iter().zip(&self.strides).any(broadcast) {
            return None;
        }
        let mut factor = 1u64;
        let (mut shape, mut strides) = (Vec::new(), Vec::new());
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            if s == 0 && n > 1 {
                factor *= n as u64;
            } else {
                shape.push(n);
                strides.push(s);
            }
        }
        let view = TensorView::with_strides(self.dtype, &shape, &strides, self.data).ok()?;
        Some((view, factor))
    }

    /// Storage offset (in elements) of a multi-dimensional index.
    pub fn offset_of(&self, index: &[usize]) -> usize {
        index.iter().zip(&self.strides).map(|(i, s)| i * s).sum()
    }

    /// The multi-dimensional index of a row-major flat position.
    pub fn unravel(&self, mut flat: usize) -> Vec<usize> {
        let mut index = vec![0; self.shape.len()];
        for d in (0..self.shape.len()).rev() {
            let n = self.shape[d].max(1);
            index[d] = flat % n;
            flat /= n;
        }
        index
    }

    /// Storage offsets of all elements in row-major (PyTorch iteration) order.
    pub fn offsets(&self) -> impl Iterator<Item = usize> + '_ {
        let numel = self.numel();
        let contiguous = self.is_contiguous();
        let mut index = vec![0usize; self.dim()];
        let mut offset = 0usize;
        (0..numel).map(move |flat| {
            if contiguous {
                return flat;
            }
            let current = offset;
            for d in (0..index.len()).rev() {
                index[d] += 1;
                offset += self.strides[d];
                if index[d] < self.shape[d] {
                    break;
                }
                offset -= self.strides[d] * index[d];
                index[d] = 0;
            }
            current
        })
    }

    /// The element at a storage offset, widened to i64 (floats truncate toward zero, as a
    /// cast would; bools are 0 or 1).
    pub fn read_i64(&self, offset: usize) -> i64 {
        let b = &self.data[offset * self.dtype.size()..];
        match self.dtype {
            DType::Bool => (b[0] != 0) as i64,
            DType::U8 => b[0] as i64,
            DType::I8 => b[0] as i8 as i64,
            DType::I16 => i16::from_le_bytes([b[0], b[1]]) as i64,
            DType::U16 => u16::from_le_bytes([b[0], b[1]]) as i64,
            DType::I32 => i32::from_le_bytes(b[..4].try_into().unwrap()) as i64,
            DType::I64 => i64::from_le_bytes(b[..8].try_into().unwrap()),
            _ => self.read_f64(offset) as i64,
        }
    }

    /// The element at a storage offset, widened to f64.
    pub fn read_f64(&self, offset: usize) -> f64 {
        let b = &self.data[offset * self.dtype.size()..];
        match self.dtype {
            DType::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
            DType::BF16 => half::bf16::from_le_bytes([b[0], b[1]]).to_f64(),
            DType::F32 => f32::from_le_bytes(b[..4].try_into().unwrap()) as f64,
            DType::F64 => f64::from_le_bytes(b[..8].try_into().unwrap()),
            _ => self.read_i64(offset) as f64,
        }
    }

    /// All elements in row-major order as i64 (for small tensors: lengths, weights).
    pub fn to_i64_vec(&self) -> Vec<i64> {
        self.offsets().map(|o| self.read_i64(o)).collect()
    }

    /// All elements in row-major order as f64 (for small tensors).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        self.offsets().map(|o| self.read_f64(o)).collect()
    }

    /// A printable value, integers without a fraction.
    pub fn format_value(&self, offset: usize) -> String {
        if self.dtype.is_floating() {
            format_float(self.read_f64(offset))
        } else if self.dtype == DType::Bool {
            (self.read_i64(offset) != 0).to_string()
        } else {
            self.read_i64(offset).to_string()
        }
    }
}

/// Floats as Python prints them: `nan`, `inf`, `2.0`, `0.25`.
pub fn format_float(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else if v == v.trunc() && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// An owned tensor whose bytes live in a shared buffer (a `Vec`, a memory map).
#[derive(Clone)]
pub struct Tensor {
    dtype: DType,
    shape: Vec<usize>,
    strides: Vec<usize>,
    storage: Arc<dyn AsRef<[u8]> + Send + Sync>,
    start: usize,
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .finish()
    }
}

impl Tensor {
    /// Wraps bytes that start at `start` of `storage`, validating that they cover the shape.
    pub fn new(
        dtype: DType,
        shape: Vec<usize>,
        strides: Vec<usize>,
        storage: Arc<dyn AsRef<[u8]> + Send + Sync>,
        start: usize,
    ) -> Result<Self, TensorError> {
        let bytes = (*storage).as_ref();
        TensorView::with_strides(dtype, &shape, &strides, bytes.get(start..).unwrap_or(&[]))?;
        Ok(Tensor {
            dtype,
            shape,
            strides,
            storage,
            start,
        })
    }

    /// A row-major tensor that owns its bytes.
    pub fn from_vec(dtype: DType, shape: Vec<usize>, bytes: Vec<u8>) -> Result<Self, TensorError> {
        let strides = contiguous_strides(&shape);
        Self::new(dtype, shape, strides, Arc::new(bytes), 0)
    }

    pub fn view(&self) -> TensorView<'_> {
        let bytes = (*self.storage).as_ref();
        TensorView::with_strides(self.dtype, &self.shape, &self.strides, &bytes[self.start..])
            .expect("validated at construction")
    }
}
