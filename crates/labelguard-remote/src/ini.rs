//! The INI dialect of the AWS shared files, read as botocore reads them: Python's
//! `configparser.RawConfigParser` with its defaults (botocore `configloader.raw_config_parse`),
//! then indented blocks parsed as one level of nesting. The facts, from CPython 3.11
//! `Lib/configparser.py` (`RawConfigParser._read`) and botocore `configloader.py`:
//!
//! - a line whose first non-blank character is `#` or `;` is a comment; there are no inline
//!   comments (`region = x # y` is the value `x # y`);
//! - `[NAME]` opens a section (everything between the first `[` and the last `]`); a line
//!   before any section is an error, and so is the same section twice in one file;
//! - `key = value` or `key: value` (the first `=` or `:` splits), the key lower-cased, both
//!   trimmed; an empty key, a line that is neither, and the same key twice in one section are
//!   errors;
//! - a line indented deeper than its key's line continues the value (a new line of it); a
//!   value that starts with a new line (`s3 =` then indented `key = value` lines) is a nested
//!   block, each of whose lines must have an `=`;
//! - the section `[DEFAULT]` is no section: its keys are every section's defaults.
//!
//! botocore reports all of these as "Unable to parse config file: PATH"; here they also name
//! the line.

use std::collections::{BTreeMap, HashSet};

/// A value: one line, or a nested block (`s3 =` and its indented `key = value` lines).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Text(String),
    Nested(BTreeMap<String, String>),
}

/// The sections of a file in their order, each with its keys (the defaults included).
pub type Sections = Vec<(String, BTreeMap<String, Value>)>;

/// Why a file cannot be read: its line (1-based) and what is wrong there.
#[derive(Debug, PartialEq)]
pub struct ParseError {
    pub line: usize,
    pub what: String,
}

/// The lines of one key's value, each with its line number.
type Lines = Vec<(usize, String)>;

/// Which map the lines go to.
#[derive(Clone, Copy, PartialEq)]
enum Current {
    Nothing,
    Defaults,
    Section(usize),
}

pub fn parse(text: &str) -> Result<Sections, ParseError> {
    let err = |line: usize, what: String| ParseError { line, what };
    let mut sections: Vec<(String, BTreeMap<String, Lines>)> = Vec::new();
    let mut defaults: BTreeMap<String, Lines> = BTreeMap::new();
    let mut current = Current::Nothing;
    let mut key: Option<String> = None;
    let mut indent_level = 0usize;
    let mut seen_keys: HashSet<(String, String)> = HashSet::new();
    // configparser goes on after a line that is no key, then reports the first.
    let mut bad_line: Option<ParseError> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim();
        if line.starts_with(['#', ';']) {
            continue;
        }
        if line.is_empty() {
            // An empty line inside a value is a line of it (trailing ones are trimmed below).
            if let Some(l) = value_lines(&mut sections, &mut defaults, current, &key) {
                l.push((n, String::new()));
            }
            continue;
        }
        let indent = raw.chars().take_while(|c| c.is_whitespace()).count();
        if indent > indent_level {
            if let Some(l) = value_lines(&mut sections, &mut defaults, current, &key) {
                l.push((n, line.to_string()));
                continue;
            }
        }
        indent_level = indent;
        if let Some(name) = header(line) {
            if sections.iter().any(|(s, _)| s == name) {
                return Err(err(n, format!("the section [{name}] again")));
            }
            current = if name == "DEFAULT" {
                Current::Defaults
            } else {
                sections.push((name.to_string(), BTreeMap::new()));
                Current::Section(sections.len() - 1)
            };
            key = None;
            continue;
        }
        let (section_name, map) = match current {
            Current::Nothing => {
                return Err(err(
                    n,
                    format!("{line:?} comes before any [section] header"),
                ))
            }
            Current::Defaults => ("DEFAULT", &mut defaults),
            Current::Section(s) => {
                let (name, map) = &mut sections[s];
                (name.as_str(), map)
            }
        };
        let Some(at) = line.find(['=', ':']) else {
            bad_line.get_or_insert(err(
                n,
                format!("{line:?} is neither a [section], a `key = value` nor a comment"),
            ));
            continue;
        };
        let name = line[..at].trim_end().to_lowercase();
        if name.is_empty() {
            bad_line.get_or_insert(err(
                n,
                format!("{line:?} has no key before its `{}`", &line[at..at + 1]),
            ));
            key = None;
            continue;
        }
        if !seen_keys.insert((section_name.to_string(), name.clone())) {
            return Err(err(
                n,
                format!("the key {name:?} again in the section [{section_name}]"),
            ));
        }
        map.insert(name.clone(), vec![(n, line[at + 1..].trim().to_string())]);
        key = Some(name);
    }
    if let Some(e) = bad_line {
        return Err(e);
    }
    let defaults = values(defaults)?;
    sections
        .into_iter()
        .map(|(name, keys)| {
            let mut all = defaults.clone();
            all.extend(values(keys)?);
            Ok((name, all))
        })
        .collect()
}

