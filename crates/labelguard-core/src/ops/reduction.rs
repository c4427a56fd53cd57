//! `reduction`, as PyTorch's loss wrappers parse it (LG208 for an unknown one). The NaN of a mean
//! over nothing is LG108's, built in its rule file ([`crate::rules::lg108_nan_loss::finding`]).

use crate::call::Call;
use crate::finding::{Finding, Verdict};
use crate::rules::LG208;

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
