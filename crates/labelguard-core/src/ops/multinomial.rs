//! `multinomial` (aten/src/ATen/native/Distributions.cpp, MultinomialKernel.cpp/.cu).
//!
//! Without replacement, or with one sample, PyTorch checks the probabilities on the host (on
//! CUDA too, with a synchronisation): a host error. With replacement and several samples the
//! CUDA kernel asserts instead: a device assert.

use super::evidence::WithLocated;
use crate::call::Call;
use crate::finding::{shape_str, Finding, Verdict, MAX_LOCATIONS};
use crate::kernels::locate;
use crate::rules::*;

pub fn multinomial(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let n = call.int("num_samples");
    let replacement = call.bool("replacement");
    if input.dim() == 0 || input.dim() > 2 {
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            format!(
                "input of shape {}: prob_dist must be 1 or 2 dim",
                shape_str(input.shape())
            ),
        )
        .fix("pass one distribution [K] or a batch of them [N, K]")];
    }
    if !input.dtype().is_floating() {
        return vec![Finding::new(
            &LG206,
            Verdict::Error,
            format!(
                "multinomial only supports floating-point dtypes for input, got: {}",
                input.dtype().scalar_type_name()
            ),
        )
        .fix("pass probabilities as floats: input.float()")];
    }
    if n <= 0 {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("num_samples={n}: cannot sample n_sample <= 0 samples"),
        )
        .fix("num_samples must be at least 1")];
    }
    let k = *input.shape().last().expect("rank checked");
    if !replacement && n as u64 > k as u64 {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("num_samples={n} > {k} categories: cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
        )
        .fix("sample with replacement=True, or ask for at most as many samples as categories")];
    }
    if k > 1 << 24 {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("{k} categories: number of categories cannot exceed 2^24"),
        )
        .fix("sample from a smaller distribution (top-k first)")];
    }
    let rows = if input.dim() == 1 {
        1
    } else {
        input.shape()[0]
    };
    if rows == 0 {
        return Vec::new();
    }
    let host = !replacement || n == 1;
    let verdict = if host {
        Verdict::Error
    } else {
        Verdict::DeviceAssert
    };
    let values = input.to_f64_vec();
    let invalid = |v: f64| !(v.is_finite() && v >= 0.0);
    let bad = values.iter().filter(|&&v| invalid(v)).count();
    if bad > 0 {
        let located = locate(input, MAX_LOCATIONS, |t, o| invalid(t.read_f64(o)));
        let nan = values.iter().filter(|v| v.is_nan()).count();
        let inf = values.iter().filter(|v| v.is_infinite()).count();
        let negative = values.iter().filter(|&&v| v < 0.0).count();
        let message = if host {
            "probability tensor contains either `inf`, `nan` or element < 0"
        } else if negative > 0 {
            "invalid multinomial distribution (encountering probability entry < 0)"
        } else {
            "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
        };
        let hint = if nan + inf > 0 {
            "NaN or inf probabilities: fp16 overflow of the logits, or every token filtered to -inf"
        } else {
            "negative entries: logits passed where probabilities are expected"
        };
        return vec![Finding::new(
            &LG505,
            verdict,
            format!("{message}: {negative} negative, {nan} NaN, {inf} infinite entries"),
        )
        .hint(hint)
        .fix(
            "sample from torch.softmax(logits.float(), dim=-1); check torch.isfinite(logits).all()",
        )
        .located("input", &located)];
    }
    let mut zero_rows = Vec::new();
    let mut short_rows = Vec::new();
    for r in 0..rows {
        let row = &values[r * k..(r + 1) * k];
        if row.iter().sum::<f64>() <= 0.0 {
            zero_rows.push(r);
        }
        if !replacement && row.iter().filter(|&&v| v > 0.0).count() < n as usize {
            short_rows.push(r);
        }
    }
    if let Some(&first) = zero_rows.first() {
        let index = if input.dim() == 1 {
            vec![]
        } else {
            vec![first]
        };
        return vec![Finding::new(
            &LG506,
            verdict,
            format!(
                "invalid multinomial distribution (sum of probabilities <= 0): {} of {rows} rows {} to zero",
                zero_rows.len(),
                if zero_rows.len() == 1 { "sums" } else { "sum" }
            ),
        )
        .fix("guard rows whose candidates were all filtered out (fall back to argmax for them)")
        .at("input", index, "row sum = 0")];
    }
    if let Some(&first) = short_rows.first() {
        let index = if input.dim() == 1 {
            vec![]
        } else {
            vec![first]
        };
        return vec![Finding::new(
            &LG507,
            Verdict::Silent,
            format!(
                "{} of {rows} rows {} fewer than num_samples={n} non-zero probabilities; without replacement PyTorch returns zero-probability categories",
                short_rows.len(),
                if short_rows.len() == 1 { "has" } else { "have" }
            ),
        )
        .fix("lower num_samples or sample with replacement=True")
        .at("input", index, "too few non-zero entries")];
    }
    Vec::new()
}
