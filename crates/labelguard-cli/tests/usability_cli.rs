//! What a case file under tests/cmd cannot say: help text wrapped on a wide terminal (issue 20),
//! and docs/rules.md generated from the rules (a rule by its number, a mistyped preset: the
//! `rules` and `scan` cases in tests/cmd).

mod scan_common;
use scan_common::{run_cmd, run_in, stdout};
use std::path::Path;
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn help_wraps_at_100_columns_on_a_wide_terminal() {
    for sub in ["scan", "fix", "run", "check"] {
        let mut wide = Command::new(env!("CARGO_BIN_EXE_labelguard"));
        wide.env("COLUMNS", "240");
        let help = stdout(&run_cmd(wide, repo(), &[sub, "--help"]));
        // The examples after the options are written by hand; the options' help is wrapped.
        let options = help.split("Examples:").next().unwrap();
        let widest = options.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= 100, "{sub}: {widest} columns\n{help}");
    }
}

/// docs/rules.md is generated from the rules' doc comments; this fails when it is stale.
#[test]
fn docs_rules_md_is_up_to_date() {
    let generated = stdout(&run_in(repo(), &["rules", "--format", "markdown"]));
    let on_disk = std::fs::read_to_string(repo().join("docs/rules.md")).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/rules.md is stale: regenerate it with `cargo run -q -p labelguard-cli -- rules --format markdown > docs/rules.md`"
    );
}
