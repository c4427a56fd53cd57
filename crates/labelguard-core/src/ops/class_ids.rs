//! The class-id analysis behind LG101–LG107: the targets of a class-index loss outside
//! `[0, C-1]`, grouped by their likely cause (void 255, -1 padding, Cityscapes labelIds,
//! 1-based, 0-means-ignore, plain out of range), one finding per cause. The dtype and shape
//! rules that come before it, for targets without logits, are [`super::label_target`].

use super::class_id_words::{ClassIdCause, ClassIdFacts};
use super::evidence::WithLocated;
use super::id_weight::{stray, zero_absent_by_design};
use crate::finding::{shape_str, values_str, Finding, Verdict, MAX_LOCATIONS};
use crate::kernels::{int_histogram, locate, scan_int, IntRange, IntStats, Located, OrderedValue};
use crate::rule::Fact;
use crate::rules::*;
use crate::tensor::TensorView;
use std::collections::BTreeMap;

/// One group of out-of-range class ids and the cause that explains it.
pub(crate) struct Group {
    cause: &'static ClassIdCause,
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
            OrderedValue::Int(v) => Some(*v),
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
    let ids = labelled.unwrap_or_default();
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
            let few = !everything && stray(histogram.as_ref(), c, ignore, &wanted);
            class_finding(
                g.cause,
                verdict,
                name,
                c,
                ignore,
                min,
                max,
                &located,
                stats.count,
                &ids,
                few,
            )
        })
        .collect()
}

