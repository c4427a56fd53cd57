//! `labelguard scan PATH...`: check a whole dataset on disk before training. The work is in
//! the labelguard-scan crate; this file only maps flags to settings and writes the outputs.

use crate::dataset_args::{ConfigArgs, LabelArgs, ScanSettingArgs};
use anyhow::Context;
use labelguard_io::output::{self, Destination};
use labelguard_report::scan as render;
use labelguard_scan::config::{ScanOptions, Shard};
use labelguard_scan::layout::Root;
use labelguard_scan::progress::Bar;
use labelguard_scan::report::ScanReport;
use labelguard_scan::weights::weights_file;
use std::path::PathBuf;
use std::process::ExitCode;

/// `scan --help` up to its list of layouts, which comes from the layouts themselves.
const SCAN_HELP_HEAD: &str = "Examples:
  labelguard scan data/cityscapes --preset cityscapes
  labelguard scan data/ade --preset ade20k --html report.html --write-weights weights.py
  labelguard scan DATA/arrays --num-classes 19 --ignore-index 255 --format json
  labelguard scan labels.csv --num-classes 10 --label-column label --format json
  labelguard scan data --num-classes 5 --shard 3/8 --format json -o part3.json
  labelguard merge part*.json
  labelguard scan coco --num-classes 91                          (torchvision: ids as stored)
  labelguard scan coco --num-classes 80 --framework detectron2   (categories mapped to 0..79)
  labelguard scan yolo                                           (nc = len(names) of data.yaml)
  labelguard scan my-finetuned-llama/                            (tokenizer against the model)
  labelguard scan tokenized/ --model llama-dir                   (datasets save_to_disk, .parquet, .jsonl)

Presets:
  cityscapes (19 trainIds, void 255), ade20k (150 classes, reduce_zero_label),
  pascal-voc (21 classes, border 255).

Layouts:
";

/// After the list of layouts.
const SCAN_HELP_TAIL: &str =
    "  A folder that holds several datasets is scanned as several, each with its own layout
  and settings, and reported on its own.

Detection heads (--framework):
  torchvision  ids as stored, background 0: num_classes = largest id + 1 (COCO: 91)
  mmdet, detectron2  categories mapped to 0..K-1: num_classes = K (COCO: 80)
  ultralytics  ids as stored, no background: nc = len(names)

Config:
  labelguard.toml, or [tool.labelguard] in pyproject.toml: the nearest one above the first
  PATH (a config in the working directory does not apply to data elsewhere). Its [scan]
  table holds scan-only keys; a [[datasets]] entry (path = \"labels.csv\", num_classes = 10)
  holds the settings of one dataset below it. Flags override the file.

Exit codes:
  0  no errors; the last line says ok, or unchecked when the class count is unknown
     (ids were counted, not range-checked)
  1  errors (with --strict also warnings and an unchecked class range)
  2  usage or I/O error";

/// `scan --help`'s text after the flags.
fn scan_help() -> String {
    [
        SCAN_HELP_HEAD,
        &labelguard_scan::layout::layouts_help(),
        SCAN_HELP_TAIL,
    ]
    .concat()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScanFormat {
    Text,
    Json,
    Sarif,
    Junit,
    Github,
}

/// Where and how the report goes: shared by `scan` and `merge`.
#[derive(clap::Args)]
pub struct OutputArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ScanFormat::Text)]
    format: ScanFormat,
    /// Write the report to FILE (atomically) instead of stdout; `-` is stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write a self-contained HTML report with the class histogram and pictures of the bad pixels.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write the suggested class weights: JSON for *.json, a Python list otherwise.
    #[arg(long, value_name = "FILE")]
    write_weights: Option<PathBuf>,
    /// No progress bar; the text report shows only its last line.
    #[arg(long, short)]
    quiet: bool,
    /// How many files the text report details: a number, or 'all'. Default 25.
    #[arg(long, value_name = "N|all", default_value = "25", value_parser = parse_show)]
    show: Show,
    /// Write outputs into what their paths hold even when that is not a regular file: follow a
    /// symbolic link, write a FIFO or device in place. Without it those are refused.
    #[arg(long)]
    write_through: bool,
}

/// `--show N|all`.
#[derive(Clone, Copy, Debug)]
pub struct Show(Option<usize>);

fn parse_show(s: &str) -> Result<Show, String> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(Show(None));
    }
    s.parse()
        .map(|n| Show(Some(n)))
        .map_err(|_| format!("'{s}' is not a number or 'all'"))
}

impl OutputArgs {
    /// Checks every output path before any work, so that a long scan does not end in an error
    /// about where its report goes.
    pub fn check(&self) -> anyhow::Result<()> {
        self.destinations().map(|_| ())
    }

    fn destinations(&self) -> anyhow::Result<[Option<Destination>; 3]> {
        let check = |p: &Option<PathBuf>| -> anyhow::Result<Option<Destination>> {
            Ok(match p {
                Some(path) => Some(output::check(path, self.write_through)?),
                None => None,
            })
        };
        Ok([
            Some(check(&self.output)?.unwrap_or(Destination::Stdout)),
            check(&self.html)?,
            check(&self.write_weights)?,
        ])
    }
}

