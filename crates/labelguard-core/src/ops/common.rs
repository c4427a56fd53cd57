//! Checks shared by several contracts: reduction, dtypes, broadcasting, index ranges, and the
//! class-id analysis that names the likely cause of out-of-range targets.

use super::evidence::WithLocated;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{count, is_are, shape_str, values_str, Finding, Verdict, MAX_LOCATIONS};
use crate::kernels::{
    int_histogram, locate, non_finite_counts, scan_float, scan_int, IntRange, IntStats,
};
use crate::rule::Rule;
use crate::rules::*;
use crate::tensor::TensorView;
use std::collections::BTreeMap;

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

/// The broadcast shape of two shapes, or `None` when they do not broadcast.
pub fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// PyTorch's `maybe_wrap_dim`: a 0-d tensor accepts dims -1 and 0.
pub fn wrap_dim(dim: i64, ndim: usize) -> Option<usize> {
    let n = ndim.max(1) as i64;
    let d = if dim < 0 { dim + n } else { dim };
    (0..n).contains(&d).then_some(d as usize)
}

/// LG207 for a `dim` outside the tensor.
pub fn dim_finding(dim: i64, ndim: usize) -> Finding {
    let n = ndim.max(1) as i64;
    Finding::new(
        &LG207,
        Verdict::Error,
        format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        ),
    )
    .fix(format!("use a dim between {} and {}", -n, n - 1))
}

/// PyTorch's `ensure_nonempty_size`: a 0-d tensor has size 1 along its one pseudo-dimension.
pub fn nonempty_size(t: &TensorView<'_>, d: usize) -> usize {
    if t.dim() == 0 {
        1
    } else {
        t.shape()[d]
    }
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

/// A finding restated with the rule, hint and fix of the cause that the evidence shows.
pub fn with_cause(f: Finding, rule: &Rule, hint: String, fix: String) -> Finding {
    let mut f = f;
    f.code = rule.code;
    f.rule = rule.name;
    f.hint = Some(hint);
    f.fix = fix;
    f
}

/// Checks every element of an integer tensor against `[0, size-1]` (negative values are out
/// of range: none of these ops wraps them) and builds `rule`'s finding with locations.
pub fn index_range(
    t: &TensorView<'_>,
    name: &str,
    size: usize,
    rule: &Rule,
    verdict: Verdict,
    what: &str,
    fix: String,
) -> Option<Finding> {
    bounded_index(t, name, Bounds::below(size), rule, verdict, what, fix)
}

/// The valid values of an index into a dimension of `size` entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub size: usize,
    /// Whether negative indices count from the end (`[-size, size-1]`), as in advanced indexing.
    pub wraps: bool,
}

impl Bounds {
    pub fn below(size: usize) -> Bounds {
        Bounds { size, wraps: false }
    }
    pub fn wrapping(size: usize) -> Bounds {
        Bounds { size, wraps: true }
    }
    fn range(self) -> IntRange {
        IntRange {
            lo: if self.wraps { -(self.size as i64) } else { 0 },
            hi: self.size as i64 - 1,
            ignore: None,
        }
    }
}

/// `index_range` for any `Bounds`: every element must lie in `[lo, size-1]`.
pub fn bounded_index(
    t: &TensorView<'_>,
    name: &str,
    bounds: Bounds,
    rule: &Rule,
    verdict: Verdict,
    what: &str,
    fix: String,
) -> Option<Finding> {
    let range = bounds.range();
    let size = bounds.size;
    let stats = scan_int(t, range);
    if stats.bad == 0 {
        return None;
    }
    let located = locate(t, MAX_LOCATIONS, |t, o| range.is_bad(t.read_i64(o)));
    let (index, value) = &located.first[0];
    let finding = Finding::new(
        rule,
        verdict,
        format!(
            "{} of {} values of {name} {} outside [{}, {}] ({what} has size {size}); first: {name}{} = {value}",
            stats.bad,
            stats.count,
            is_are(stats.bad),
            range.lo,
            range.hi,
            shape_str(index),
        ),
    )
    .fix(fix)
    .located(name, &located);
    let hint = index_hint(&stats, range.lo, size as i64);
    Some(finding.maybe_hint(hint))
}

