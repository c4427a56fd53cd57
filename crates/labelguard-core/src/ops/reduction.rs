//! `reduction`, as PyTorch's loss wrappers parse it (LG208 for an unknown one), and the NaN of a
//! mean over nothing (LG108).

use crate::call::Call;
use crate::finding::{Finding, Verdict};
use crate::rules::{LG108, LG208};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

/// `reduction` as PyTorch's Python wrappers parse it (`_Reduction.get_enum`).
pub fn reduction(call: &Call<'_>) -> Result<Reduction, Finding> {
    match call.str("reduction") {
        "none" => Ok(Reduction::None),
        "mean" => Ok(Reduction::Mean),
        "sum" => Ok(Reduction::Sum),
        other => Err(Finding::new(
            &LG208,
            Verdict::Error,
            format!("{other} is not a valid value for reduction"),
        )
        .fix("use reduction='mean', 'sum' or 'none'")),
    }
}

/// LG108: a mean over nothing (every target ignored, zero total weight, empty tensors) is NaN.
pub fn nan_loss(why: &str) -> Finding {
    Finding::new(
        &LG108,
        Verdict::Silent,
        format!("with reduction='mean' the loss is NaN: {why}"),
    )
    .fix("skip batches without labelled targets, or use reduction='sum' and divide by a count you control")
}
