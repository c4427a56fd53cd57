//! The scan crate's modules import one way: each layer uses only the layers below it, so that
//! data flows from the files found (the layouts, over `labelguard-formats`' walker and
//! readers) through the per-file analysis to the report, and no module reaches back up. Read from the sources: every
//! `crate::NAME` outside a comment names the module it uses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layers, from the ground up. A module may use the modules of the layers below its own;
/// modules of one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    // Leaves: plain data and helpers that use no other module of the crate.
    &[
        "colours",
        "framework",
        "hist",
        "layout_kind",
        "limits",
        "overlay",
        "progress",
        "weights",
    ],
    // The checks of the rules about one file (plain data in, a finding out) and the settings.
    &["checks", "config"],
    // What the files found are (the walker, the sources and the readers are the
    // `labelguard-formats` crate's, below all of these).
    &["layout"],
    &["analyze"],
    &["report"],
    &["pipeline"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src is readable") {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate's top-level module a source file belongs to (`read` for `src/read/mask.rs`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("a path").as_os_str();
    let first = first.to_str().expect("UTF-8 names");
    first.strip_suffix(".rs").unwrap_or(first).to_string()
}

/// `(line number, module)` for every `crate::NAME` in the code of `text` (comments left out).
fn uses(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `labelguard_crate::`, not this crate
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                .collect();
            out.push((i + 1, name));
        }
    }
    out
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut wrong: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" {
            continue; // the crate's face
        }
        let Some(mine) = layer_of(&module) else {
            wrong.push(format!(
                "{}: the module '{module}' is in no layer: add it to LAYERS where its imports put it",
                file.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a readable source");
        for (line, used) in uses(&text) {
            *seen.entry(module.clone()).or_default() += 1;
            if used == module {
                continue;
            }
            match layer_of(&used) {
                Some(theirs) if theirs < mine => {}
                _ => wrong.push(format!(
                    "{}:{line}: '{module}' (layer {mine}) uses '{used}' (layer {}): imports must run down",
                    file.display(),
                    layer_of(&used).map_or("none".to_string(), |l| l.to_string())
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The reading works: the upper layers do use the lower ones.
    for module in ["analyze", "report", "pipeline", "layout", "checks"] {
        assert!(
            seen.get(module).is_some_and(|n| *n > 0),
            "{module} uses nothing?"
        );
    }
}

#[test]
fn an_import_up_the_layers_is_caught() {
    let text = "use crate::report::ScanReport;\n// crate::pipeline in a comment\nlet x = labelguard_crate::y;";
    assert_eq!(uses(text), [(1, "report".to_string())]);
    assert!(layer_of("report") > layer_of("checks"));
}