fn index_hint(stats: &IntStats, lo: i64, size: i64) -> Option<String> {
    let (min, max) = (stats.min?, stats.max?);
    if (min == -100 || min == -1) && min < lo {
        Some(format!(
            "{min} is a padding or ignore marker: mask it out before using the tensor as an index"
        ))
    } else if max == size {
        Some(format!(
            "the largest value equals the size ({size}): an off-by-one, or a table one entry too short"
        ))
    } else if max >= 255 && max <= 255 + size && size <= 255 {
        Some("255 is the usual void label: mask it out before indexing".into())
    } else {
        None
    }
}

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

/// A hint for a float tensor given where class ids are expected.
pub fn float_ids_hint(t: &TensorView<'_>) -> Option<String> {
    let s = scan_float(t, 0.0, 1.0);
    if s.count == 0 || s.nan > 0 {
        return None;
    }
    if s.fractional == 0 {
        Some(
            "the values are whole numbers: the class ids were converted to float on the way".into(),
        )
    } else if s.below == 0 && s.above == 0 {
        Some("the values lie in [0, 1] with fractions: ids divided by 255 (torchvision's ToTensor() on a mask)?".into())
    } else {
        None
    }
}

/// The checks of class-index targets that need no logits: dtype (float ids, with a hint) and
/// values (`class_ids`). For guards that run where only the targets exist (DataLoader workers,
/// dataset scans); the verdicts are those cross_entropy would reach.
pub fn class_targets(target: &TensorView<'_>, name: &str, c: i64, ignore: i64) -> Vec<Finding> {
    if target.dtype().is_floating() {
        return vec![Finding::new(
            &LG201,
            Verdict::Error,
            format!("{name} is {}: class-index targets must be integers (expected target dtype to be Long or Byte)", target.dtype()),
        )
        .fix(format!("cast the class ids: {name}.long()"))
        .maybe_hint(float_ids_hint(target))];
    }
    if target.dtype() == DType::Bool {
        return vec![index_dtype(
            target,
            name,
            &[DType::I64],
            format!("{name} is torch.bool: expected target dtype to be Long or Byte, but got Bool"),
        )
        .expect("bool is not int64")];
    }
    class_ids(target, name, c, ignore, Verdict::DeviceAssert)
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

/// One group of out-of-range class ids and the rule that explains it.
struct Group {
    rule: &'static Rule,
    values: Vec<i64>,
}

/// The class-id analysis of a class-index target: finds every non-ignored value outside
/// `[0, c-1]`, groups the bad values by likely cause (void 255, -1 padding, Cityscapes
/// labelIds, 1-based, 0-means-ignore, plain out of range) and builds one finding per group.
pub fn class_ids(
    target: &TensorView<'_>,
    name: &str,
    c: i64,
    ignore: i64,
    verdict: Verdict,
) -> Vec<Finding> {
    let stats = scan_int(target, IntRange::below(c, Some(ignore)));
    class_ids_scanned(target, name, c, ignore, verdict, &stats)
}

/// `class_ids` for a caller that already has the first pass (`scan_int` over `[0, c-1]` with
/// `ignore`), so that a valid target is read exactly once.
pub fn class_ids_scanned(
    target: &TensorView<'_>,
    name: &str,
    c: i64,
    ignore: i64,
    verdict: Verdict,
    stats: &IntStats,
) -> Vec<Finding> {
    let range = IntRange::below(c, Some(ignore));
    let stats = *stats;
    if stats.bad == 0 {
        return Vec::new();
    }
    // Only now: the value profile, for the cause.
    let all = locate(target, 0, |t, o| range.is_bad(t.read_i64(o)));
    let bad_values: Vec<i64> = all
        .values
        .keys()
        .filter_map(|k| match k {
            crate::kernels::OrderedValue::Int(v) => Some(*v),
            _ => None,
        })
        .collect();
    let histogram = int_histogram(target, 4096);
    let labelled: Option<Vec<i64>> = histogram
        .as_ref()
        .map(|h| h.keys().copied().filter(|&v| v != ignore).collect());
    let (min, max) = match &labelled {
        Some(v) if !v.is_empty() => (v[0], v[v.len() - 1]),
        _ => (stats.min.unwrap_or(0), stats.max.unwrap_or(0)),
    };
    let groups = group_causes(
        &bad_values,
        all.other_values > 0,
        c,
        ignore,
        min,
        max,
        histogram.as_ref(),
    );
    groups
        .into_iter()
        .map(|g| {
            let wanted = g.values.clone();
            let everything = wanted.is_empty();
            let located = locate(target, MAX_LOCATIONS, |t, o| {
                let v = t.read_i64(o);
                range.is_bad(v) && (everything || wanted.contains(&v))
            });
            class_finding(g.rule, verdict, name, c, ignore, min, max, &located, &stats)
        })
        .collect()
}

fn group_causes(
    bad: &[i64],
    more_values: bool,
    c: i64,
    ignore: i64,
    min: i64,
    max: i64,
    histogram: Option<&BTreeMap<i64, u64>>,
) -> Vec<Group> {
    let one = |rule: &'static Rule| {
        vec![Group {
            rule,
            values: Vec::new(),
        }]
    };
    if !more_values {
        // Whole-dataset conventions first: they explain every bad value at once.
        let only_c = bad == [c];
        // 1-based before labelIds: a mask whose only bad id is exactly C and that has no 0 is
        // numbered from 1, also when C is 19 (labelIds would hold 0..33, not just 19).
        if only_c && min >= 1 && c >= 2 {
            return one(&LG104);
        }
        if c == 19 && max <= 33 && bad.iter().all(|&v| (19..=33).contains(&v)) {
            return one(&LG105);
        }
        if only_c && min == 0 && c >= 100 {
            return one(&LG106);
        }
        let binary_255 =
            histogram.is_some_and(|h| h.keys().all(|&v| v == 0 || v == 255 || v == ignore));
        if binary_255 && bad == [255] && c <= 2 {
            return one(&LG101);
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut push =
        |rule: &'static Rule, v: i64| match groups.iter_mut().find(|g| g.rule.code == rule.code) {
            Some(g) => g.values.push(v),
            None => groups.push(Group {
                rule,
                values: vec![v],
            }),
        };
    for &v in bad {
        if v == 255 && ignore != 255 {
            push(&LG103, v);
        } else if v == -1 && ignore != -1 {
            push(&LG107, v);
        } else if v < 0 {
            push(&LG102, v);
        } else {
            push(&LG101, v);
        }
    }
    if more_values {
        // More distinct bad values than were tallied: let the generic rule cover the rest.
        match groups.iter_mut().find(|g| g.rule.code == LG101.code) {
            Some(g) => g.values.clear(),
            None => groups.push(Group {
                rule: &LG101,
                values: Vec::new(),
            }),
        }
    }
    groups
}

/// The fix of a plain LG101: widening the head is offered first only when the ids beyond the
/// classes look like missing classes (a few, just above C); otherwise the labels are wrong
/// and the fix is to remap them.
fn lg101_fix(c: i64, max: i64, distinct: usize, binary: bool) -> String {
    // In i128: a label of i64::MAX needs a class dimension of 2^63, which has no i64.
    let width = max.max(c) as i128 + 1;
    let remap = format!("remap the labels to 0..{}", c as i128 - 1);
    if binary {
        "map the mask to 0/1: target = (mask > 127).long()".to_string()
    } else if distinct <= 8 && width - c as i128 <= 8 {
        format!("make the class dimension of input {width} wide (num_classes={width}), or {remap}")
    } else if distinct > 8 {
        format!("find what produced {distinct} distinct ids beyond the classes (a bilinear resize blends ids at every border; colour or instance ids need their mapping) and regenerate the masks or {remap}; a head {width} wide would only hide the problem")
    } else {
        format!("{remap}: ids up to {max} are not classes of a {c}-class model (widen the head to {width} only if the dataset really has {width} classes)")
    }
}

#[allow(clippy::too_many_arguments)]
fn class_finding(
    rule: &'static Rule,
    verdict: Verdict,
    name: &str,
    c: i64,
    ignore: i64,
    min: i64,
    max: i64,
    located: &crate::kernels::Located,
    stats: &IntStats,
) -> Finding {
    let f = Finding::new(rule, verdict, String::new()).located(name, located);
    let first = located
        .first
        .first()
        .map(|(i, v)| format!("; first: {name}{} = {v}", shape_str(i)))
        .unwrap_or_default();
    let values = values_str(&f.values, 6);
    let n = located.total;
    let range = format!("[0, {}]", c as i128 - 1);
    let (message, hint, fix): (String, Option<String>, String) = match rule.code {
        "LG103" => (
            format!("{} {} 255, the void label, but ignore_index is {ignore} and the model has {c} classes{first}", count(n, "target"), is_are(n)),
            Some("255 marks unlabelled pixels (object borders, padding) in VOC, Cityscapes trainIds and most segmentation pipelines".into()),
            "pass ignore_index=255 (nn.CrossEntropyLoss(ignore_index=255))".into(),
        ),
        "LG107" => (
            format!("{} {} -1, but ignore_index is {ignore}{first}", count(n, "target"), is_are(n)),
            Some(format!("-1 is a padding or 'unknown' marker; PyTorch ignores only ignore_index ({ignore})")),
            "pass ignore_index=-1, or pad the labels with -100 (PyTorch's and Hugging Face's ignore value)".into(),
        ),
        "LG102" => (
            format!("{} {} negative and not ignore_index ({ignore}): {values}{first}", count(n, "target"), is_are(n)),
            Some("a negative marker for unlabelled targets that is not the loss's ignore_index".into()),
            format!("pass ignore_index={} if that value marks unlabelled targets, or replace it with -100", located.values.keys().next().map(|v| v.to_string()).unwrap_or_default()),
        ),
        "LG104" => (
            format!("targets run from {min} to {max} with {c} classes: the labels are 1-based, so {} {} {c}{first}", count(n, "target"), if n == 1 { "equals" } else { "equal" }),
            Some(format!("no target is 0 and the largest is exactly C={c}: the classes were numbered from 1")),
            "subtract one where the labels are loaded: target = target - 1".into(),
        ),
        "LG105" => (
            format!("{} {} in 19..=33 with 19 classes: these are Cityscapes labelIds, not trainIds ({values}){first}", count(n, "target"), if n == 1 { "lies" } else { "lie" }),
            Some("Cityscapes *_gtFine_labelIds.png hold 34 ids (0..33); the 19 training classes are the *_labelTrainIds.png ids 0..18 with 255 as void".into()),
            "use the *_gtFine_labelTrainIds.png masks (cityscapesScripts createTrainIdLabelImgs.py) or map labelIds to trainIds, and pass ignore_index=255".into(),
        ),
        "LG106" => (
            format!("targets run from 0 to {c} with {c} classes: {} {} {c}{first}", count(n, "target"), if n == 1 { "equals" } else { "equal" }),
            Some(format!("C+1 distinct ids 0..{c} for a {c}-class model: as in ADE20K, 0 probably means 'other/unlabelled' and the classes are 1..{c}")),
            "reduce the zero label: t = t.long() - 1; t[t == -1] = 255; then pass ignore_index=255 (mmseg: reduce_zero_label=True)".into(),
        ),
        _ => {
            let distinct = located.values.len();
            let binary = located
                .values
                .keys()
                .all(|k| matches!(k, crate::kernels::OrderedValue::Int(255)))
                && c <= 2;
            let hint = if max == c && min == 0 {
                Some(format!("the ids span 0..{c}, one more than the {c} classes: either the head needs {} outputs (background not counted?) or 0 means 'ignore' (ADE20K-style, reduce_zero_label)", c as i128 + 1))
            } else if max == c {
                Some(format!("the largest id equals C={c}: the model may have one output too few"))
            } else if binary {
                Some("a binary mask stored as 0/255: 255 is the foreground, not a void label".into())
            } else if max > 255 && c <= 256 {
                Some(format!("ids up to {max} need 16 bits: instance ids, or a dataset's full label set (ADE20K's full index, not its 150 SceneParsing classes) instead of the {c} training classes"))
            } else if distinct > 8 {
                Some(format!("{distinct} distinct ids beyond the classes: colour values, instance ids, or a mask resized with bilinear interpolation?"))
            } else {
                None
            };
            let fix = lg101_fix(c, max, distinct, binary);
            (
                format!("{n} of {} targets {} outside {range} (C={c}, ignore_index={ignore}): {values}{first}", stats.count, is_are(n)),
                hint,
                fix,
            )
        }
    };
    let mut f = f;
    f.message = message;
    f.hint = hint;
    f.fix = fix;
    f
}
