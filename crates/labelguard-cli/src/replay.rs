//! `labelguard replay FILE`: reruns the checks of a call saved by `labelguard.capture`.

use crate::output::{emit, Format};
use labelguard_core::Verdict;
use labelguard_io::{ARGS_KEY, OP_KEY};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ReplayArgs {
    /// A .safetensors file written by `labelguard.capture` (Python).
    file: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// Where in a multi-process job the call was captured (`rank 1 of 4, DataLoader worker 0,
/// sample 17`), from the metadata `labelguard/_ranks.py` writes; empty when none.
fn place<'a>(get: &impl Fn(&str) -> &'a str) -> String {
    let mut parts = Vec::new();
    if !get("labelguard.rank").is_empty() {
        let mut rank = format!("rank {}", get("labelguard.rank"));
        if !get("labelguard.world_size").is_empty() {
            rank += &format!(" of {}", get("labelguard.world_size"));
        }
        let local = get("labelguard.local_rank");
        if !local.is_empty() && local != get("labelguard.rank") {
            rank += &format!(" (local rank {local})");
        }
        parts.push(rank);
    }
    if !get("labelguard.worker").is_empty() {
        parts.push(format!("DataLoader worker {}", get("labelguard.worker")));
    }
    if !get("labelguard.sample").is_empty() {
        parts.push(format!("sample {}", get("labelguard.sample")));
    }
    parts.join(", ")
}

pub fn run(args: ReplayArgs, style: labelguard_report::Style) -> anyhow::Result<ExitCode> {
    let (metadata, report) = labelguard_io::replay(&args.file)?;
    let get = |k: &str| {
        metadata
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    match args.format {
        Format::Json => {
            let meta: serde_json::Map<String, serde_json::Value> = metadata
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            let mut doc: serde_json::Value =
                serde_json::from_str(&labelguard_report::call::json(&report))?;
            doc["capture"] = serde_json::Value::Object(meta);
            emit(&(serde_json::to_string_pretty(&doc)? + "\n"))?;
        }
        Format::Text => {
            let args_text =
                serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(get(ARGS_KEY))
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| match v {
                                serde_json::Value::String(s) => format!("{k}='{s}'"),
                                other => format!("{k}={other}"),
                            })
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
            let mut out = format!("captured call: {}({args_text})", get(OP_KEY));
            let versions: Vec<String> = [
                ("labelguard", "labelguard.version"),
                ("torch", "labelguard.torch"),
                ("python", "labelguard.python"),
            ]
            .iter()
            .filter(|(_, k)| !get(k).is_empty())
            .map(|(n, k)| format!("{n} {}", get(k)))
            .collect();
            if !versions.is_empty() {
                out += &format!(" — saved with {}", versions.join(", "));
            }

            // The capture's metadata is input: escaped like every report's input-derived text.
            let mut out = labelguard_report::visible(&out).into_owned() + "\n";
            let place = place(&get);
            if !place.is_empty() {
                out += &format!("it came from {}\n", labelguard_report::visible(&place));
            }
            if !get("labelguard.error").is_empty() {
                out += &format!(
                    "it raised: {}\n",
                    labelguard_report::visible(
                        get("labelguard.error").lines().next().unwrap_or("")
                    )
                );
            }
            out.push('\n');
            out += &labelguard_report::call::text(&report, style);
            emit(&out)?;
        }
    }
    Ok(match report.verdict {
        Verdict::Ok | Verdict::Silent => ExitCode::SUCCESS,
        Verdict::DeviceAssert | Verdict::Error => ExitCode::from(1),
    })
}
