//! `gather`, `scatter`, `scatter_add` (ScatterGatherChecks.h, TensorAdvancedIndexing.cpp,
//! ScatterGatherKernel.cu) and `index_select` (TensorAdvancedIndexing.cpp, Indexing.cu).

use super::dtypes::*;
use super::index_range::*;
use super::positions::position_cause;
use super::shapes::*;
use crate::call::Call;
use crate::dtype::DType;
use crate::finding::{shape_str, Finding, Verdict};
use crate::kernels::int_histogram;
use crate::rule::Rule;
use crate::rules::*;
use crate::tensor::TensorView;

const INDEX_DTYPES: &[DType] = &[DType::I64, DType::I32];

/// LG402 for index values outside `[0, input.size(dim) - 1]` (the kernels' device assert).
pub(crate) fn index_values(
    index: &TensorView<'_>,
    op: &str,
    input: &TensorView<'_>,
    dim: usize,
) -> Vec<Finding> {
    let size = nonempty_size(input, dim);
    let fix = format!(
        "keep {op}'s index in [0, {}] along dim; mask ignore values (255, -100) out before using labels as indices",
        size as i64 - 1
    );
    let f = index_range(
        index,
        "index",
        size,
        &LG402,
        Verdict::DeviceAssert,
        &format!("input along dim {dim}"),
        fix,
    );
    f.map(|f| label_cause(f, op, index, input, dim))
        .into_iter()
        .collect()
}

/// An `[N, 1, ...]` index on dim 1 of an `[N, C, ...]` tensor picks one class per sample: its
/// out-of-range values are labels, and their pattern names the cause (LG417, LG416). So does a
/// `[1, H, W, ...]` index scattered along dim 0 of a `[C, H, W, ...]` tensor: the one-hot of one
/// channel-first sample without a batch dimension (MONAI's `AsDiscrete(to_onehot=C)` and
/// dictionary transforms call `one_hot(label, C, dim=0)`).
pub(crate) fn label_cause(
    f: Finding,
    op: &str,
    index: &TensorView<'_>,
    input: &TensorView<'_>,
    dim: usize,
) -> Finding {
    let per_sample = dim == 1 && input.dim() >= 2;
    let channel_first = dim == 0 && op.starts_with("scatter") && input.dim() >= 3;
    let label_shaped = (per_sample || channel_first)
        && index.dim() == input.dim()
        && index.shape()[dim] == 1
        && input.shape()[dim] > 1;
    if !label_shaped {
        return f;
    }
    labels_cause(f, index, input.shape()[dim] as i64, true)
}

/// `f` (an out-of-range finding on `index`, labels into a dimension of `c` classes) with the
/// cause their values show ([`label_set_cause`]); unchanged when they show none. `all_labels`:
/// the index holds every sample's label (false for the labels of the samples a mask picks, such
/// as the foreground of a detection head, where no 0 is no sign of 1-based labels).
pub(crate) fn labels_cause(
    f: Finding,
    index: &TensorView<'_>,
    c: i64,
    all_labels: bool,
) -> Finding {
    let Some(h) = int_histogram(index, 4096) else {
        return f;
    };
    if let (Some((hint, fix)), Some(rule)) = (stray_labels(&h, c), by_code(f.code)) {
        return with_cause(f, rule, hint, fix);
    }
    match label_set_cause(&h, c, all_labels) {
        Some((rule, hint, fix)) => with_cause(f, rule, hint, fix),
        None => f,
    }
}

