//! `labelguard rules` and `labelguard rule CODE`: the catalogue, from the rules' doc comments.

use crate::output::emit;
use anyhow::anyhow;
use labelguard_core::rules::{by_code, ALL};
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
    /// The docs/rules.md page.
    Markdown,
}

#[derive(clap::Args)]
pub struct RulesArgs {
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    format: RulesFormat,
}

#[derive(clap::Args)]
pub struct RuleArgs {
    /// A rule code (LG101, or 101) or name (void-label-not-ignored).
    code: String,
}

pub fn list(args: RulesArgs, style: labelguard_report::Style) -> anyhow::Result<ExitCode> {
    emit(&match args.format {
        RulesFormat::Text => labelguard_report::catalogue::text(ALL, style),
        RulesFormat::Json => labelguard_report::catalogue::json(ALL) + "\n",
        RulesFormat::Markdown => labelguard_report::catalogue::markdown(ALL),
    })?;
    Ok(ExitCode::SUCCESS)
}

pub fn show(args: RuleArgs) -> anyhow::Result<ExitCode> {
    // `labelguard rule 103` is LG103.
    let code = if !args.code.is_empty() && args.code.bytes().all(|b| b.is_ascii_digit()) {
        format!("LG{}", args.code)
    } else {
        args.code.clone()
    };
    let rule = by_code(&code)
        .ok_or_else(|| anyhow!("no rule '{}'; `labelguard rules` lists them", args.code))?;
    emit(&format!(
        "{} {} ({})\n\n{}",
        rule.code,
        rule.name,
        rule.severity.as_str(),
        rule.documentation()
    ))?;
    Ok(ExitCode::SUCCESS)
}
