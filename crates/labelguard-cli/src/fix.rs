//! `labelguard fix PATH --out NEW_DIR`: repair a dataset into a new directory. The work is in
//! the labelguard-fix crate; this file maps flags to settings, builds the plan and prints.

use crate::dataset_args::{ConfigArgs, LabelArgs};
use crate::output::emit;
use anyhow::Context;
use labelguard_fix::detection::start_for;
use labelguard_fix::yolo::ClassTable;
use labelguard_fix::{parse_map, run_detection, DetectionFix, DetectionOptions, FixOptions, Plan};
use labelguard_scan::config::ScanOptions;
use labelguard_scan::progress::Bar;
use labelguard_scan::report::settings_of;
use std::path::PathBuf;
use std::process::ExitCode;

const FIX_HELP: &str = "Examples:
  labelguard fix data/cityscapes --out data/cityscapes-fixed --preset cityscapes --dry-run
  labelguard fix data/cityscapes --out data/cityscapes-fixed --preset cityscapes
  labelguard scan data --preset cityscapes --format json -o scan.json && labelguard fix data --out fixed --plan scan.json
  labelguard fix data/masks --out fixed --map 255:0,3:2
  labelguard fix annotations/instances_train2017.json --out fixed/instances_train2017.json
  labelguard fix annotations/instances_train2017.json --out fixed/train.json --framework detectron2
  labelguard fix data/yolo --out data/yolo-remapped --map-classes classes.map

Detection labels:
  COCO (PATH is a JSON file): the categories' ids and every annotation's category_id are renumbered
  to a contiguous range in the order of the old ids: 1..K (COCO's and torchvision's convention,
  background 0), or 0..K-1 with --start 0 or --framework mmdet|detectron2|ultralytics. Only those
  numbers change: the rest of the file is copied byte for byte. The mapping (old_to_new, new_to_old,
  names) is written beside the output as NAME.category-map.json. An annotation whose category_id is
  not declared refuses the run (named with its count): fix will not guess a class; --drop-undeclared
  leaves those annotations out instead.
  YOLO (PATH is a tree with labels/**/*.txt, --map-classes FILE): FILE has `OLD NEW` lines (NEW may be
  `drop`, which removes the line) or is a JSON object {\"OLD\": NEW}. Only the first column changes. An id
  the table does not map refuses the run before anything is written (a missing label file trains as
  background). NEW_DIR gets labels/ and, when PATH has one, a data.yaml with nc and the names by new id;
  images are not copied: link them (`ln -s $PWD/PATH/images NEW_DIR/images`), since ultralytics finds
  each label by replacing /images/ with /labels/ in the image's path.
  Both: written atomically, resumable (NEW.fix-journal.jsonl), manifest NEW.fix-manifest.json, and the
  output is read back (ids contiguous and declared, or targets of the table) before exit 0.

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
    /// The dataset directory to repair, or a COCO JSON file (read only).
    #[arg(value_name = "PATH")]
    path: PathBuf,
    /// The new directory for the repaired copy (created with its parents; must be outside PATH),
    /// or for a COCO file the new JSON file.
    #[arg(long, value_name = "NEW")]
    out: PathBuf,
    /// YOLO: remap class ids by this table (`OLD NEW` lines, NEW a class id or drop; or a JSON object).
    #[arg(long, value_name = "FILE")]
    map_classes: Option<PathBuf>,
    /// COCO: the first new category id (default 1, or 0 for --framework mmdet, detectron2, ultralytics).
    #[arg(long, value_name = "N")]
    start: Option<i64>,
    /// COCO: leave out annotations whose category_id is not declared, instead of refusing.
    #[arg(long)]
    drop_undeclared: bool,
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
    if args.path.is_file() || args.map_classes.is_some() {
        return detection(&args, &opts);
    }
    if args.start.is_some() || args.drop_undeclared {
        anyhow::bail!("--start and --drop-undeclared are for a COCO file: PATH is not a file");
    }
    let settings = settings_of(
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

/// COCO (PATH is a file) or YOLO (`--map-classes`).
fn detection(args: &FixArgs, opts: &ScanOptions) -> anyhow::Result<ExitCode> {
    if args.plan.is_some() || !args.map.is_empty() || args.fill_resize_artefacts {
        anyhow::bail!(
            "--plan, --map and --fill-resize-artefacts repair masks; a COCO file or a YOLO tree \
             takes --start/--drop-undeclared (COCO) or --map-classes (YOLO)"
        );
    }
    let fix = if args.path.is_file() {
        if args.map_classes.is_some() {
            anyhow::bail!(
                "{}: a COCO file's categories are renumbered to a contiguous range without a \
                 table; --map-classes is for a YOLO tree",
                args.path.display()
            );
        }
        DetectionFix::Coco {
            start: start_for(args.start, opts.framework),
            drop_undeclared: args.drop_undeclared,
        }
    } else {
        if args.start.is_some() || args.drop_undeclared {
            anyhow::bail!("--start and --drop-undeclared are for a COCO file");
        }
        let file = args.map_classes.as_ref().expect("checked by the caller");
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("reading the class table {}", file.display()))?;
        let table =
            ClassTable::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        DetectionFix::Yolo { table }
    };
    let run = DetectionOptions {
        input: args.path.clone(),
        out: args.out.clone(),
        fix,
        dry_run: args.dry_run,
        jobs: args.jobs,
    };
    let bar = Bar::labelled(args.quiet, if args.dry_run { "planning" } else { "fixing" });
    let report = run_detection(&run, &bar)?;
    emit(&match args.format {
        FixFormat::Text => report.text(50),
        FixFormat::Json => report.json(),
    })?;
    Ok(ExitCode::from(report.exit_code()))
}