/// The hint and fix of labels whose ids beyond `[0, c-1]` are a few stray values, far rarer
/// than the classes beside them ([`super::id_weight`]): a data error in their samples, which no
/// convention explains and no wider dimension fixes. None when they weigh as classes do, or
/// when they are marker values (255 void, -1 padding) that have causes of their own.
pub(crate) fn stray_labels(
    h: &std::collections::BTreeMap<i64, u64>,
    c: i64,
) -> Option<(String, String)> {
    let bad: Vec<i64> = h.keys().copied().filter(|&v| v < 0 || v >= c).collect();
    let markers = bad.iter().all(|&v| v == -1 || v == 255);
    // Labels that reach exactly C are LG416's, which names both readings when they are few.
    let only_c = bad == [c];
    if bad.is_empty() || markers || only_c || !super::id_weight::stray(Some(h), c, i64::MIN, &bad) {
        return None;
    }
    let shown: Vec<String> = bad.iter().take(6).map(|v| v.to_string()).collect();
    let n: u64 = bad.iter().map(|v| h[v]).sum();
    Some((
        format!(
            "{} far rarer than the classes beside {}: a data error in the samples that hold {}, not a numbering convention and not a class the dimension of {c} lacks",
            crate::finding::count(n, "label"),
            if n == 1 { "it" } else { "them" },
            shown.join(", ")
        ),
        "correct or drop the samples that hold these values (the first place is above); neither a wider dimension nor remapping every label fixes a stray value".to_string(),
    ))
}

/// The cause a set of class labels (`h`: each id and its count) shows on a dimension of `c`
/// classes, the same reasoning on every path that takes class indices (the losses have theirs
/// in `class_ids::group_causes`): 1-based labels (LG104), a gap in the label set (LG417), raw
/// non-contiguous ids (LG420), labels that count one class more than the dimension (LG416), the
/// void label 255 (LG103), -1 padding (LG107). None: no pattern.
pub(crate) fn label_set_cause(
    h: &std::collections::BTreeMap<i64, u64>,
    c: i64,
    all_labels: bool,
) -> Option<(&'static Rule, String, String)> {
    let values: Vec<i64> = h.keys().copied().collect();
    let bad: Vec<i64> = values
        .iter()
        .copied()
        .filter(|&v| v < 0 || v >= c)
        .collect();
    let (&min, &max) = (values.first()?, values.last()?);
    // A convention or a narrow dimension is named only when the ids beyond it weigh as
    // classes do (see `stray_labels` for the rest).
    let weighs = |values: &[i64]| !super::id_weight::stray(Some(h), c, i64::MIN, values);
    if all_labels
        && bad == [c]
        && min >= 1
        && c >= 2
        && weighs(&bad)
        && super::id_weight::zero_absent_by_design(Some(h), c, i64::MIN)
    {
        return Some((
            &LG104,
            lg104_one_based_labels::hint(c),
            lg104_one_based_labels::FIX.into(),
        ));
    }
    // A gap needs a label set of at least 3 to be told from "class C with C classes" (LG416).
    if c >= 3 && values.len() as i64 == c && min == 0 && bad.len() == 1 && weighs(&bad) {
        let missing: Vec<String> = (0..max)
            .filter(|v| !h.contains_key(v))
            .map(|v| v.to_string())
            .collect();
        return Some((
            &LG417,
            format!("the labels are {values:?}: {c} distinct ids for {c} classes, but {} missing, so {max} is out of range (BraTS labels are 0, 1, 2, 4)", if missing.len() == 1 { format!("{} is", missing[0]) } else { format!("{} are", missing.join(", ")) }),
            format!("map the labels to 0..{}: e.g. label[label == {max}] = {} (MONAI: MapLabelValued)", c - 1, missing[0]),
        ));
    }
    if lg420_raw_class_ids::applies(&values, c) && weighs(&bad) {
        let (hint, fix) = lg420_raw_class_ids::hint_fix(&values, c);
        return Some((&LG420, hint, fix));
    }
    if bad == [c] && weighs(&bad) {
        return Some((
            &LG416,
            format!("the labels reach {c} on a dimension of {c} classes: ids 0..{c} are {} classes, one more than the model's class count", c + 1),
            format!("make the class count {} (num_classes / the head's outputs / the one-hot width), or map the labels to 0..{}", c + 1, c - 1),
        ));
    }
    if bad == [c] {
        // Few labels of C, far rarer than the classes: a stray label or a head one class short
        // fit both; the batch cannot tell them apart, the dataset can.
        let n = h.get(&c).copied().unwrap_or(0);
        return Some((
            &LG416,
            format!("the labels reach {c} on a dimension of {c} classes, in only {} far rarer than the classes: either stray labels (a data error in those samples) or a head one class short; the whole dataset tells them apart (labelguard scan), a batch cannot", crate::finding::count(n, "label")),
            format!("correct or drop the samples holding {c} if they are stray; only if the dataset really has {} classes, make the class count {} (num_classes / the head's outputs / the one-hot width)", c + 1, c + 1),
        ));
    }
    if crate::ops::class_ids::is_void_255(&bad, c) && bad.len() == 1 {
        return Some((
            &LG103,
            "255 is the void label of a segmentation mask (unlabelled pixels), or the foreground of a 0/255 binary mask".into(),
            "keep 255 out of the class indices: the loss's ignore_index=255 where it has one, or mask the void pixels (labels.masked_fill(labels == 255, 0) with a zero weight there); for a 0/255 binary mask use mask // 255".into(),
        ));
    }
    if bad == [-1] {
        return Some((
            &LG107,
            "-1 marks padding or a missing label: it is not a class".into(),
            "mask the -1 positions out before using the labels as indices (labels.clamp(min=0) with a zero weight there), or drop them".into(),
        ));
    }
    None
}

