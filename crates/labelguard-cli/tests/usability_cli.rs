//! What a case file under tests/cmd cannot say: docs/rules.md generated from the rules (a rule
//! by its number, a mistyped preset, help wrapped at 100 columns on a wide terminal: the
//! `rules`, `scan` and `<command>/help` cases in tests/cmd).

mod scan_common;
use scan_common::{run_in, stdout};
use std::path::Path;

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
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
