//! `Tensor.masked_scatter(mask, source)`, `Tensor.masked_scatter_`, `torch.masked_scatter`: the
//! source's elements, in order, go to the True entries of the mask. PyTorch's checks, in its order
//! (torch 2.15, aten/src/ATen/native/TensorAdvancedIndexing.cpp `masked_scatter` and
//! `masked_scatter__cpu`, cpu/IndexKernel.cpp `masked_scatter_kernel`, cuda/IndexKernel.cu
//! `masked_scatter__cuda` and `masked_scatter_size_check`):
//!
//! 1. the out-of-place call broadcasts mask and self together (`expand_outplace`);
//! 2. self and source must share a dtype;
//! 3. the mask must be bool (uint8, once deprecated, is refused by the 2.x kernels);
//! 4. the kernel: as many source elements as True entries in the (broadcast) mask. CUDA counts
//!    them with a prefix sum and asserts `totalElements <= srcSize`; the CPU raises
//!    `Number of elements of source < number of ones in mask`.
//!
//! The in-place `masked_scatter_` expands the mask to self instead of broadcasting both: a mask
//! with more dimensions than self is a host error there, which PyTorch reports itself (the
//! contract reads every call as the out-of-place one; both sites count the same True entries).
//!
//! `exact` is labelguard's own: vision-language models in transformers require one image feature
//! per placeholder token (`Image features and image tokens do not match`), so a source with
//! elements left over is an error there too.

use super::dtypes::dtype_differs;
use super::shapes::broadcast;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{count, shape_str, thousands, Finding, Verdict};
use crate::kernels::{scan_int, IntRange};
use crate::rules::*;

pub fn masked_scatter(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let mask = call.required("mask");
    let source = call.required("source");
    let Some(shape) = broadcast(mask.shape(), input.shape()) else {
        return vec![Finding::new(
            &LG211,
            Verdict::Error,
            format!(
                "mask of shape {} does not broadcast to input {}: {}",
                shape_str(mask.shape()),
                shape_str(input.shape()),
                broadcast_error(mask.shape(), input.shape())
            ),
        )
        .fix("build the mask from the tensor it selects in, e.g. (input_ids == image_token_id).unsqueeze(-1).expand_as(inputs_embeds)")];
    };
    if let Some(f) = dtype_differs(source, input, "source", |a, b| {
        format!("masked_scatter: expected self and source to have same dtypes but got{a} and {b}")
    }) {
        return vec![f];
    }
    if mask.dtype() != DType::Bool {
        return vec![Finding::new(
            &LG205,
            Verdict::Error,
            format!(
                "masked_scatter_ only supports boolean masks, but got mask with dtype {}",
                mask.dtype().scalar_type_name()
            ),
        )
        .fix(
            "pass a bool mask: mask.bool() (or build it with a comparison, input_ids == token_id)",
        )];
    }
    let ones = true_entries(mask, &shape);
    let available = source.numel() as u64;
    let exact = call.bool("exact");
    if ones <= available && !(exact && ones < available) {
        return Vec::new();
    }
    let (verdict, what) = if exact {
        (
            Verdict::Error,
            "the call needs exactly one source element per True entry",
        )
    } else {
        (
            Verdict::DeviceAssert,
            "Number of elements of source < number of ones in mask",
        )
    };
    vec![Finding::new(
        &LG419,
        verdict,
        format!(
            "{} True in the mask (broadcast to {}) for {} of source {}: {what}",
            thousands(ones),
            shape_str(&shape),
            count(available, "element"),
            shape_str(source.shape()),
        ),
    )
    .hint(vlm_hint(ones, available, &shape, source.shape()))
    .fix("give one True entry per source element; for a VLM build the inputs with the model's processor (it expands <image> to one token per feature vector), one image per placeholder, and never truncate through image tokens (truncation=False or a larger max_length)")]
}

/// The counts as a vision-language model's merge reads them: placeholder tokens and feature
/// vectors of the hidden size (the last dimension of both), when the counts divide by it.
fn vlm_hint(ones: u64, available: u64, shape: &[usize], source: &[usize]) -> String {
    let hidden = shape.last().copied().unwrap_or(0) as u64;
    if hidden > 1 && source.last() == Some(&(hidden as usize)) && ones.is_multiple_of(hidden) {
        return format!(
            "as a vision-language model's merge of image features into the text embeddings: {} image placeholder tokens in input_ids for {} image feature vectors (of size {hidden})",
            thousands(ones / hidden),
            thousands(available / hidden)
        );
    }
    format!(
        "in a vision-language model the mask marks the image placeholder tokens (times the hidden size) and the source holds the image features: {} placeholder entries for {} feature entries",
        thousands(ones),
        thousands(available)
    )
}

/// The True entries of `mask` broadcast to `shape`: broadcasting repeats every element of the
/// mask the same number of times.
fn true_entries(mask: &crate::tensor::TensorView<'_>, shape: &[usize]) -> u64 {
    if mask.numel() == 0 {
        return 0;
    }
    let nonzero = scan_int(
        mask,
        IntRange {
            lo: 0,
            hi: 0,
            ignore: None,
        },
    );
    let repeats = shape.iter().product::<usize>() / mask.numel();
    nonzero.bad * repeats as u64
}

/// PyTorch's message for two shapes that do not broadcast (`infer_size`), `a` being the mask.
fn broadcast_error(a: &[usize], b: &[usize]) -> String {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
    let i = (0..n)
        .rev()
        .find(|&i| {
            let (x, y) = (at(a, i), at(b, i));
            x != y && x != 1 && y != 1
        })
        .unwrap_or(0);
    format!(
        "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension {i}",
        at(a, i),
        at(b, i)
    )
}
