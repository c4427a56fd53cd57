//! Value checks shared by the contracts: class weights (LG302), NaN and +inf in logits (LG508),
//! and whether a tensor holds only 0 and 1.

use super::evidence::WithLocated;
use crate::dtype::DType;
use crate::finding::{Finding, Verdict, MAX_LOCATIONS};
use crate::kernels::{locate, non_finite_counts, scan_float, scan_int, IntRange};
use crate::rules::{LG302, LG508};
use crate::tensor::TensorView;

/// LG302 when weights hold negative, NaN or infinite values (silent: PyTorch multiplies blindly).
pub fn weight_values(t: &TensorView<'_>, name: &str) -> Option<Finding> {
    if !t.dtype().is_floating() && t.dtype() != DType::Bool {
        let s = scan_int(
            t,
            IntRange {
                lo: 0,
                hi: i64::MAX,
                ignore: None,
            },
        );
        return (s.bad > 0).then(|| {
            let located = locate(t, MAX_LOCATIONS, |t, o| t.read_i64(o) < 0);
            Finding::new(
                &LG302,
                Verdict::Silent,
                format!("{name} has {} negative entries", s.bad),
            )
            .fix("recompute the weights; they must be non-negative and finite")
            .located(name, &located)
        });
    }
    let s = scan_float(t, 0.0, f64::INFINITY);
    let bad = s.nan + s.pos_inf + s.below;
    (bad > 0).then(|| {
        let located = locate(t, MAX_LOCATIONS, |t, o| {
            let v = t.read_f64(o);
            !(v.is_finite() && v >= 0.0)
        });
        Finding::new(
            &LG302,
            Verdict::Silent,
            if bad == 1 {
                format!("{name} has 1 entry that is negative, NaN or infinite")
            } else {
                format!("{name} has {bad} entries that are negative, NaN or infinite")
            },
        )
        .fix("recompute the weights; they must be non-negative and finite")
        .located(name, &located)
    })
}

/// LG508 when logits or log-probabilities hold NaN or +inf. (-inf is a legitimate masked
/// logit or zero probability.)
pub fn non_finite(t: &TensorView<'_>, name: &str) -> Option<Finding> {
    if !t.dtype().is_floating() {
        return None;
    }
    let s = non_finite_counts(t);
    let bad = s.nan + s.pos_inf;
    (bad > 0).then(|| {
        let located = locate(t, MAX_LOCATIONS, |t, o| {
            let v = t.read_f64(o);
            v.is_nan() || v == f64::INFINITY
        });
        Finding::new(
            &LG508,
            Verdict::Silent,
            format!("{name} holds {} NaN and {} +inf values; the loss and the gradients will be NaN", s.nan, s.pos_inf),
        )
        .fix("find where the NaN appears (learning rate, fp16 overflow, log(0)); torch.autograd.set_detect_anomaly(True) helps")
        .located(name, &located)
    })
}

/// Whether a tensor holds only 0 and 1 (read as integers or floats).
pub fn is_binary(t: &TensorView<'_>) -> bool {
    if t.dtype().is_floating() {
        let s = scan_float(t, 0.0, 1.0);
        s.count > 0 && s.nan == 0 && s.below == 0 && s.above == 0 && s.fractional == 0
    } else {
        let s = scan_int(
            t,
            IntRange {
                lo: 0,
                hi: 1,
                ignore: None,
            },
        );
        s.count > 0 && s.bad == 0
    }
}
