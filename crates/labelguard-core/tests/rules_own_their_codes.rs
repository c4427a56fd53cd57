//! A rule's code is written in its own file only: no crate keeps a list of codes (`"LG105"`)
//! to choose a repair, a category or a grouping, because such a list drifts from the rules it
//! names. Code asks the rule (`RULE.repair`, `RULE.category`, `rules::category_of`) or names
//! its constant (`rules::LG105`). Read from the sources of every crate: comments, tests
//! (`#[cfg(test)]` to the end of the file, `tests.rs` modules, `tests/`) and a rule's own file
//! are left out.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a readable directory") {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a rule file (`lg606` of `lg606_colour_mask.rs`), upper-cased.
fn own_code(file: &Path) -> Option<String> {
    let name = file.file_name()?.to_str()?;
    let code = name.get(..5)?;
    (code.starts_with("lg") && code[2..].bytes().all(|b| b.is_ascii_digit()))
        .then(|| code.to_ascii_uppercase())
}

/// The `"LGnnn` literals of a line's code (its comment left out).
fn literals(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("\"LG") {
        let digits = &rest[at + 3..];
        if digits.len() >= 3 && digits.as_bytes()[..3].iter().all(u8::is_ascii_digit) {
            out.push(format!("LG{}", &digits[..3]));
        }
        rest = &rest[at + 3..];
    }
    out
}

#[test]
fn no_crate_lists_rule_codes_outside_the_rules() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in std::fs::read_dir(&crates).expect("crates/") {
        let src = krate.expect("an entry").path().join("src");
        if src.is_dir() {
            sources(&src, &mut files);
        }
    }
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    let mut offenders = Vec::new();
    let checked = files
        .iter()
        .filter(|f| !f.starts_with(&rules) && !f.ends_with("tests.rs"));
    for file in checked {
        let text = std::fs::read_to_string(file).expect("UTF-8 source");
        let own = own_code(file);
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            for code in literals(line) {
                if own.as_deref() != Some(code.as_str()) {
                    offenders.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "rule codes written outside their rule (declare the repair or category on the rule, or use rules::LGnnn):\n{}",
        offenders.join("\n")
    );
    // The walk found the workspace's sources, not an empty folder.
    assert!(files.len() > 100, "{} sources", files.len());
}
