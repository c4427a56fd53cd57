//! LG621 colour-not-in-class-colours: a colour mask of a dataset that lists its class colours
//! (CamVid's `class_dict.csv`) holds colours the list does not have. The analysis maps the
//! colours ([`crate::analyze::colour`]); the finding is built here.
//! Documentation: `labelguard_core::rules::lg621_colour_not_in_class_colours`.

use super::lg606_colour_mask::by_count;
use labelguard_core::finding::shape_str;
use labelguard_core::rules::LG621;
use labelguard_core::{Finding, Location, Verdict};
use std::collections::BTreeMap;

/// `unknown` of a mask's `pixels` pixels have colours that `file` (the dataset's list of class
/// colours) does not list: `first` of them located, `colours` counted.
pub fn colours_not_listed(
    file: &str,
    pixels: usize,
    first: Vec<Location>,
    colours: &BTreeMap<[u8; 3], u64>,
    unknown: u64,
) -> Finding {
    let counted = by_count(colours);
    let top = counted
        .iter()
        .take(3)
        .map(|c| format!("{} ({} px)", c.value, c.count))
        .collect::<Vec<_>>()
        .join(", ");
    let more = if counted.len() > 3 { ", ..." } else { "" };
    let at = first
        .first()
        .map(|l| format!("; first: mask{} = {}", shape_str(&l.index), l.value))
        .unwrap_or_default();
    let mut f = Finding::new(
        &LG621,
        Verdict::Error,
        format!(
            "{unknown} of {pixels} pixels have colours that {file} does not list: {top}{more}{at}"
        ),
    )
    .hint(format!(
        "a loader that maps colours with {file} matches none of its classes at these pixels: an all-zero one-hot target, or class 0 after argmax; blended colours come from masks resized with interpolation or saved as JPEG"
    ))
    .fix(format!(
        "resize masks with nearest-neighbour only and save them as PNG, restore them from the release, or add the colour to {file} if it is a class"
    ));
    f.locations = first;
    f.count = Some(unknown);
    f.values = counted;
    f
}