pub fn gather(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let index = call.required("index");
    let Some(dim) = wrap_dim(call.int("dim"), input.dim()) else {
        return vec![lg207_dim_out_of_range::finding(
            call.int("dim"),
            input.dim(),
        )];
    };
    if index.numel() == 0 {
        return Vec::new();
    }
    if let Some(f) = index_dtype(
        index,
        "index",
        INDEX_DTYPES,
        "gather(): Expected dtype int32/int64 for index".into(),
    ) {
        return vec![f];
    }
    let ndim = input.dim().max(1);
    if index.dim().max(1) != ndim {
        return vec![shape_finding(format!(
            "index of shape {} and input of shape {}: Index tensor must have the same number of dimensions as input tensor",
            shape_str(index.shape()),
            shape_str(input.shape())
        ))];
    }
    for d in (0..ndim).filter(|&d| d != dim) {
        if nonempty_size(index, d) > nonempty_size(input, d) {
            return vec![shape_finding(format!(
                "Size does not match at dimension {d} expected index {} to be no larger than self {} apart from dimension {dim}",
                shape_str(index.shape()),
                shape_str(input.shape())
            ))];
        }
    }
    let findings = index_values(index, "gather", input, dim);
    if dim + 1 != index.dim() {
        return findings;
    }
    // Along the last dim, ids counting positions are a sequence longer than the table gathered
    // from (RoBERTa gathers its token-type buffer by position ids before the position embedding).
    let rows = nonempty_size(input, dim);
    findings
        .into_iter()
        .map(|f| {
            if f.code == LG402.code {
                position_cause(&f, index, rows).unwrap_or(f)
            } else {
                f
            }
        })
        .collect()
}

pub(crate) fn shape_finding(message: String) -> Finding {
    Finding::new(&LG204, Verdict::Error, message)
        .fix("index must have as many dimensions as input, and be no larger than input (and src) outside dim")
}

pub(crate) fn scatter_common(
    call: &Call<'_>,
    op: &str,
    src: Option<&TensorView<'_>>,
) -> Vec<Finding> {
    let input = call.required("input");
    let index = call.required("index");
    let Some(dim) = wrap_dim(call.int("dim"), input.dim()) else {
        return vec![lg207_dim_out_of_range::finding(
            call.int("dim"),
            input.dim(),
        )];
    };
    if index.numel() != 0 {
        if let Some(f) = index_dtype(
            index,
            "index",
            INDEX_DTYPES,
            format!("{op}(): Expected dtype int32/int64 for index"),
        ) {
            return vec![f];
        }
    }
    if let Some(src) = src {
        if src.dtype() != input.dtype() {
            return vec![Finding::new(
                &LG209,
                Verdict::Error,
                format!(
                    "src is {} but input is {}: {op}(): Expected self.dtype to be equal to src.dtype",
                    src.dtype(),
                    input.dtype()
                ),
            )
            .fix("src = src.to(input.dtype)")];
        }
    }
    if index.numel() == 0 {
        return Vec::new();
    }
    let ndim = input.dim().max(1);
    if index.dim().max(1) != ndim {
        return vec![shape_finding(format!(
            "index of shape {} and input of shape {}: Index tensor must have the same number of dimensions as self tensor",
            shape_str(index.shape()),
            shape_str(input.shape())
        ))];
    }
    if let Some(src) = src {
        if src.dim().max(1) != ndim {
            return vec![shape_finding(format!(
                "index of shape {} and src of shape {}: Index tensor must have the same number of dimensions as src tensor",
                shape_str(index.shape()),
                shape_str(src.shape())
            ))];
        }
    }
    let too_big = (0..ndim).any(|d| d != dim && nonempty_size(index, d) > nonempty_size(input, d))
        || src.is_some_and(|s| (0..ndim).any(|d| nonempty_size(index, d) > nonempty_size(s, d)));
    if too_big {
        return vec![shape_finding(format!(
            "Expected index {} to be no larger than self {} apart from dimension {dim}{}",
            shape_str(index.shape()),
            shape_str(input.shape()),
            src.map(|s| format!(
                " and to be no larger size than src {}",
                shape_str(s.shape())
            ))
            .unwrap_or_default()
        ))];
    }
    index_values(index, op, input, dim)
}

