//! `torch._C._nn.nll_loss2d` (aten/src/ATen/native/LossNLL2d.cpp, cuda/NLLLoss2d.cu): the
//! spatial loss that `F.nll_loss` and `F.cross_entropy` reach with `[N, C, H, W]` logits. Its
//! own host checks demand exactly 4-D input and 3-D target; the rest is nll_loss's contract.

use super::classification::nll_loss;
use crate::call::Call;
use crate::finding::{shape_str, Finding, Verdict};
use crate::rules::*;

pub fn nll_loss2d(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let target = call.required("target");
    if target.dim() != 3 {
        return vec![Finding::new(
            if target.dim() == 4 { &LG203 } else { &LG210 },
            Verdict::Error,
            format!(
                "target of shape {}: only batches of spatial targets supported (3D tensors) but got targets of dimension: {}",
                shape_str(target.shape()),
                target.dim()
            ),
        )
        .fix("the target is [N, H, W] class ids: mask.squeeze(1) for [N, 1, H, W]")];
    }
    if input.dim() != 4 {
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            format!(
                "input of shape {}: only batches of spatial inputs supported (4D tensors), but got input of dimension: {}",
                shape_str(input.shape()),
                input.dim()
            ),
        )
        .fix("the input is [N, C, H, W] log-probabilities")];
    }
    nll_loss(call)
}
