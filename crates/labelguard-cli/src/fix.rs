//! `labelguard fix PATH --out NEW_DIR`: repair a dataset into a new directory. The work is in
//! the labelguard-fix crate; this file maps flags to settings, builds the plan and prints.

use crate::dataset_args::{ConfigArgs, LabelArgs};
use crate::output::emit;
use anyhow::Context;
use labelguard_fix::{parse_map, FixOptions, Plan};
use labelguard_scan::config::ScanOptions;
use labelguard_scan::progress::Bar;
use labelguard_scan::report::Settings;
use std::path::PathBuf;
use std::process::ExitCode;

const FIX_HELP: &str = "Examples:
  labelguard fix data/cityscapes --out data/cityscapes-fixed --preset cityscapes --dry-run
  labelguard fix data/cityscapes --out data/cityscapes-fixed --preset cityscapes
  labelguard scan data --preset cityscapes --format json -o scan.json && labelguard fix data --out fixed --plan scan.json
  labelguard fix data/masks --out fixed --map 255:0,3:2

The plan: --plan FILE (a scan report, a dry-run plan printed with --format json, or a TOML table of
[[repair]] entries), else --map for every mask, else the repairs the scan's findings propose
(labelIds -> trainIds, 1-based -> 0-based, 0/255 -> 0/1, reduce_zero_label, void -> ignore index,
colour -> index through the palette, equal RGB channels -> one channel). Resize artefacts are reported,
and replaced by the majority of their labelled neighbours only with --fill-resize-artefacts.
Files without repairs are copied unchanged (not linked). The input is never written. Every output file
is written atomically; a rerun after a kill resumes and verifies what was finished (NEW_DIR.fix-journal.jsonl).
The manifest (input hash -> output hash, mapping) is NEW_DIR.fix-manifest.json.
A Cityscapes *_gtFine_labelIds.png turned into trainIds is written as *_gtFine_labelTrainIds.png
(cityscapesScripts' name). Missing parents of NEW_DIR are created (not with --dry-run).
The report ends with what the re-scan of the output still finds: errors of the repaired kinds,
and errors fix does not repair (fix their source), counted by rule.
Exit codes: 0 the re-scan of the output finds no error of the repaired kinds (or --dry-run),
1 some remain (listed; with --strict: any error remains), 2 usage or I/O error.";

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FixFormat {
    Text,
    Json,
}

#[derive(clap::Args)]
#[command(after_help = FIX_HELP)]
pub struct FixArgs {
    /// The dataset directory to repair (read only).
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// The new directory for the repaired copy (created with its parents; must be outside PATH).
    #[arg(long, value_name = "NEW_DIR")]
    out: PathBuf,
    #[command(flatten)]
    labels: LabelArgs,
    /// The plan: a scan JSON report, a dry-run JSON plan, or a TOML table of [[repair]] entries.
    #[arg(long, value_name = "FILE")]
    plan: Option<PathBuf>,
    /// A mapping table for every mask: FROM:TO,... (e.g. 255:0,3:2), or a TOML/JSON file.
    #[arg(long, value_name = "TABLE")]
    map: Vec<String>,
    /// Print the plan (files, value mappings, pixel counts, files left alone) and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Replace resize-artefact pixels by the majority of their labelled neighbours (an approximation).
    #[arg(long)]
    fill_resize_artefacts: bool,
    /// Exit 1 when the re-scan of the output finds any error, not only one of the repaired kinds.
    #[arg(long)]
    strict: bool,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t = FixFormat::Text)]
    format: FixFormat,
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    config: ConfigArgs,
}

pub fn run(args: FixArgs) -> anyhow::Result<ExitCode> {
    let config = args.config.load(&args.path)?;
    let mut opts = ScanOptions::resolve(config.as_ref(), &args.labels.overrides())?;
    opts.jobs = args.jobs;
    let settings = Settings::new(
        std::slice::from_ref(&args.path),
        Vec::new(),
        &opts,
        Vec::new(),
    );
    let mut plan = match &args.plan {
        Some(p) => Plan::load(p, &settings)?,
        None if !args.map.is_empty() => Plan::default(),
        None => {
            let bar = Bar::labelled(args.quiet, "scanning");
            let report = labelguard_scan::scan(std::slice::from_ref(&args.path), &opts, &bar)
                .context("scanning the input")?;
            Plan::from_report(&report)
        }
    };
    for m in &args.map {
        plan.every_mask.push(parse_map(m)?);
    }
    let fix = FixOptions {
        input: args.path.clone(),
        out: args.out.clone(),
        scan: opts,
        plan,
        dry_run: args.dry_run,
        fill_artefacts: args.fill_resize_artefacts,
        strict: args.strict,
    };
    let bar = Bar::labelled(args.quiet, if args.dry_run { "planning" } else { "fixing" });
    let report = labelguard_fix::run(&fix, &bar)?;
    emit(&match args.format {
        FixFormat::Text => report.text(50),
        FixFormat::Json => report.json(),
    })?;
    Ok(ExitCode::from(report.exit_code()))
}
