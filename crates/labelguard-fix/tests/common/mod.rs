//! Helpers of the fix tests: run a scan-planned fix through the library, read masks back.
#![allow(dead_code)]

use labelguard_fix::{FixOptions, FixReport, Plan};
use labelguard_scan::config::{Overrides, ScanOptions};
use std::path::Path;

pub use labelguard_formats::fixtures::*;

pub fn options(over: Overrides) -> ScanOptions {
    ScanOptions::resolve(None, &over).expect("valid options")
}

/// Scans `input` with `opts`, plans from the findings, and fixes into `out`.
pub fn fix(input: &Path, out: &Path, opts: &ScanOptions, dry_run: bool, fill: bool) -> FixReport {
    let report = labelguard_scan::scan(
        &[input.to_path_buf()],
        opts,
        &labelguard_scan::progress::Silent,
    )
    .expect("scan");
    let plan = Plan::from_report(&report);
    fix_with(input, out, opts, plan, dry_run, fill)
}

pub fn fix_with(
    input: &Path,
    out: &Path,
    opts: &ScanOptions,
    plan: Plan,
    dry_run: bool,
    fill: bool,
) -> FixReport {
    let o = FixOptions {
        input: input.to_path_buf(),
        out: out.to_path_buf(),
        scan: opts.clone(),
        plan,
        dry_run,
        fill_artefacts: fill,
        strict: false,
    };
    labelguard_fix::run(&o, &labelguard_scan::progress::Silent).expect("fix runs")
}

/// Decoded samples of a PNG (one per byte, or little-endian pairs for 16-bit) and its header.
pub fn pixels(path: &Path) -> (Vec<u8>, labelguard_formats::read::mask::MaskImage) {
    let bytes = std::fs::read(path).expect("read");
    let mut px = Vec::new();
    let img =
        labelguard_formats::read::mask::decode_mask(&bytes, 1 << 28, &mut px, &mut Vec::new())
            .expect("decodes");
    (px, img)
}

pub use labelguard_formats::fixtures::tree;

/// The chunk of type `kind` of a PNG, whole (length, type, data, CRC).
pub fn chunk(png: &[u8], kind: &[u8; 4]) -> Option<Vec<u8>> {
    let mut at = 8;
    while at + 12 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        if &png[at + 4..at + 8] == kind {
            return Some(png[at..at + 12 + len].to_vec());
        }
        at += 12 + len;
    }
    None
}
