//! `labelguard check OP FILE`: one call, one verdict.

use crate::output::{emit, Format};
use anyhow::{bail, Context};
use labelguard_core::{lookup, Verdict, OPS};
use labelguard_io::{read_tensors, Limits};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(after_help = ops_help())]
pub struct CheckArgs {
    /// The PyTorch op, e.g. cross_entropy (see the list below).
    op: String,
    /// A .npz, .npy or .safetensors file whose tensors are named after PyTorch's parameters
    /// (input, target, weight, index, src, tensor, pos_weight, log_probs, targets, ...).
    tensors: PathBuf,
    /// A scalar argument by PyTorch's name, e.g. --arg ignore_index=255 --arg reduction=none.
    #[arg(long = "arg", value_name = "NAME=VALUE", value_parser = parse_arg)]
    args: Vec<(String, String)>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

fn parse_arg(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not NAME=VALUE (for example ignore_index=255)"))?;
    let k = k.trim();
    if k.is_empty() {
        return Err(format!("'{s}' has no argument name before '='"));
    }
    Ok((k.to_string(), v.to_string()))
}

fn ops_help() -> String {
    let mut s = String::from("Ops and their PyTorch signatures:\n");
    for op in OPS {
        s += &format!("  {:<34} {}\n", op.name, op.signature());
    }
    s += "\nVerdicts: ok, silent (accepted but garbage), device_assert (CUDA asserts, the CPU raises), error (raises on the host).\nExit codes: 0 for ok/silent, 1 for error/device_assert, 2 for usage or I/O errors.";
    s
}

pub fn run(args: CheckArgs, style: labelguard_report::Style) -> anyhow::Result<ExitCode> {
    let op = lookup(&args.op)?;
    labelguard_io::fault::panic_in_phase_if_chosen("check", &args.tensors.to_string_lossy());
    let named = read_tensors(&args.tensors, &Limits::default())?;
    let mut seen = std::collections::BTreeSet::new();
    for t in &named {
        if !seen.insert(t.name.as_str()) {
            bail!(
                "{}: holds two tensors named '{}'",
                args.tensors.display(),
                labelguard_core::clip::echo(&t.name)
            );
        }
    }
    // Without its table, embedding has no contract to check: a usage error, not a verdict.
    if op.name == "embedding"
        && !named.iter().any(|t| t.name == "weight")
        && !args.args.iter().any(|(k, _)| k == "num_embeddings")
    {
        bail!(
            "embedding needs the table: a tensor named 'weight' in {}, or --arg num_embeddings=N",
            args.tensors.display()
        );
    }
    let views = named
        .iter()
        .map(|t| (t.name.clone(), t.tensor.view()))
        .collect();
    let report = op
        .check_text(views, &args.args)
        .with_context(|| format!("{} {}", op.name, args.tensors.display()))?;
    emit(&match args.format {
        Format::Text => labelguard_report::call::text(&report, style),
        Format::Json => labelguard_report::call::json(&report) + "\n",
    })?;
    Ok(match report.verdict {
        Verdict::Ok | Verdict::Silent => ExitCode::SUCCESS,
        Verdict::DeviceAssert | Verdict::Error => ExitCode::from(1),
    })
}
