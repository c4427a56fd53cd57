//! `labelguard merge REPORT.json...`: the shards of a `--shard K/N` scan, merged into the
//! report the unsharded scan would have produced.

use crate::scan::{write_outputs, OutputArgs};
use anyhow::Context;
use labelguard_scan::report::{merge, ScanReport};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    after_help = "Example:\n  labelguard scan DATA --preset cityscapes --shard 3/8 --format json -o part3.json   (and 1..8)\n  labelguard merge part*.json --html report.html\nA Slurm job array and its merge: examples/slurm/ in the repository; a Ray cluster: labelguard-ray.\n\nExit codes: 0 no errors, 1 errors found, 2 the reports cannot be read or do not belong together."
)]
pub struct MergeArgs {
    /// JSON reports written by `labelguard scan --format json`.
    #[arg(required = true, value_name = "REPORT")]
    reports: Vec<PathBuf>,
    #[command(flatten)]
    out: OutputArgs,
}

pub fn run(args: MergeArgs, style: labelguard_report::Style) -> anyhow::Result<ExitCode> {
    args.out.check()?;
    let mut reports = Vec::new();
    for path in &args.reports {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let r: ScanReport = serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: not a labelguard scan report (made with --format json?)",
                path.display()
            )
        })?;
        // A report holds layouts by their names: each must be a layout of this build's.
        if let Some(kind) = r
            .settings
            .layouts
            .iter()
            .find(|k| labelguard_scan::layout::requested(**k).ok() != Some(**k))
        {
            anyhow::bail!(
                "{}: unknown layout `{kind}` (known: {})",
                path.display(),
                labelguard_scan::layout::layout_names().join(", ")
            );
        }
        reports.push(r);
    }
    let merged = merge(reports)?;
    write_outputs(&merged, &args.out, None, style)
}