/// The lines of the value being read, if a key is.
fn value_lines<'m>(
    sections: &'m mut [(String, BTreeMap<String, Lines>)],
    defaults: &'m mut BTreeMap<String, Lines>,
    current: Current,
    key: &Option<String>,
) -> Option<&'m mut Lines> {
    let map = match current {
        Current::Nothing => return None,
        Current::Defaults => defaults,
        Current::Section(s) => &mut sections[s].1,
    };
    map.get_mut(key.as_ref()?)
}

/// `[NAME]`: NAME is everything up to the last `]` (configparser's `\[(?P<header>.+)\]`, matched
/// at the start of the line).
fn header(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('[')?;
    let end = rest.rfind(']')?;
    (end > 0).then(|| &rest[..end])
}

/// The keys' lines joined into their values; a value that starts with a new line is nested.
fn values(keys: BTreeMap<String, Lines>) -> Result<BTreeMap<String, Value>, ParseError> {
    keys.into_iter()
        .map(|(name, lines)| {
            let text = lines
                .iter()
                .map(|(_, l)| l.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let text = text.trim_end();
            if !text.starts_with('\n') {
                return Ok((name, Value::Text(text.to_string())));
            }
            let mut nested = BTreeMap::new();
            for (n, l) in lines.iter().skip(1).filter(|(_, l)| !l.is_empty()) {
                let (k, v) = l.split_once('=').ok_or_else(|| ParseError {
                    line: *n,
                    what: format!("{l:?} in the block of {name:?} has no `=`"),
                })?;
                nested.insert(k.trim().to_string(), v.trim().to_string());
            }
            Ok((name, Value::Nested(nested)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(v: &str) -> Value {
        Value::Text(v.to_string())
    }

    #[test]
    fn sections_keys_continuations_nesting_and_defaults() {
        let s = parse(
            "# c\n; c\n[DEFAULT]\nregion = d\n[default]\nKey_ID = a = b\nother: x # not a comment\nmulti = one\n   two\n\n  three\n\ns3 =\n  addressing_style = path\n\n  max_attempts=3\n[profile  x ] tail\nregion = r\n",
        )
        .unwrap();
        let names: Vec<_> = s.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["default", "profile  x "]);
        let d = &s[0].1;
        assert_eq!(d["key_id"], text("a = b"));
        assert_eq!(d["other"], text("x # not a comment"));
        assert_eq!(d["multi"], text("one\ntwo\n\nthree"));
        assert_eq!(
            d["region"],
            text("d"),
            "[DEFAULT] is every section's default"
        );
        let Value::Nested(s3) = &d["s3"] else {
            panic!("{:?}", d["s3"])
        };
        assert_eq!(s3.len(), 2);
        assert_eq!(s3["max_attempts"], "3");
        assert_eq!(s[1].1["region"], text("r"), "a section's own key wins");
    }

    #[test]
    fn malformed_files_name_their_line() {
        for (text, line, words) in [
            ("region = x\n[default]\n", 1, "before any [section]"),
            ("[a]\nk = 1\n\n[b]\n[a]\n", 5, "the section [a] again"),
            ("[a]\nk = 1\nK: 2\n", 3, "the key \"k\" again"),
            ("[a]\nk = 1\njunk\n= 3\n", 3, "is neither"),
            ("[a]\n= 3\n", 2, "no key"),
            ("[a]\ns3 =\n  path\n", 3, "has no `=`"),
            ("[]\n", 1, "before any [section]"),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e:?}");
            assert!(e.what.contains(words), "{text:?}: {e:?}");
        }
    }

    /// The truth is Python's configparser, which botocore reads the shared files with (and
    /// botocore's nesting rule: every line of a block that starts with a new line has an `=`).
    #[test]
    fn parses_as_python_configparser_does() {
        let cases = [
            "[default]\naws_access_key_id = A\naws_secret_access_key=B\n",
            "\u{feff}[default]\nk = v\n",
            "[default]\r\nk = v\r\n  w\r\n",
            "[a]\nk = v\n\t w\n  x = y\n[b]\n  k = 1\n",
            "[a]\n  k = 1\n    j = 2\n",
            "[a]\nk =\n\n  x = 1\n  # not a comment? \n  y=2\n",
            "[a]\nk =\n  x\n",
            "[a]\nk\n",
            "[a]\nk = 1\n[a]\n",
            "[DEFAULT]\nk = 1\n[DEFAULT]\nj = 2\n[a]\n",
            "[DEFAULT]\nk = 1\n[DEFAULT]\nk = 2\n",
            "[a]]\nk:v=w\n[ b ]\nK = 1\n",
            "[a]\n;k = 1\n  #j = 2\nz = 3 ; kept\n",
            "key = 1\n",
            "\n\n[a]\nk = 1\n\n\n",
            "[a]\nk = é\nÄ = 2\n",
        ];
        let python = std::env::var("LABELGUARD_PYTHON").unwrap_or_else(|_| "python3".into());
        let script = r#"
import configparser, json, sys
out = []
for text in json.load(sys.stdin):
    cp = configparser.RawConfigParser()
    try:
        cp.read_string(text)
        sections = []
        for s in cp.sections():
            keys = {}
            for k in cp.options(s):
                v = cp.get(s, k)
                if v.startswith("\n"):
                    nested = {}
                    for line in v.splitlines():
                        line = line.strip()
                        if line:
                            a, b = line.split("=", 1)
                            nested[a.strip()] = b.strip()
                    v = nested
                keys[k] = v
            sections.append([s, keys])
        out.append({"ok": sections})
    except (configparser.Error, ValueError) as e:  # ValueError: the nested split
        line = getattr(e, "lineno", None)
        if isinstance(e, configparser.ParsingError) and not line:
            line = e.errors[0][0]
        out.append({"error": line})
print(json.dumps(out))
"#;
        let mut child = std::process::Command::new(&python)
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{python}: {e} (set LABELGUARD_PYTHON)"));
        serde_json::to_writer(child.stdin.take().unwrap(), &cases).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let answers: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(answers.len(), cases.len());
        for (case, theirs) in cases.iter().zip(answers) {
            match (parse(case), &theirs["error"]) {
                (Ok(sections), serde_json::Value::Null) => {
                    let ours: Vec<_> = sections
                        .into_iter()
                        .map(|(name, keys)| {
                            let keys: serde_json::Map<_, _> = keys
                                .into_iter()
                                .map(|(k, v)| match v {
                                    Value::Text(t) => (k, t.into()),
                                    Value::Nested(n) => (k, serde_json::json!(n)),
                                })
                                .collect();
                            serde_json::json!([name, keys])
                        })
                        .collect();
                    assert_eq!(serde_json::json!({ "ok": ours }), theirs, "{case:?}");
                }
                // A nested block's error has no line in Python.
                (Err(e), line) => assert!(
                    line.is_null() && theirs.get("error").is_some() || *line == e.line,
                    "{case:?}: {e:?}, Python: {theirs}"
                ),
                (Ok(ours), _) => panic!("{case:?}: {ours:?}, Python: {theirs}"),
            }
        }
    }
}
