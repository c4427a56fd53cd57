//! `labelguard diagnose [FILE...]`: explains a PyTorch crash from its log or traceback.

use crate::output::{emit, Format};
use anyhow::Context;
use labelguard_diagnose::{diagnose_reader, LogReport, Options, Outcome};
use labelguard_report::diagnose as render;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  labelguard diagnose train.log\n  python train.py 2>&1 | labelguard diagnose\n  labelguard diagnose --format json rank0.err rank1.err\n\nExit codes: 0 the error is explained (or there is none), 1 an error labelguard cannot explain, 2 I/O error."
)]
pub struct DiagnoseArgs {
    /// Logs or pasted tracebacks to read (`-` or none: stdin). Each is diagnosed on its own; a
    /// log whose only errors follow from another rank's failure (LG909) is explained by another
    /// log that shows it (one log per rank).
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The log comes from a run with CUDA_LAUNCH_BLOCKING=1, so its traceback can be trusted.
    #[arg(long)]
    launch_blocking: bool,
}

pub fn run(args: DiagnoseArgs, style: labelguard_report::Style) -> anyhow::Result<ExitCode> {
    let opts = Options {
        launch_blocking: args.launch_blocking,
    };
    let stdin = [PathBuf::from("-")];
    let files = if args.files.is_empty() {
        &stdin[..]
    } else {
        &args.files[..]
    };
    let mut reports: Vec<LogReport> = Vec::new();
    for path in files {
        labelguard_io::fault::panic_in_phase_if_chosen("diagnose", &path.to_string_lossy());
        let report = if path.as_os_str() == "-" {
            diagnose_reader(std::io::stdin().lock(), "stdin", opts).context("reading stdin")?
        } else {
            let name = path.display().to_string();
            let file = std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?;
            diagnose_reader(file, &name, opts).with_context(|| format!("reading {name}"))?
        };
        reports.push(report);
    }
    // One log per rank: the rank that failed explains the others' peer errors.
    labelguard_diagnose::explained_by_other_logs(&mut reports);
    emit(&match args.format {
        Format::Text => render::text(&reports, style),
        Format::Json => render::json(&reports) + "\n",
    })?;
    let unexplained = reports.iter().any(|r| r.outcome == Outcome::Unexplained);
    Ok(if unexplained {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
