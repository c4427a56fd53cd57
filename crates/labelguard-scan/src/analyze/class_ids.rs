//! The class-id check every kind of label ends in: histogram, then the core's class-id
//! analysis (LG101..LG107) when the histogram holds a bad id, then the resize-artefact check
//! (LG605) when the histogram's rare ids look like blends, then the overlay picture.

use super::ctx::Ctx;
use super::result::FileResult;
use crate::checks::lg605_resize_artefacts::resize_artefacts;
use crate::hist::{histogram_with_runs, merge_hist};
use labelguard_core::rules::{LG101, LG420};
use labelguard_core::{class_ids, DType, TensorView, Verdict};
use std::collections::{BTreeMap, HashMap};

/// mmsegmentation's `reduce_zero_label`: 0 (and 255) become 255, every other id drops by one.
/// `i64::MIN` has no id below it and stays itself (still negative, still out of range) rather
/// than wrapping to `i64::MAX`.
pub(crate) fn reduce_zero(v: i64) -> i64 {
    if v == 0 || v == 255 {
        255
    } else {
        v.saturating_sub(1)
    }
}

/// Without a class count, the upper end of the range is unknown but the lower one is not: a
/// negative id other than `ignore_index` is out of range for every C (PyTorch's
/// `Target -1 is out of bounds`; the labels of a table with `-1` for "unknown" and no
/// `ignore_index`). The C to check them with is one past the largest id present, so that only
/// the negative ids are judged; `None` when there is none.
fn range_of_negatives(histogram: &[(i64, u64)], ignore: i64) -> Option<i64> {
    let negative = histogram.iter().any(|&(v, _)| v < 0 && v != ignore);
    let largest = histogram.iter().map(|&(v, _)| v).max()?;
    negative.then_some(largest.max(0).saturating_add(1))
}

/// The class-id check of a 2-D mask or an id array of any rank: histogram, then the core's
/// class-id analysis when the histogram holds a bad id, then the resize-artefact check.
pub(crate) fn class_check(
    r: &mut FileResult,
    view: &TensorView<'_>,
    name: &str,
    ctx: &Ctx<'_>,
    palette: Option<&[[u8; 3]]>,
) {
    let opts = ctx.opts;
    let (mut histogram, overflow, runs) = histogram_with_runs(view);
    let reduced_bytes;
    let effective: TensorView<'_>;
    if opts.reduce_zero_label {
        let mut map: BTreeMap<i64, u64> = BTreeMap::new();
        for (v, c) in &histogram {
            *map.entry(reduce_zero(*v)).or_insert(0) += c;
        }
        histogram = map.into_iter().collect();
        reduced_bytes = reduce_view(view);
        effective = reduced_bytes.view();
    } else {
        effective = view.clone();
    }
    let ignore = opts.ignore_index;
    r.elements += view.numel() as u64;
    r.hist_overflow += overflow;
    merge_hist(&mut r.histogram, &histogram);
    let mut bad_values: Vec<i64> = Vec::new();
    if let Some(c) = opts
        .num_classes
        .map(i64::from)
        .or_else(|| range_of_negatives(&histogram, ignore))
    {
        bad_values = histogram
            .iter()
            .filter(|(v, _)| (*v < 0 || *v >= c) && *v != ignore)
            .map(|(v, _)| *v)
            .collect();
        if !bad_values.is_empty() || overflow > 0 {
            let mut found = class_ids(&effective, name, c, ignore, Verdict::DeviceAssert);
            if opts.reduce_zero_label {
                for f in &mut found {
                    f.message
                        .push_str(" (after reduce_zero_label: 0 -> 255, v -> v-1)");
                }
            }
            r.bad += histogram
                .iter()
                .filter(|(v, _)| (*v < 0 || *v >= c) && *v != ignore)
                .map(|(_, n)| n)
                .sum::<u64>();
            r.findings.extend(found);
        }
    }
    // The 2-D artefact check runs when the run pass saw its signature (u8 masks), or always
    // for other dtypes, which have no run pass.
    let triggered = match &runs {
        Some(st) => {
            let effective_id = |raw: usize| {
                if opts.reduce_zero_label {
                    reduce_zero(raw as i64)
                } else {
                    raw as i64
                }
            };
            let counts: HashMap<i64, u64> = histogram.iter().copied().collect();
            let total: u64 = counts.values().sum();
            let rare_limit = (total / 200).max(16);
            (0..256)
                .filter(|&raw| {
                    let n = counts.get(&effective_id(raw)).copied().unwrap_or(0);
                    st.between[raw] > 0 && n <= rare_limit && st.between[raw] as u64 * 4 >= n
                })
                .count()
                >= 2
        }
        None => true,
    };
    let artefacts = if effective.dim() >= 2 && triggered {
        resize_artefacts(&effective, name, &histogram, ignore)
    } else {
        None
    };
    let mut artefact_values: Vec<i64> = artefacts
        .as_ref()
        .map(|f| {
            f.values
                .iter()
                .filter_map(|v| v.value.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    artefact_values.sort_unstable();
    if let Some(f) = artefacts {
        // The out-of-range ids are the resize's blends: the fix is the resize's, not a wider head,
        // and blends spread over many ids are no raw numbering (LG420) but plain out-of-range ids.
        for x in r
            .findings
            .iter_mut()
            .filter(|x| x.code == LG101.code || x.code == LG420.code)
        {
            if x.code == LG420.code {
                (x.code, x.rule, x.severity, x.hint) =
                    (LG101.code, LG101.name, LG101.severity, None);
            }
            x.fix = format!(
                "these ids are resize artefacts (LG605), not classes: {}",
                f.fix
            );
        }
        r.findings.push(f);
    }
    if opts.overlays
        && (!bad_values.is_empty() || !artefact_values.is_empty())
        && effective.dim() == 2
    {
        r.overlay = Some(super::overlay::overlay(
            &effective,
            &bad_values,
            &artefact_values,
            ignore,
            palette,
        ));
    }
}

/// An owned copy of a view with `reduce_zero` applied (only built when the option is on), in
/// the narrowest dtype that holds every reduced value, so that the copy of a 16-bit mask is
/// not four times its size: u8 and u16 stay themselves (0 and 255 become 255, the rest drop by
/// one), i8 and i16 become i32 (one below their minimum fits), the rest i64.
fn reduce_view(view: &TensorView<'_>) -> labelguard_core::Tensor {
    let shape = view.shape().to_vec();
    let dtype = match view.dtype() {
        DType::U8 => DType::U8,
        DType::U16 => DType::U16,
        DType::I8 | DType::I16 => DType::I32,
        _ => DType::I64,
    };
    // Reserved exactly: an iterator of bytes would grow the vector by doubling.
    let mut bytes: Vec<u8> = Vec::with_capacity(view.numel() * dtype.size());
    for v in view.offsets().map(|o| reduce_zero(view.read_i64(o))) {
        match dtype {
            DType::U8 => bytes.push(v as u8),
            DType::U16 => bytes.extend_from_slice(&(v as u16).to_le_bytes()),
            DType::I32 => bytes.extend_from_slice(&(v as i32).to_le_bytes()),
            _ => bytes.extend_from_slice(&v.to_le_bytes()),
        }
    }
    labelguard_core::Tensor::from_vec(dtype, shape, bytes).expect("same element count")
}
