//! `labelguard diagnose [FILE...]`: explains a PyTorch crash from its log or traceback.

use crate::output::{emit, Format};
use anyhow::Context;
use labelguard_diagnose::{diagnose_reader, LogReport, Options, Outcome};
use labelguard_report::diagnose as render;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  labelguard diagnose train.log\n  python train.py 2>&1 | labelguard diagnose\n  labelguard diagnose --format json rank0.err rank1.err\n\nExit codes: 0 the error is explained (or there is none), 1 an error labelguard cannot explain, 2 I/O error or an input that is no text."
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
    let mut not_text: Vec<String> = Vec::new();
    for path in files {
        labelguard_io::fault::panic_in_phase_if_chosen("diagnose", &path.to_string_lossy());
        let stdin = path.as_os_str() == "-";
        let name = if stdin {
            "stdin".to_string()
        } else {
            path.display().to_string()
        };
        let (report, binary) = if stdin {
            read_log(std::io::stdin().lock(), &name, opts).context("reading stdin")?
        } else {
            let file = std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?;
            read_log(file, &name, opts).with_context(|| format!("reading {name}"))?
        };
        if binary && report.outcome == Outcome::NoError {
            not_text.push(name);
        }
        reports.push(report);
    }
    // Never silent: "no error found" in a file that is no text would be a false all-clear.
    for name in &not_text {
        eprintln!(
            "labelguard: {name} is not text (NUL bytes in its first {} KiB: a binary, compressed or checkpoint file), so no log could be read from it; pass the training log itself (zcat FILE.gz | labelguard diagnose for a compressed one)",
            SNIFF / 1024
        );
    }
    if !not_text.is_empty() && not_text.len() == reports.len() {
        emit(&match args.format {
            Format::Text => String::new(),
            Format::Json => render::json(&reports) + "\n",
        })?;
        return Ok(ExitCode::from(2));
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

/// How much of a log is sniffed for NUL bytes (the way `grep` and `git` tell binary files).
const SNIFF: usize = 8192;

/// Diagnoses one log, and says whether it looks like no text at all.
fn read_log(
    reader: impl std::io::Read,
    name: &str,
    opts: Options,
) -> std::io::Result<(LogReport, bool)> {
    use std::io::BufRead;
    let mut reader = std::io::BufReader::with_capacity(SNIFF, reader);
    let head = reader.fill_buf()?;
    let binary = head.contains(&0);
    Ok((diagnose_reader(reader, name, opts)?, binary))
}
