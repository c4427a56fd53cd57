//! LG615 binary-255-masks: binary datasets stored as 0/255: the foreground is 255. Found once for the whole dataset
//! (LG615) instead of once per mask, with 255 shown as the foreground rather than as void,
//! and class weights computed on the mapped classes 0 and 1 (blur artefacts left out).
//! Documentation: `labelguard_core::rules::lg615_binary_255_masks`.

use crate::weights::suggest;
use labelguard_core::finding::ValueCount;
use labelguard_core::rules::{LG101, LG103, LG615};
use labelguard_core::{Finding, Verdict};
use labelguard_scan_model::ScanFinding;
use labelguard_scan_model::{ScanReport, SplitCount, Weights};

/// Share of labelled pixels that must be exactly 0 or 255 (the rest: blur artefacts).
const BINARY_SHARE: f64 = 0.99;

/// `(pixels of 0, pixels of 255, other pixels)` when the dataset is binary 0/255.
fn counts(r: &ScanReport) -> Option<(u64, u64, u64)> {
    if !r.histogram.unit.contains("pixels") || r.settings.num_classes.is_some_and(|c| c > 255) {
        return None;
    }
    let h = &r.histogram.classes;
    let zero = h.get(&0).map_or(0, |r| r.count);
    let fg = h.get(&255).map_or(0, |r| r.count);
    let total: u64 = h.values().map(|r| r.count).sum();
    let binary = zero > 0 && fg > 0 && (zero + fg) as f64 >= total as f64 * BINARY_SHARE;
    binary.then_some((zero, fg, total - zero - fg))
}

/// The LG615 finding when the dataset is binary 0/255 (empty otherwise). Drops the per-file
/// findings that only say "255 is out of range / not ignored" and shows 255 as the foreground.
pub fn apply(r: &mut ScanReport) -> Vec<ScanFinding> {
    let Some((zero, fg, other)) = counts(r) else {
        return Vec::new();
    };
    let st = &r.settings;
    let files = r.histogram.classes.get(&255).map_or(0, |row| row.files);
    let (verdict, effect) = if st.ignore_index == 255 {
        (Verdict::Silent, "with ignore_index=255 every foreground pixel is ignored: the model only ever sees background".to_string())
    } else {
        let c = st
            .num_classes
            .map_or("the classes".to_string(), |c| format!("{c} classes"));
        (
            Verdict::DeviceAssert,
            format!("255 is outside {c}: a device-side assert on CUDA"),
        )
    };
    let mut f = Finding::new(
        &LG615,
        verdict,
        format!(
            "every mask is 0/255: the foreground is stored as 255 ({} pixels of 255 in {files} files, {} of 0{}); {effect}",
            fg,
            zero,
            if other > 0 { format!(", {other} of other ids") } else { String::new() }
        ),
    )
    .hint("binary masks saved by image editors and many binary-segmentation datasets use 255 for the foreground; here 255 is the foreground class")
    .fix("map the masks to 0/1 where they are loaded (target = (mask > 127).long()), give the model 2 outputs, and keep 255 out of ignore_index");
    f.count = Some(fg);
    f.values = vec![
        ValueCount {
            value: "0 (background)".into(),
            count: zero,
        },
        ValueCount {
            value: "255 (foreground)".into(),
            count: fg,
        },
    ];
    let only_255 = |x: &ScanFinding| {
        let x = &x.finding;
        (x.code == LG101.code || x.code == LG103.code)
            && !x.values.is_empty()
            && x.values.iter().all(|v| v.value == "255")
    };
    for file in &mut r.files {
        file.findings.retain(|x| !only_255(x));
    }
    r.files.retain(|file| !file.findings.is_empty());
    if let Some(row) = r.histogram.classes.get_mut(&255) {
        row.role = "foreground".into();
        row.name = Some("foreground".into());
    }
    let counted: u64 = r.histogram.classes.values().map(|r| r.count).sum();
    for row in r.histogram.classes.values_mut() {
        row.fraction = if counted == 0 {
            0.0
        } else {
            row.count as f64 / counted as f64
        };
    }
    vec![ScanFinding::about_dataset(f)]
}

/// Weights of the mapped classes 0 (background) and 1 (foreground, stored as 255); blur
/// artefacts between them are not a class and are left out.
pub fn weights(r: &ScanReport) -> Option<Weights> {
    let h = &r.histogram.classes;
    let has_train = h
        .values()
        .any(|row| row.splits.get("train").is_some_and(|s| s.count > 0));
    let pick = |id: i64| -> SplitCount {
        let Some(row) = h.get(&id) else {
            return SplitCount::default();
        };
        if has_train {
            row.splits.get("train").cloned().unwrap_or_default()
        } else {
            row.splits.values().fold(SplitCount::default(), |mut a, c| {
                a.count += c.count;
                a.files += c.files;
                a.file_pixels += c.file_pixels;
                a
            })
        }
    };
    let (bg, fg) = (pick(0), pick(255));
    let suggestions = suggest(
        &[bg.count, fg.count],
        &[bg.file_pixels, fg.file_pixels],
        "pixels",
    );
    (!suggestions.is_empty()).then(|| Weights {
        computed_on: if has_train { "train" } else { "all" }.to_string(),
        selected: r.settings.weights_method,
        suggestions,
    })
}
