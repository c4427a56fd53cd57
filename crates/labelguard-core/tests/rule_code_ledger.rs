//! Rule codes are handed out by a ledger, `src/rules/codes.txt`, so that two branches cannot
//! take the same code: a branch lands its range on main before its work starts, and this test
//! holds the catalogue to the ledger (every rule's code in a range, no two ranges overlapping,
//! no two rule files with one code, every check file named after a rule of the catalogue).

use labelguard_core::rules::ALL;
use std::path::{Path, PathBuf};

/// A ledger line: the first and last code of its range (as numbers) and its line number.
struct Range {
    first: u16,
    last: u16,
    line: usize,
}

fn code_number(code: &str) -> Option<u16> {
    let digits = code.strip_prefix("LG")?;
    (digits.len() == 3).then(|| digits.parse().ok()).flatten()
}

fn ledger() -> Vec<Range> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules/codes.txt");
    let text = std::fs::read_to_string(&path).expect("src/rules/codes.txt");
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (range, what) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        assert!(
            !what.trim().is_empty(),
            "codes.txt:{line_no}: say what took the range"
        );
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        let (Some(first), Some(last)) = (code_number(first), code_number(last)) else {
            panic!("codes.txt:{line_no}: `{range}` is not LGnnn or LGnnn-LGnnn");
        };
        assert!(
            first <= last,
            "codes.txt:{line_no}: the range runs backwards"
        );
        assert_eq!(
            first / 100,
            last / 100,
            "codes.txt:{line_no}: a range stays in one category"
        );
        out.push(Range {
            first,
            last,
            line: line_no,
        });
    }
    out
}

#[test]
fn ledger_ranges_never_overlap() {
    let mut ranges = ledger();
    assert!(ranges.len() >= 9, "one range per category at least");
    ranges.sort_by_key(|r| r.first);
    for w in ranges.windows(2) {
        assert!(
            w[0].last < w[1].first,
            "codes.txt:{} and codes.txt:{} overlap: two pieces of work hold the same codes",
            w[0].line,
            w[1].line
        );
    }
}

#[test]
fn every_rule_code_is_in_the_ledger() {
    let ranges = ledger();
    let outside: Vec<&str> = ALL
        .iter()
        .filter(|rule| {
            let n = code_number(rule.code).expect("a rule code is LGnnn");
            !ranges.iter().any(|r| (r.first..=r.last).contains(&n))
        })
        .map(|rule| rule.code)
        .collect();
    assert!(
        outside.is_empty(),
        "rules whose codes no line of src/rules/codes.txt hands out (land the range on main first): {outside:?}"
    );
}

fn rule_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rule_files(&path, out);
        } else if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
            n.len() > 6 && n.starts_with("lg") && n[2..5].bytes().all(|b| b.is_ascii_digit())
        }) {
            out.push(path);
        }
    }
}

/// `lg606_colour_mask` of `.../lg606_colour_mask.rs`.
fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn one_rule_file_per_code_and_every_check_file_names_a_rule() {
    let core = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut own = Vec::new();
    rule_files(&core.join("src/rules"), &mut own);
    let mut stems: Vec<String> = own.iter().map(|p| stem(p)).collect();
    stems.sort();
    for w in stems.windows(2) {
        assert_ne!(
            w[0][..5],
            w[1][..5],
            "two rule files share a code: {} and {}",
            w[0],
            w[1]
        );
    }
    assert_eq!(stems.len(), ALL.len(), "one file per rule of the catalogue");

    // The other crates' files named after a rule (scan's checks, ...) use the rule's own name.
    let mut others = Vec::new();
    for krate in std::fs::read_dir(core.join("..")).expect("crates/") {
        let dir = krate.expect("an entry").path();
        let src = dir.join("src");
        if src.is_dir() && !dir.ends_with("labelguard-core") {
            rule_files(&src, &mut others);
        }
    }
    let strays: Vec<String> = others
        .iter()
        .filter(|p| !stems.contains(&stem(p)))
        .map(|p| p.display().to_string())
        .collect();
    assert!(others.len() > 20, "{} check files found", others.len());
    assert!(
        strays.is_empty(),
        "files named like a rule that the catalogue does not hold: {strays:?}"
    );
}
