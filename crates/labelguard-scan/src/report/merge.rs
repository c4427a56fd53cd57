//! Merging the JSON reports of the shards of one scan into the report of the whole scan.

use super::finalize::{finalize, first_code};
use super::fold::absorb;
use crate::config::Shard;
use labelguard_scan_model::{ScanReport, SCHEMA_NAME, SCHEMA_VERSION};
use std::collections::BTreeSet;

/// Why reports could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("{0}")]
    Incompatible(String),
}

/// Merges the JSON reports of the shards of one scan into the report of the whole scan.
/// The shards must come from the same settings, be distinct, and (when they say they are
/// shards) cover 1..N exactly.
pub fn merge(reports: Vec<ScanReport>) -> Result<ScanReport, MergeError> {
    let bad = |m: String| Err(MergeError::Incompatible(m));
    let Some(first) = reports.first() else {
        return bad("no reports to merge".into());
    };
    for r in &reports {
        if r.schema != SCHEMA_NAME || r.schema_version != SCHEMA_VERSION {
            return bad(format!(
                "a report has schema {} version {}; this labelguard reads {SCHEMA_NAME} version {SCHEMA_VERSION}",
                r.schema, r.schema_version
            ));
        }
        if r.settings != first.settings {
            return bad("the reports were made with different settings (roots, classes, ignore_index, preset, limits): they are not shards of one scan".into());
        }
    }
    let shards: Vec<Option<Shard>> = reports.iter().map(|r| r.shard).collect();
    if shards.iter().any(|s| s.is_some()) {
        let Some(n) = shards.iter().flatten().map(|s| s.count).next() else {
            return bad("inconsistent shards".into());
        };
        let mut seen = BTreeSet::new();
        for s in &shards {
            match s {
                Some(s) if s.count == n => {
                    if !seen.insert(s.index) {
                        return bad(format!("shard {}/{n} is given twice", s.index));
                    }
                }
                Some(s) => {
                    return bad(format!(
                        "shard {}/{} does not belong to a scan split {n} ways",
                        s.index, s.count
                    ))
                }
                None => return bad("an unsharded report cannot be merged with shards".into()),
            }
        }
        let missing: Vec<String> = (1..=n)
            .filter(|k| !seen.contains(k))
            .map(|k| format!("{k}/{n}"))
            .collect();
        if !missing.is_empty() {
            return bad(format!("shards {} are missing", missing.join(", ")));
        }
    }
    let mut out = ScanReport::empty(first.settings.clone(), None);
    let parts = first.datasets.len();
    if reports.iter().any(|r| r.datasets.len() != parts) {
        return bad("the reports found different datasets: they are not shards of one scan".into());
    }
    let mut by_part: Vec<ScanReport> = first
        .datasets
        .iter()
        .map(|d| ScanReport::empty(d.settings.clone(), None))
        .collect();
    for mut r in reports {
        for (mine, theirs) in by_part.iter_mut().zip(std::mem::take(&mut r.datasets)) {
            absorb(mine, theirs);
        }
        if parts == 0 {
            absorb(&mut out, r);
        }
    }
    out.datasets = by_part;
    let mut paths = BTreeSet::new();
    for f in &out.files {
        if !paths.insert((f.path.clone(), first_code(f).to_string())) {
            return bad(format!(
                "{} is in more than one report: the shards overlap",
                f.path
            ));
        }
    }
    finalize(&mut out);
    Ok(out)
}
