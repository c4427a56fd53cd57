//! LG701 detection-class-out-of-range: objects whose class, as the head sees it, is outside
//! `[0, num_classes-1]`. The cause is named from the facts: torchvision's background class not
//! counted, category ids that are not contiguous, `nc` smaller than the labels' ids.
//! Documentation: `labelguard_core::rules::lg701_detection_class_out_of_range`.

use crate::framework::Framework;
use labelguard_core::finding::count;
use labelguard_core::finding::ValueCount;
use labelguard_core::rules::LG701;
use labelguard_core::{Finding, Location};
use labelguard_formats::problem::problem;

/// A file's objects beyond the head.
pub struct Beyond<'a> {
    pub framework: Framework,
    /// How the report calls the stored id (`category_id`, `class id`).
    pub id_name: &'a str,
    pub num_classes: u32,
    /// What the framework needs for the declared classes.
    pub needed: u64,
    /// The declared stored ids, sorted.
    pub ids: &'a [i64],
    /// (stored id, model id, objects) of every id outside the head.
    pub beyond: &'a [(i64, i64, u64)],
    /// The first object of each such id.
    pub first: Vec<Location>,
}

pub fn finding(b: &Beyond<'_>) -> Finding {
    let c = b.num_classes;
    let fw = b.framework;
    let objects: u64 = b.beyond.iter().map(|(_, _, n)| n).sum();
    let shown: Vec<String> = b
        .beyond
        .iter()
        .take(8)
        .map(|(s, m, _)| {
            if s == m {
                s.to_string()
            } else {
                format!("{s} (model id {m})")
            }
        })
        .collect();
    let more = if b.beyond.len() > 8 { ", ..." } else { "" };
    let message = format!(
        "{} {} a class outside [0, {}] for a head of {c} classes ({}): {} {}{more}",
        count(objects, "object"),
        if objects == 1 { "has" } else { "have" },
        c as i64 - 1,
        fw.as_str(),
        b.id_name,
        shown.join(", "),
    );
    let k = b.ids.len() as u64;
    let top = b.ids.last().copied().unwrap_or(0);
    let contiguous_from_one = !b.ids.is_empty() && b.ids[0] == 1 && top as u64 == k;
    let negative = b.beyond.iter().any(|(_, m, _)| *m < 0);
    let hint = if negative {
        "a negative class id: YOLO and COCO ids start at 0 and 1; -1 often marks 'no object' in a converter".to_string()
    } else if fw.counts_background() && contiguous_from_one && u64::from(c) == k {
        format!("torchvision's detection heads count background as class 0: categories 1..{k} need num_classes = {} (background included)", k + 1)
    } else if !fw.remaps() && !b.ids.is_empty() && u64::from(c) == k && top as u64 >= k {
        format!(
            "the {k} categories have ids up to {top}, not contiguous: used as stored they need {} outputs; mmdet and detectron2 map them to 0..{} themselves (pass --framework if you train with one of those)",
            top + 1,
            k - 1
        )
    } else if b.ids.is_empty()
        || b.beyond
            .iter()
            .any(|(s, _, _)| b.ids.binary_search(s).is_err())
    {
        let top = b.beyond.iter().map(|(s, _, _)| *s).max().unwrap_or(0);
        let declared = if k == 1 {
            "1 class declared".to_string()
        } else {
            format!("{k} classes declared")
        };
        if fw == Framework::Ultralytics {
            format!("the labels use ids that data.yaml's names do not declare ({declared}); ultralytics ignores the image and all its labels ('Label class {top} exceeds dataset class count {c}')")
        } else {
            format!("the labels use ids the class list does not declare ({declared})")
        }
    } else {
        format!(
            "the classes need {} in {} (others: {})",
            b.needed,
            fw.as_str(),
            fw.others_needing(b.ids)
        )
    };
    let fix = if b.needed > u64::from(c) && !negative {
        format!(
            "set {} to {} (or remap the ids to a contiguous range with `labelguard fix`)",
            fw.head_setting(),
            b.needed
        )
    } else {
        "correct the objects' class ids, or drop the objects".to_string()
    };
    let mut f = problem(&LG701, message).hint(hint).fix(fix);
    if fw == Framework::Ultralytics {
        // Ultralytics checks the ids when it caches the labels and drops the image: training
        // runs, without it.
        f.verdict = labelguard_core::Verdict::Silent;
    }
    f.count = Some(objects);
    f.values = b
        .beyond
        .iter()
        .map(|(s, _, n)| ValueCount {
            value: s.to_string(),
            count: *n,
        })
        .collect();
    f.locations = b.first.clone();
    f
}