pub fn scatter(call: &Call<'_>) -> Vec<Finding> {
    let src = call.tensor("src");
    if src.is_some() == call.opt_float("value").is_some() {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            "scatter takes either a tensor 'src' or a scalar value=V, exactly one of them",
        )
        .fix("give src in the tensor file, or --arg value=V")];
    }
    // TensorAdvancedIndexing.cpp, get_operator_enum: scatter's own reduce is add or multiply
    // ("" when none is given); scatter_reduce takes the others.
    let reduce = call.str("reduce");
    if !matches!(reduce, "" | "add" | "multiply") {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("reduce='{reduce}': reduce argument must be either add or multiply."),
        )
        .fix("pass reduce='add' or 'multiply', or call scatter_reduce for 'sum', 'prod', 'mean', 'amax' or 'amin'")];
    }
    scatter_common(call, "scatter", src)
}

pub fn scatter_add(call: &Call<'_>) -> Vec<Finding> {
    scatter_common(call, "scatter_add", call.tensor("src"))
}

pub fn scatter_reduce(call: &Call<'_>) -> Vec<Finding> {
    // torch 2.15 also accepts 'max' and 'min' (probed on the CPU path).
    let reduce = call.str("reduce");
    if !matches!(
        reduce,
        "sum" | "prod" | "mean" | "amax" | "amin" | "max" | "min"
    ) {
        return vec![Finding::new(
            &LG208,
            Verdict::Error,
            format!("reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"),
        )
        .fix("reduce='sum', 'prod', 'mean', 'amax' or 'amin'")];
    }
    scatter_common(call, "scatter_reduce", call.tensor("src"))
}

pub fn index_select(call: &Call<'_>) -> Vec<Finding> {
    let input = call.required("input");
    let index = call.required("index");
    let Some(dim) = wrap_dim(call.int("dim"), input.dim()) else {
        return vec![lg207_dim_out_of_range::finding(
            call.int("dim"),
            input.dim(),
        )];
    };
    if index.dim() > 1 {
        return vec![Finding::new(
            &LG210,
            Verdict::Error,
            format!(
                "index of shape {}: index_select(): Index is supposed to be a vector",
                shape_str(index.shape())
            ),
        )
        .fix("flatten the index: index.flatten(), then reshape the result")];
    }
    if input.dim() == 0 && index.numel() != 1 {
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            format!(
                "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                index.numel()
            ),
        )
        .fix("a 0-d input can only be indexed with one index, 0")];
    }
    if let Some(f) = index_dtype(
        index,
        "index",
        INDEX_DTYPES,
        "index_select(): Expected dtype int32 or int64 for index".into(),
    ) {
        return vec![f];
    }
    let size = nonempty_size(input, dim);
    if input.dim() > 1 && size == 0 && index.numel() > 0 {
        return vec![Finding::new(
            &LG204,
            Verdict::Error,
            format!("input has size 0 along dim {dim}: index_select(): self indexing axis dim should be positive"),
        )
        .fix("there is nothing to select from: check why the input is empty")];
    }
    index_values(index, "index_select", input, dim)
}
