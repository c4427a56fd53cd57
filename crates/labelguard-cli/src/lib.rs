//! `labelguard`: a thin clap front end over the contract engine, the readers and the renderers.
//!
//! A library so that the binary and the Python package (`python -m labelguard`) run the same
//! commands: [`run`] takes the arguments and returns the exit code.

mod bucket;
mod check;
mod dataset_args;
mod diagnose;
mod fix;
mod merge;
mod ops;
mod output;
mod panic_net;
mod replay;
mod rules;
mod run;
mod scan;

use clap::{Parser, Subcommand};
use output::{style, ColorChoice};
use std::process::ExitCode;

/// Stops PyTorch's `CUDA error: device-side assert triggered` before it happens, and explains
/// it in one line when it does.
#[derive(Parser)]
// Help is wrapped at the terminal's width up to 100 columns: lines as wide as a wide terminal
// are hard to read.
#[command(name = "labelguard", version, about, long_about = None, after_help = EXAMPLES, max_term_width = 100)]
struct Cli {
    /// When to colour the output (NO_COLOR is respected).
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    #[command(subcommand)]
    command: Command,
}

const EXAMPLES: &str = "Examples:
  labelguard check cross_entropy batch.npz --arg ignore_index=255
  labelguard check embedding ids.safetensors --arg num_embeddings=30522 --format json
  labelguard scan data/cityscapes --preset cityscapes --html report.html
  labelguard diagnose train.log
  labelguard run --rerun-sync -- python train.py
  labelguard ops
  labelguard rules
  labelguard rule LG103

Exit codes: 0 nothing that crashes, 1 PyTorch would raise or assert, 2 usage or I/O error.";

#[derive(Subcommand)]
enum Command {
    /// Decide what PyTorch does with one op call on the tensors of a file, and why.
    Check(check::CheckArgs),
    /// List every op that is checked: its PyTorch sites, modules and signature.
    Ops(ops::OpsArgs),
    /// List every rule.
    Rules(rules::RulesArgs),
    /// Print one rule's documentation.
    Rule(rules::RuleArgs),
    /// Rerun the checks of a call saved by `labelguard.capture` (Python).
    Replay(replay::ReplayArgs),
    /// Check a whole dataset on disk (masks, arrays, label tables, COCO/YOLO/VOC annotations) before training.
    Scan(Box<scan::ScanArgs>),
    /// Merge the JSON reports of a sharded scan (`scan --shard K/N`) into one.
    Merge(merge::MergeArgs),
    /// Repair a dataset into a new directory from the scan's findings or a plan; renumber COCO
    /// category ids or YOLO class ids.
    Fix(Box<fix::FixArgs>),
    /// Explain a crash from its log or traceback (a file, or stdin).
    Diagnose(diagnose::DiagnoseArgs),
    /// Run a training command with the Python guards on, and diagnose its output when it fails.
    Run(run::RunArgs),
}

/// Runs the command line `args` (the first is the program name) and returns the exit code.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version exit 0, usage errors 2, as clap's own exit() would.
            let _ = e.print();
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    let style = style(cli.color);
    // The last net: a panic in any command (check, diagnose, the discovery phase of scan; a scan's
    // files are isolated one by one) is LG620 and exit 2, not an abort with a backtrace.
    let result = panic_net::guarded(|| match cli.command {
        Command::Check(args) => check::run(args, style),
        Command::Ops(args) => ops::list(args),
        Command::Rules(args) => rules::list(args, style),
        Command::Rule(args) => rules::show(args),
        Command::Replay(args) => replay::run(args, style),
        Command::Scan(args) => scan::run(*args, style),
        Command::Merge(args) => merge::run(args, style),
        Command::Fix(args) => fix::run(*args),
        Command::Diagnose(args) => diagnose::run(args, style),
        Command::Run(args) => run::run(args, cli.color),
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            // Errors name input files: their names are escaped like every report's.
            eprintln!(
                "labelguard: error: {}",
                labelguard_report::visible(&format!("{e:#}"))
            );
            ExitCode::from(2)
        }
    }
}
