//! Finds the Python package's `_after_import.py`, which `run` embeds (one copy serves the package
//! and `run`'s sitecustomize). In the repository it is `python/labelguard/`; in the sdist that
//! maturin writes, the package sits at the archive's root beside `crates/`, so the path differs.

use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = crate_dir.join("../..");
    let candidates = [
        root.join("python/labelguard/_after_import.py"),
        root.join("labelguard/_after_import.py"),
    ];
    let Some(found) = candidates.iter().find(|p| p.is_file()) else {
        panic!(
            "labelguard-cli embeds the Python package's _after_import.py, found in none of: {}",
            candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    for path in &candidates {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    println!(
        "cargo:rustc-env=LABELGUARD_AFTER_IMPORT={}",
        found.display()
    );
}
