//! The documentation's examples are tests: every ```` ```console ```` block of README.md and of
//! the pages under docs/ is run against the repo's example data, and what it prints must be what
//! the page shows. A renamed flag or a changed message fails here.
//!
//! The blocks use trycmd's Markdown notation, so a page reads as a terminal session:
//!
//! ```text
//! $ labelguard check cross_entropy examples/batches/voc_void_borders.npz
//! ? 1
//! error[LG103] void-label-not-ignored (device_assert)
//! ...
//! ```
//!
//! - `$ labelguard ARGS` runs this build's binary, in the repository root, with `NO_COLOR=1`;
//!   arguments are split as a shell splits them (single and double quotes), with no shell.
//! - `? N` right after the command is the exit code it must return (`? failed`: any but 0);
//!   without it the command must succeed.
//! - The lines after it are its output, stdout then stderr; `...` on a line of its own stands for
//!   any number of lines, `[..]` for any text within a line. Trailing spaces are ignored.
//!
//! Commands that cannot run here (a bucket, your own training script) go in ```` ```sh ````
//! blocks, which are not run. Why not trycmd itself (whose notation this is): its Markdown mode
//! runs a page's commands in a `PAGE.in` folder beside the page (or, without one, in the test's
//! own folder, this crate's), while the guide's commands are written from the repository root, as
//! a user types them after the quick start; that would need a folder per page, and a mismatch
//! here names the page and line of the example.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One `$` command of a page, with what the page says it prints.
struct Example {
    /// `docs/guide/check.md:42`, where the `$` line is.
    at: String,
    args: Vec<String>,
    /// None: `? failed`, any non-zero code.
    status: Option<i32>,
    expected: Vec<String>,
}

/// The Markdown files the examples are read from: README.md and docs/ (recursively).
fn pages(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut out);
    out
}

/// Splits a command line as a shell would for plain words and quoted ones.
fn split_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, any) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (_, c) => (word.push(c), any = true).1,
        }
    }
    assert!(quote.is_none(), "an unclosed quote in `{line}`");
    if any {
        words.push(word);
    }
    words
}

/// The examples of one page's ```console blocks.
fn examples(page: &Path, rel: &str) -> Vec<Example> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    for (i, line) in text.lines().enumerate() {
        let at = format!("{rel}:{}", i + 1);
        if !in_console {
            in_console = line.trim_start() == "```console";
            continue;
        }
        if line.trim_start().starts_with("```") {
            in_console = false;
        } else if let Some(cmd) = line.strip_prefix("$ ") {
            let mut words = split_words(cmd);
            assert_eq!(
                words.first().map(String::as_str),
                Some("labelguard"),
                "{at}: a console block runs `labelguard ...` only (use ```sh for the rest)"
            );
            words.remove(0);
            out.push(Example {
                at,
                args: words,
                status: Some(0),
                expected: Vec::new(),
            });
        } else {
            let ex = out
                .last_mut()
                .unwrap_or_else(|| panic!("{at}: output before any `$` line"));
            match line.strip_prefix("? ") {
                Some(code) if ex.expected.is_empty() => {
                    ex.status = match code.trim() {
                        "failed" => None,
                        n => Some(n.parse().unwrap_or_else(|_| panic!("{at}: `? {n}`"))),
                    }
                }
                _ => ex.expected.push(line.trim_end().to_string()),
            }
        }
    }
    assert!(!in_console, "{rel}: a console block is not closed");
    out
}

