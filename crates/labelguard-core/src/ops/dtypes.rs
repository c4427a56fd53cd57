//! Dtype checks shared by the contracts: floating-point inputs (LG206), index dtypes (LG205),
//! a source or values tensor whose dtype differs from the input's (LG209).

use crate::dtype::DType;
use crate::finding::{Finding, Verdict};
use crate::rules::{LG205, LG206, LG209};
use crate::tensor::TensorView;

/// LG206 when a tensor that must be floating point is not.
pub fn require_float(t: &TensorView<'_>, name: &str, kernel: &str) -> Option<Finding> {
    (!t.dtype().is_floating()).then(|| {
        Finding::new(
            &LG206,
            Verdict::Error,
            format!(
                "{name} is {}; \"{kernel}\" is not implemented for '{}'",
                t.dtype(),
                t.dtype().scalar_type_name()
            ),
        )
        .fix(format!("pass floating-point values: {name}.float()"))
    })
}

/// LG205 when an index tensor's dtype is not one of `allowed`.
pub fn index_dtype(
    t: &TensorView<'_>,
    name: &str,
    allowed: &[DType],
    message: String,
) -> Option<Finding> {
    (!allowed.contains(&t.dtype())).then(|| {
        Finding::new(&LG205, Verdict::Error, message).fix(format!(
            "cast once where the tensor is made: {name}.long(){}",
            if t.dtype().is_floating() {
                " (after checking that the values are whole numbers)"
            } else {
                ""
            }
        ))
    })
}

/// LG209 when `t` (a source or values tensor) has another dtype than `input`; `message` gets
/// the scalar type names of input and t (`Float`, `Double`).
pub fn dtype_differs(
    t: &TensorView<'_>,
    input: &TensorView<'_>,
    name: &str,
    message: impl FnOnce(&str, &str) -> String,
) -> Option<Finding> {
    (t.dtype() != input.dtype()).then(|| {
        Finding::new(
            &LG209,
            Verdict::Error,
            message(
                input.dtype().scalar_type_name(),
                t.dtype().scalar_type_name(),
            ),
        )
        .fix(format!("{name} = {name}.to(input.dtype)"))
    })
}