pub(crate) fn group_causes(
    bad: &[i64],
    more_values: bool,
    c: i64,
    ignore: i64,
    min: i64,
    max: i64,
    histogram: Option<&BTreeMap<i64, u64>>,
) -> Vec<Group> {
    let one = |cause: &'static ClassIdCause| {
        vec![Group {
            cause,
            values: Vec::new(),
        }]
    };
    // A convention is named only on its evidence: ids beyond the classes that weigh as classes
    // do (a stray patch or row is a data error in its sample, LG101 below).
    let weighs = |values: &[i64]| !stray(histogram, c, ignore, values);
    if !more_values {
        // Whole-dataset conventions first: they explain every bad value at once.
        let only_c = bad == [c];
        // 1-based before labelIds: a mask whose only bad id is exactly C and that has no 0 is
        // numbered from 1, also when C is 19 (labelIds would hold 0..33, not just 19).
        if only_c && min >= 1 && c >= 2 && weighs(bad) {
            // A few labels without a 0 show no numbering: C out of range (LG101), which a scan
            // weighs again on the whole dataset (`reweigh`), as it did a 1-based file.
            if !zero_absent_by_design(histogram, c, ignore) {
                return one(&lg101_class_id_out_of_range::CAUSE);
            }
            return one(&lg104_one_based_labels::CAUSE);
        }
        if c == 19 && lg105_cityscapes_label_ids::shape(bad, max, histogram, ignore) {
            return one(&lg105_cityscapes_label_ids::CAUSE);
        }
        let ids: Vec<i64> = histogram
            .map(|h| h.keys().copied().filter(|&v| v != ignore).collect())
            .unwrap_or_default();
        let beyond: Vec<i64> = ids.iter().copied().filter(|&v| v >= c).collect();
        if lg420_raw_class_ids::applies(&ids, c) && weighs(&beyond) {
            return one(&lg420_raw_class_ids::CAUSE);
        }
        if only_c && min == 0 && c >= 100 && weighs(bad) {
            return one(&lg106_zero_means_ignore::CAUSE);
        }
        let binary_255 =
            histogram.is_some_and(|h| h.keys().all(|&v| v == 0 || v == 255 || v == ignore));
        if binary_255 && bad == [255] && c <= 2 {
            return one(&lg101_class_id_out_of_range::CAUSE);
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut push = |cause: &'static ClassIdCause, v: i64| match groups
        .iter_mut()
        .find(|g| std::ptr::eq(g.cause, cause))
    {
        Some(g) => g.values.push(v),
        None => groups.push(Group {
            cause,
            values: vec![v],
        }),
    };
    let void = is_void_255(bad, c);
    for &v in bad {
        if v == 255 && ignore != 255 && void {
            push(&lg103_void_label_not_ignored::CAUSE, v);
        } else if v == -1 && ignore != -1 {
            push(&lg107_padding_value_not_ignored::CAUSE, v);
        } else if v < 0 {
            push(&lg102_negative_class_id::CAUSE, v);
        } else {
            push(&lg101_class_id_out_of_range::CAUSE, v);
        }
    }
    if more_values {
        // More distinct bad values than were tallied: let the generic rule cover the rest.
        let generic = &lg101_class_id_out_of_range::CAUSE;
        match groups.iter_mut().find(|g| std::ptr::eq(g.cause, generic)) {
            Some(g) => g.values.clear(),
            None => groups.push(Group {
                cause: generic,
                values: Vec::new(),
            }),
        }
    }
    groups
}

/// A class-id finding of one part (a file of a scan) whose only bad id is C, weighed again on the
/// evidence of the whole (`histogram`: every labelled id of the dataset and its count): whether
/// the labels are numbered from 1 (LG104) or 0 means "other" (LG106) is a property of the
/// dataset, which one file cannot show (a file without a 0, a rare class C), and a value that is
/// stray in the dataset is a data error in its file. `count` is the number of targets the file
/// holds. Returns the finding re-worded when the whole names another cause, else `None`.
pub fn reweigh(
    f: &Finding,
    histogram: &BTreeMap<i64, u64>,
    c: i64,
    ignore: i64,
    count: u64,
) -> Option<Finding> {
    let causes = [
        &lg101_class_id_out_of_range::CAUSE,
        &lg104_one_based_labels::CAUSE,
        &lg106_zero_means_ignore::CAUSE,
    ];
    let only_c = matches!(f.values.as_slice(), [v] if v.value.parse::<i64>() == Ok(c));
    if !only_c || !causes.iter().any(|k| k.rule.code == f.code) {
        return None;
    }
    let ids: Vec<i64> = histogram
        .iter()
        .filter(|(&v, &n)| v != ignore && n > 0)
        .map(|(&v, _)| v)
        .collect();
    let (&min, &max) = (ids.first()?, ids.last()?);
    let groups = group_causes(&[c], false, c, ignore, min, max, Some(histogram));
    let [Group { cause, .. }] = groups.as_slice() else {
        return None;
    };
    let few = stray(Some(histogram), c, ignore, &[c]);
    let was_stray = f.fact == Some(Fact::StrayValues);
    if cause.rule.code == f.code && (f.code != LG101.code || few == was_stray) {
        return None;
    }
    // A file numbered from 1 on its own strong evidence (no 0, C as common as its classes)
    // stays so beside files that hold 0: the whole names no other convention, nor a stray.
    if f.code == lg104_one_based_labels::CAUSE.rule.code && cause.rule.code == LG101.code && !few {
        return None;
    }
    // The file's own evidence, as its finding recorded it.
    let located = Located {
        first: f
            .locations
            .iter()
            .map(|l| (l.index.clone(), l.value.clone()))
            .collect(),
        values: [(OrderedValue::Int(c), f.count.unwrap_or(0))].into(),
        other_values: 0,
        total: f.count.unwrap_or(0),
    };
    let name = f.locations.first().map_or("target", |l| l.tensor.as_str());
    Some(class_finding(
        cause, f.verdict, name, c, ignore, min, max, &located, count, &ids, few,
    ))
}

/// Whether 255 among the bad ids is the void label of a mask: beside it at most one other id
/// beyond the classes (1-based labels with a void border: C and 255) and none above it. Among
/// many raw ids (0, 17, 64, 128, 255, ...) 255 is just one more of them.
pub(crate) fn is_void_255(bad: &[i64], c: i64) -> bool {
    c < 255
        && bad.contains(&255)
        && bad.iter().all(|&v| v <= 255)
        && bad.iter().filter(|&&v| v >= c && v != 255).count() <= 1
}

/// The finding of one cause: the facts gathered here, worded by the cause's rule file.
#[allow(clippy::too_many_arguments)]
pub(crate) fn class_finding(
    cause: &ClassIdCause,
    verdict: Verdict,
    name: &str,
    c: i64,
    ignore: i64,
    min: i64,
    max: i64,
    located: &Located,
    count: u64,
    ids: &[i64],
    stray: bool,
) -> Finding {
    let mut f = Finding::new(cause.rule, verdict, String::new()).located(name, located);
    let facts = ClassIdFacts {
        n: located.total,
        count,
        c,
        ignore,
        min,
        max,
        first: located
            .first
            .first()
            .map(|(i, v)| format!("; first: {name}{} = {v}", shape_str(i)))
            .unwrap_or_default(),
        values: values_str(&f.values, 6),
        located,
        ids,
        stray,
    };
    let words = (cause.words)(&facts);
    if stray && cause.rule.code == LG101.code {
        f.fact = Some(Fact::StrayValues);
    }
    f.message = words.message;
    f.hint = words.hint;
    f.fix = words.fix;
    f
}