/// One line against its pattern: `[..]` matches any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == line;
    }
    if !line.starts_with(first) || line.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    if !line.ends_with(last) {
        return false;
    }
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(k) => rest = &rest[k + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Lines against patterns: a `...` pattern line matches any number of lines.
fn lines_match(patterns: &[String], lines: &[&str]) -> bool {
    match patterns.split_first() {
        None => lines.is_empty(),
        Some((p, rest)) if p == "..." => (0..=lines.len()).any(|k| lines_match(rest, &lines[k..])),
        Some((p, rest)) => {
            !lines.is_empty() && line_matches(p, lines[0]) && lines_match(rest, &lines[1..])
        }
    }
}

fn trimmed(mut lines: Vec<String>) -> Vec<String> {
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// Runs one example; Err says how it differs from its page.
fn check(root: &Path, ex: &Example) -> Result<(), String> {
    let o = Command::new(env!("CARGO_BIN_EXE_labelguard"))
        .args(&ex.args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .output()
        .map_err(|e| format!("{}: cannot start labelguard: {e}", ex.at))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let got = trimmed(text.lines().map(|l| l.trim_end().to_string()).collect());
    let code = o.status.code().unwrap_or(-1);
    let status_ok = match ex.status {
        Some(want) => code == want,
        None => code != 0,
    };
    let want = trimmed(ex.expected.clone());
    let lines: Vec<&str> = got.iter().map(String::as_str).collect();
    if status_ok && lines_match(&want, &lines) {
        return Ok(());
    }
    Err(format!(
        "{}: `labelguard {}` exited {code} (the page says {}) and printed:\n{}\n--- the page shows:\n{}\n",
        ex.at,
        ex.args.join(" "),
        ex.status.map_or("failed".into(), |s| s.to_string()),
        got.join("\n"),
        want.join("\n")
    ))
}

#[test]
fn every_console_example_of_the_docs_prints_what_its_page_shows() {
    let root = repo_root();
    let mut failures = Vec::new();
    let mut ran = 0;
    for page in pages(&root) {
        let rel = page.strip_prefix(&root).unwrap().display().to_string();
        for ex in examples(&page, &rel) {
            ran += 1;
            if let Err(e) = check(&root, &ex) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // README's examples per face and the guide's: a parser that found none would pass vacuously.
    assert!(ran >= 10, "only {ran} examples found");
}

/// The `labelguard ...` lines of a page's ```text blocks (its usage lines).
fn usage_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_text = false;
    for line in text.lines() {
        match line.trim_start() {
            "```text" => in_text = true,
            l if l.starts_with("```") => in_text = false,
            l if in_text && l.starts_with("labelguard ") => out.push(l.to_string()),
            _ => {}
        }
    }
    out
}

/// README's Usage block and the guide's usage lines are the same lines: each line of one is on the
/// other, so a flag renamed in one place and not the other fails here.
#[test]
fn the_guide_shows_readmes_usage_lines_and_no_others() {
    let root = repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let usage = readme
        .split_once("## Usage")
        .map(|(_, r)| usage_lines(r.split_once("\n## ").map_or(r, |(u, _)| u)))
        .expect("README has a Usage section");
    assert!(usage.len() >= 10, "{usage:?}");
    let mut guide = Vec::new();
    for page in pages(&root).into_iter().skip(1) {
        let rel = page.strip_prefix(&root).unwrap().display().to_string();
        for line in usage_lines(&std::fs::read_to_string(&page).unwrap()) {
            assert!(
                usage.contains(&line),
                "{rel}: `{line}` is not in README's Usage block"
            );
            guide.push(line);
        }
    }
    for line in &usage {
        assert!(
            guide.contains(line),
            "README's usage line `{line}` is on no guide page"
        );
    }
}

#[test]
fn the_matcher_matches_and_refuses() {
    let p = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&p(&["a", "...", "z"]), &["a", "b", "c", "z"]));
    assert!(lines_match(&p(&["a", "...", "z"]), &["a", "z"]));
    assert!(!lines_match(&p(&["a", "...", "z"]), &["a", "b"]));
    assert!(!lines_match(&p(&["a", "b"]), &["a", "b", "c"]));
    assert!(line_matches(
        "your code: [..]/run/x.py:44 in [..]",
        "your code: /w/t/run/x.py:44 in <module>"
    ));
    assert!(!line_matches(
        "error[LG103] [..] (error)",
        "error[LG103] void (device_assert)"
    ));
    assert!(!line_matches("ab[..]ba", "aba"));
    assert_eq!(
        split_words(r#"scan 'a b' "c" d"#),
        ["scan", "a b", "c", "d"]
    );
}
