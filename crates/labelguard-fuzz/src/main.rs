//! `labelguard-fuzz [SECONDS] [TARGET...]`: fuzz every target (or the named ones) for SECONDS
//! each (default 10); crashers go to crates/labelguard-fuzz/crashes/<target>/. Exit 1 when any
//! was found.

use labelguard_fuzz::{campaign, targets::TARGETS};
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(10);
    let names: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    let crashes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crashes");
    let mut total_found = 0;
    println!(
        "{:<12} {:>12} {:>10} {:>8}",
        "target", "executions", "exec/s", "found"
    );
    for t in TARGETS
        .iter()
        .filter(|t| names.is_empty() || names.contains(&t.name))
    {
        let s = campaign(
            t,
            Duration::from_secs(seconds),
            0x5eed ^ t.name.len() as u64,
            &crashes,
        );
        println!(
            "{:<12} {:>12} {:>10} {:>8}",
            t.name,
            s.executions,
            s.executions / seconds.max(1),
            s.found.len()
        );
        for (path, outcome) in &s.found {
            println!("  {}: {outcome:?}", path.display());
        }
        total_found += s.found.len();
    }
    std::process::exit(if total_found > 0 { 1 } else { 0 });
}
