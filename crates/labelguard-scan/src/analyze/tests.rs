//! The class-id check on small views: clean and bad masks, reduce_zero_label, resize artefacts.

use super::class_ids::class_check;
use super::*;
use crate::config::ScanOptions;
use labelguard_core::{DType, TensorView};

fn ctx_opts(c: u32, ignore: i64) -> ScanOptions {
    ScanOptions {
        num_classes: Some(c),
        ignore_index: ignore,
        ..ScanOptions::default()
    }
}

fn result() -> FileResult {
    FileResult::named("m.png".into(), "train".into(), FileKind::Mask)
}

#[test]
fn clean_masks_only_histogram_and_bad_ones_get_core_findings() {
    let opts = ctx_opts(19, 255);
    let ctx = Ctx::new(&opts, &[]);
    let mut data = vec![3u8; 64 * 64];
    data[10] = 255;
    let view = TensorView::new(DType::U8, &[64, 64], &data).unwrap();
    let mut r = result();
    class_check(&mut r, &view, "mask", &ctx, None);
    assert!(r.findings.is_empty());
    assert_eq!(r.histogram, vec![(3, 4095), (255, 1)]);
    data[64 * 5 + 7] = 26;
    let view = TensorView::new(DType::U8, &[64, 64], &data).unwrap();
    let mut r = result();
    class_check(&mut r, &view, "mask", &ctx, None);
    // One pixel of 26 in a trainIds mask is a stray value, not the labelId space (issue 34).
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].code, "LG101");
    assert_eq!(
        r.findings[0].fact,
        Some(labelguard_core::rule::Fact::StrayValues)
    );
    assert_eq!(r.findings[0].locations[0].index, vec![5, 7]);
    assert_eq!(r.bad, 1);
}

#[test]
fn reduce_zero_label_remaps_before_checking() {
    let opts = ScanOptions {
        reduce_zero_label: true,
        ..ctx_opts(150, 255)
    };
    let ctx = Ctx::new(&opts, &[]);
    let data: Vec<u8> = (0..=150).cycle().take(151 * 4).collect();
    let view = TensorView::new(DType::U8, &[4, 151], &data).unwrap();
    let mut r = result();
    class_check(&mut r, &view, "mask", &ctx, None);
    assert!(
        r.findings
            .iter()
            .all(|f| f.code != "LG101" && f.code != "LG106"),
        "{:?}",
        r.findings
    );
    let opts = ctx_opts(150, 255);
    let ctx = Ctx::new(&opts, &[]);
    let mut r = result();
    class_check(&mut r, &view, "mask", &ctx, None);
    assert_eq!(r.findings[0].code, "LG106");
}

/// A 3-class mask (ids 0, 10, 20 in vertical stripes) downscaled with a linear filter: the
/// borders get the blended ids in between.
#[test]
fn bilinear_borders_are_resize_artefacts() {
    let (h, w) = (40usize, 400usize);
    let mut data = vec![0u8; h * w];
    for y in 0..h {
        for x in 0..w {
            data[y * w + x] = match x {
                0..=129 => 0,
                130 => 5,
                131..=269 => 10,
                270 => 15,
                _ => 20,
            };
        }
    }
    let opts = ctx_opts(21, 255);
    let ctx = Ctx::new(&opts, &[]);
    let view = TensorView::new(DType::U8, &[h, w], &data).unwrap();
    let mut r = result();
    class_check(&mut r, &view, "mask", &ctx, None);
    let f = r
        .findings
        .iter()
        .find(|f| f.code == "LG605")
        .expect("LG605");
    assert_eq!(f.count, Some(80));
    assert_eq!(f.locations[0].index, vec![0, 130]);
    // The same mask resized with nearest-neighbour has no bands: nothing to report.
    let clean: Vec<u8> = data
        .iter()
        .map(|&v| {
            if v == 5 {
                0
            } else if v == 15 {
                10
            } else {
                v
            }
        })
        .collect();
    let view = TensorView::new(DType::U8, &[h, w], &clean).unwrap();
    let mut r = result();
    class_check(&mut r, &view, "mask", &ctx, None);
    assert!(r.findings.is_empty());
}

/// Without a class count the ids are not range-checked from above, but a negative id that is
/// not ignore_index is out of range for every C: a label table with `-1` for "unknown" (and
/// PyTorch's default ignore_index -100) is LG107, another negative id LG102; the same labels
/// without a negative id, however large, are only counted.
#[test]
fn negative_ids_are_judged_without_a_class_count() {
    let opts = ScanOptions {
        num_classes: None,
        ignore_index: -100,
        ..ScanOptions::default()
    };
    let ctx = Ctx::new(&opts, &[]);
    let judged = |ids: &[i64]| {
        let mut r = result();
        class_check(&mut r, &TensorView::of_i64(ids), "label", &ctx, None);
        let codes: Vec<String> = r.findings.iter().map(|f| f.code.to_string()).collect();
        (codes, r.bad)
    };
    let mut labels: Vec<i64> = (0..60).map(|i| i % 2).collect();
    assert_eq!(judged(&labels), (vec![], 0));
    labels[13] = 7;
    assert_eq!(judged(&labels), (vec![], 0));
    labels[13] = -1;
    assert_eq!(judged(&labels), (vec!["LG107".to_string()], 1));
    labels[13] = -5;
    assert_eq!(judged(&labels), (vec!["LG102".to_string()], 1));
    labels[13] = -100;
    assert_eq!(judged(&labels), (vec![], 0));
}
