//! Small things a newcomer meets first (issue 20): a rule by its number, a mistyped preset,
//! help text on a wide terminal.

mod scan_common;
use scan_common::{code, run_cmd, run_in, stderr, stdout};
use std::path::Path;
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn a_rule_is_found_by_its_number_alone() {
    let by_number = run_in(repo(), &["rule", "103"]);
    assert_eq!(code(&by_number), 0, "{}", stderr(&by_number));
    assert_eq!(by_number.stdout, run_in(repo(), &["rule", "LG103"]).stdout);
    assert!(stdout(&by_number).starts_with("LG103 void-label-not-ignored"));
    let none = run_in(repo(), &["rule", "999"]);
    assert_eq!(code(&none), 2);
    assert!(stderr(&none).contains("no rule '999'"));
}

#[test]
fn a_mistyped_preset_gets_the_name_it_is_closest_to() {
    for (typed, meant) in [("citiscapes", "cityscapes"), ("ade2k", "ade20k")] {
        let o = run_in(
            repo(),
            &[
                "scan",
                "examples/cityscapes-mini",
                "--preset",
                typed,
                "--no-config",
            ],
        );
        assert_eq!(code(&o), 2);
        assert!(
            stderr(&o).contains(&format!("did you mean '{meant}'?")),
            "{}",
            stderr(&o)
        );
    }
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