#[derive(clap::Args)]
#[command(after_help = scan_help())]
pub struct ScanArgs {
    /// Dataset directories, tar shards or brace patterns of them (train-{000000..000127}.tar), bucket prefixes (s3://BUCKET/PREFIX, gs://, az://), or single mask, array, label-table or annotation (COCO JSON, VOC XML, YOLO .txt) files.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    labels: LabelArgs,
    #[command(flatten)]
    settings: ScanSettingArgs,
    /// Worker threads (default: all cores).
    #[arg(long, short)]
    jobs: Option<usize>,
    /// Scan only part K of N (1-based), e.g. one task of a Slurm job array or of `labelguard-ray`; merge with `labelguard merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    #[command(flatten)]
    config: ConfigArgs,
    #[command(flatten)]
    out: OutputArgs,
}

/// Worker threads of a scan that reads a bucket, unless `--jobs` says otherwise.
const BUCKET_JOBS: usize = 32;

pub fn run(args: ScanArgs, style: labelguard_report::Style) -> anyhow::Result<ExitCode> {
    // A bucket's settings file is looked for from the working directory.
    let near = match &args.paths[0] {
        p if crate::bucket::is_bucket(p) => std::path::Path::new("."),
        p => p.as_path(),
    };
    let config = args.config.load(near)?;
    let mut opts = ScanOptions::resolve(
        config.as_ref(),
        &args.labels.overrides().then(&args.settings.overrides()),
    )?;
    args.out.check()?;
    opts.jobs = args.jobs;
    opts.shard = args.shard;
    opts.overlays = args.out.html.is_some();
    let bar = Bar::stderr(args.out.quiet);
    let roots = args
        .paths
        .iter()
        .map(|p| crate::bucket::root(p))
        .collect::<anyhow::Result<Vec<_>>>()?;
    // The spooled shards of buckets, removed when the scan is over.
    let (roots, _spools): (Vec<Root>, Vec<_>) = roots.into_iter().unzip();
    // Reads of a bucket wait on the network: more threads than cores keep enough requests in
    // flight (docs/benchmarks-history.md, issue 26).
    if opts.jobs.is_none() && args.paths.iter().any(|p| crate::bucket::is_bucket(p)) {
        opts.jobs = Some(BUCKET_JOBS);
    }
    let report = labelguard_scan::scan_roots(&roots, &opts, &bar)?;
    write_outputs(&report, &args.out, opts.palette.as_deref(), style)
}

/// Renders the report to stdout or `--output`, writes `--html` and `--write-weights`, and
/// turns the outcome into the exit code.
pub fn write_outputs(
    report: &ScanReport,
    out: &OutputArgs,
    palette: Option<&[[u8; 3]]>,
    style: labelguard_report::Style,
) -> anyhow::Result<ExitCode> {
    let [report_to, html_to, weights_to] = out.destinations()?;
    let report_to = report_to.unwrap_or(Destination::Stdout);
    let style = labelguard_report::Style {
        color: style.color && report_to == Destination::Stdout,
    };
    let mut text = match out.format {
        ScanFormat::Text => render::text(report, style, out.show.0),
        ScanFormat::Json => render::json(report),
        ScanFormat::Sarif => render::sarif(report),
        ScanFormat::Junit => render::junit(report),
        ScanFormat::Github => render::github(report),
    };
    if out.quiet && out.format == ScanFormat::Text {
        text = text
            .lines()
            .last()
            .map(|l| format!("{l}\n"))
            .unwrap_or_default();
    }
    // Everything is rendered before anything is written: the outputs are written as a set.
    let html = html_to.as_ref().map(|_| render::html(report, palette));
    let weights = match (&weights_to, &out.write_weights) {
        (Some(_), Some(path)) => {
            // Several datasets: the weights of the first that has them (the detected layout's),
            // named in the file and, when others have weights too, on stderr.
            let with_weights: Vec<&labelguard_scan::report::ScanReport> = std::iter::once(report)
                .chain(report.datasets.iter())
                .filter(|r| r.weights.is_some())
                .collect();
            let first = *with_weights
                .first()
                .context("no class weights to write: they need --num-classes (or a preset) and at least one counted label")?;
            let (w, names) = (
                first.weights.as_ref().expect("filtered"),
                &first.settings.class_names,
            );
            let whose = first.settings.roots.join(", ");
            if with_weights.len() > 1 && !out.quiet {
                eprintln!(
                    "labelguard: --write-weights: {} datasets have class weights; {} holds those of {whose} only (scan another dataset on its own for its weights)",
                    with_weights.len(),
                    path.display()
                );
            }
            let s = w
                .suggestions
                .iter()
                .find(|s| s.method == w.selected)
                .context("the selected weights method has no weights")?;
            let json = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("json"));
            Some(weights_file(s, names, json, &whose))
        }
        _ => None,
    };
    let mut set: Vec<(Destination, &[u8])> = vec![(report_to, text.as_bytes())];
    if let (Some(d), Some(h)) = (html_to, &html) {
        set.push((d, h.as_bytes()));
    }
    if let (Some(d), Some(w)) = (weights_to, &weights) {
        set.push((d, w.as_bytes()));
    }
    crate::output::write_set(&set)?;
    // Deliberate: an unchecked class range is not an error (nothing wrong was found), but
    // --strict asks that everything was checked.
    let strict_unchecked = report.settings.strict && report.summary.status == "unchecked";
    Ok(if report.has_errors() || strict_unchecked {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
