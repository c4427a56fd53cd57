//! `one_hot` (aten/src/ATen/native/Onehot.cpp): host checks on the CPU; on CUDA it relies on
//! scatter's device assert for values out of range.

use super::dtypes::*;
use super::evidence::WithLocated;
use super::indexing::labels_cause;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{Finding, Verdict};
use crate::kernels::{scan_int, IntRange};
use crate::rules::*;

pub fn one_hot(call: &Call<'_>) -> Vec<Finding> {
    let t = call.required("tensor");
    let n = call.int("num_classes");
    if t.dtype() != DType::I64 {
        return vec![index_dtype(
            t,
            "tensor",
            &[DType::I64],
            format!(
                "tensor is {}: one_hot is only applicable to index tensor of type LongTensor.",
                t.dtype()
            ),
        )
        .expect("dtype is not int64")];
    }
    if t.numel() == 0 {
        return if n <= 0 {
            vec![Finding::new(
                &LG208,
                Verdict::Error,
                format!("num_classes={n} with an empty tensor: Can not infer total number of classes from empty tensor."),
            )
            .fix("pass num_classes explicitly")]
        } else {
            Vec::new()
        };
    }
    if n < -1 || n == 0 {
        let s = scan_int(
            t,
            IntRange {
                lo: 0,
                hi: i64::MAX,
                ignore: None,
            },
        );
        if s.bad == 0 {
            return vec![Finding::new(
                &LG208,
                Verdict::Error,
                format!("num_classes={n}: Class values must be smaller than num_classes (on CUDA: num_classes should be positive)"),
            )
            .fix("pass num_classes=C (the number of classes), or -1 to infer it")];
        }
    }
    let (hi, what) = if n == -1 {
        (i64::MAX, "non-negative".to_string())
    } else {
        (n.max(0) - 1, format!("in [0, {}]", n - 1))
    };
    let range = IntRange {
        lo: 0,
        hi,
        ignore: None,
    };
    let s = scan_int(t, range);
    if s.bad == 0 {
        return Vec::new();
    }
    let located = crate::kernels::locate(t, crate::finding::MAX_LOCATIONS, |t, o| {
        range.is_bad(t.read_i64(o))
    });
    let cpu = if s.min.unwrap_or(0) < 0 {
        "Class values must be non-negative."
    } else {
        "Class values must be smaller than num_classes."
    };
    let mut f = Finding::new(
        &LG403,
        if n < -1 || n == 0 { Verdict::Error } else { Verdict::DeviceAssert },
        format!(
            "{} of {} values {} not {what} (num_classes={n}); on the CPU: {cpu}; first: tensor{} = {}",
            s.bad,
            s.count,
            crate::finding::is_are(s.bad),
            crate::finding::shape_str(&located.first[0].0),
            located.first[0].1
        ),
    )
    .fix("one_hot takes class ids in [0, num_classes-1]: remap the labels to 0..num_classes-1, or make num_classes the number of classes")
    .located("tensor", &located);
    if n > 0 {
        f = labels_cause(f, t, n, true);
    }
    vec![f]
}
