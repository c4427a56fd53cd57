//! `bincount` (aten/src/ATen/native/SummaryOps.cpp): host checks on both devices.

use super::common::*;
use super::evidence::WithLocated;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict, MAX_LOCATIONS};
use crate::kernels::{locate, scan_int, IntRange};
use crate::rules::*;

pub fn bincount(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let minlength = call.int("minlength");
    if !input.dtype().is_integral() || input.dtype() == DType::U16 {
        return vec![index_dtype(
            input,
            "input",
            &[DType::U8, DType::I8, DType::I16, DType::I32, DType::I64],
            format!(
                "\"bincount_cpu\" not implemented for '{}'",
                input.dtype().scalar_type_name()
            ),
        )
        .expect("dtype is not an accepted integer type")];
    }
    if minlength < 0 {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("minlength={minlength}: minlength should be >= 0"),
        )
        .fix("minlength is the smallest number of bins, e.g. the number of classes")];
    }
    if input.dim() == 1 && input.numel() == 0 {
        return Vec::new();
    }
    if input.dim() != 1 {
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            format!(
                "input of shape {}: bincount only supports 1-d non-negative integral inputs.",
                shape_str(input.shape())
            ),
        )
        .fix("flatten first: torch.bincount(t.flatten(), minlength=C)")];
    }
    let range = IntRange {
        lo: 0,
        hi: i64::MAX,
        ignore: None,
    };
    let s = scan_int(input, range);
    if s.bad > 0 {
        let located = locate(input, MAX_LOCATIONS, |t, o| range.is_bad(t.read_i64(o)));
        return vec![Finding::new(
            &LG404,
            Verdict::Error,
            format!(
                "{} negative values: bincount only supports 1-d non-negative integral inputs.",
                s.bad
            ),
        )
        .fix("leave the ignore value out first: torch.bincount(t[t >= 0], minlength=C)")
        .located("input", &located)];
    }
    if let Some(w) = call.tensor("weights") {
        if w.dim() != 1 || w.shape()[0] != input.shape()[0] {
            return vec![Finding::new(
                &LG204,
                Verdict::Error,
                format!(
                    "weights of shape {} for input of shape {}: weights should be 1-d and have the same length as input",
                    shape_str(w.shape()),
                    shape_str(input.shape())
                ),
            )
            .fix("pass one weight per input element")];
        }
    }
    Vec::new()
}
