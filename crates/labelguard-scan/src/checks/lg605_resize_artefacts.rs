//! LG605 resize-artefacts: ids that live in one-pixel bands between two other classes, with a
//! value between theirs: a mask resized with bilinear or bicubic interpolation.
//! Documentation: `labelguard_core::rules::lg605_resize_artefacts`.

use crate::limits::WIDEN_LIMIT;
use labelguard_core::finding::{shape_str, ValueCount, MAX_LOCATIONS};
use labelguard_core::rules::LG605;
use labelguard_core::{DType, Finding, Location, TensorView, Verdict};
use std::collections::{BTreeMap, HashMap};

/// LG605: ids that live in one-pixel bands between two other classes, with a value between
/// theirs. Runs only when the histogram has rare ids (every interpolation artefact is rare).
pub fn resize_artefacts(
    view: &TensorView<'_>,
    name: &str,
    histogram: &[(i64, u64)],
    ignore: i64,
) -> Option<Finding> {
    let total: u64 = histogram.iter().map(|(_, c)| c).sum();
    if histogram.len() < 3 || total < 64 {
        return None;
    }
    let rare_limit = (total / 200).max(16);
    let candidates: Vec<i64> = histogram
        .iter()
        .filter(|(v, c)| *c <= rare_limit && *v != ignore)
        .map(|(v, _)| *v)
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let shape = view.shape();
    let (h, w) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let frames = view.numel() / (h * w).max(1);
    // Values as i64 rows: masks are u8 almost always; other dtypes are widened once.
    let u8_data = (view.dtype() == DType::U8 && view.is_contiguous()).then(|| view.bytes());
    if u8_data.is_none() && view.numel() > WIDEN_LIMIT {
        return None;
    }
    let widened: Vec<i64> = if u8_data.is_some() {
        Vec::new()
    } else {
        view.offsets().map(|o| view.read_i64(o)).collect()
    };
    let get = |i: usize| -> i64 {
        match u8_data {
            Some(b) => b[i] as i64,
            None => widened[i],
        }
    };
    if h < 8 || w < 8 {
        return None;
    }
    // Only region-like masks: in a mask most pixels equal their left neighbour. Token ids,
    // random labels and noise are not masks, and their "bands" mean nothing.
    let (mut same, mut pairs) = (0usize, 0usize);
    for y in (0..h * frames).step_by(8) {
        for x in 1..w {
            same += (get(y * w + x) == get(y * w + x - 1)) as usize;
            pairs += 1;
        }
    }
    if same * 10 < pairs * 8 {
        return None;
    }
    let is_candidate: HashMap<i64, ()> = candidates.iter().map(|&v| (v, ())).collect();
    let mut thin: BTreeMap<i64, u64> = BTreeMap::new();
    let mut first: Vec<(Vec<usize>, i64)> = Vec::new();
    let between = |a: i64, v: i64, b: i64| (a < v && v < b) || (b < v && v < a);
    for f in 0..frames {
        let base = f * h * w;
        for y in 0..h {
            let row = base + y * w;
            let mut x = 0;
            while x < w {
                // Skip 32-pixel blocks that equal their left neighbour and the rows above and
                // below: no pixel in them can be a band between two classes.
                if let Some(b) = u8_data {
                    if x > 0 && x + 32 <= w && y > 0 && y + 1 < h {
                        let cur = &b[row + x..row + x + 32];
                        let v = b[row + x - 1];
                        let up = &b[row - w + x..row - w + x + 32];
                        let dn = &b[row + w + x..row + w + x + 32];
                        let diff = cur
                            .iter()
                            .zip(up)
                            .zip(dn)
                            .fold(0u8, |acc, ((&c, &u), &d)| acc | (c ^ v) | (u ^ v) | (d ^ v));
                        if diff == 0 {
                            x += 32;
                            continue;
                        }
                    }
                }
                let v = get(row + x);
                if is_candidate.contains_key(&v) {
                    let horizontal =
                        x > 0 && x + 1 < w && between(get(row + x - 1), v, get(row + x + 1));
                    let vertical =
                        y > 0 && y + 1 < h && between(get(row + x - w), v, get(row + x + w));
                    if horizontal || vertical {
                        *thin.entry(v).or_insert(0) += 1;
                        if first.len() < MAX_LOCATIONS {
                            let mut index = if frames > 1 { vec![f] } else { Vec::new() };
                            index.extend([y, x]);
                            first.push((index, v));
                        }
                    }
                }
                x += 1;
            }
        }
    }
    let counts: HashMap<i64, u64> = histogram.iter().copied().collect();
    let artefacts: Vec<(i64, u64)> = thin
        .iter()
        .filter(|(v, n)| **n * 2 >= counts[v])
        .map(|(v, n)| (*v, *n))
        .collect();
    if artefacts.len() < 2 {
        return None;
    }
    let pixels: u64 = artefacts.iter().map(|(_, n)| n).sum();
    let ids: Vec<String> = artefacts.iter().map(|(v, _)| v.to_string()).collect();
    let first: Vec<&(Vec<usize>, i64)> = first
        .iter()
        .filter(|(_, v)| artefacts.iter().any(|(a, _)| a == v))
        .collect();
    let mut f = Finding::new(
        &LG605,
        Verdict::Silent,
        format!(
            "{} ids ({}) occur mostly in one-pixel bands between two other classes, with values between theirs ({pixels} pixels){}",
            artefacts.len(),
            ids.join(", "),
            first.first().map(|(i, v)| format!("; first: {name}{} = {v}", shape_str(i))).unwrap_or_default()
        ),
    )
    .hint("the mask was resized with bilinear or bicubic interpolation, which blends class ids at every border")
    .fix("resize masks with nearest-neighbour interpolation (Image.NEAREST, InterpolationMode.NEAREST, cv2.INTER_NEAREST) and regenerate them from the originals");
    f.locations = first
        .iter()
        .map(|(i, v)| Location {
            tensor: name.to_string(),
            index: i.clone(),
            value: v.to_string(),
        })
        .collect();
    f.count = Some(pixels);
    f.values = artefacts
        .iter()
        .map(|(v, n)| ValueCount {
            value: v.to_string(),
            count: *n,
        })
        .collect();
    f.values.sort_by_key(|c| std::cmp::Reverse(c.count));
    Some(f)
}
