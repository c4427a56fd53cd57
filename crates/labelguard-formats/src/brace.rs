//! Brace patterns of shard names, as WebDataset expands them: `train-{000000..000127}.tar`,
//! `{train,val}-{0..9}.tar`, several patterns joined by `::`.
//!
//! The rules are those of the `braceexpand` package (0.1.7) that `webdataset.shardlists.
//! expand_urls` calls after splitting on `::`, ported from its `parse_pattern`,
//! `parse_expression`, `parse_sequence`, `make_int_range` and `make_char_range`:
//! - `{A..B}` and `{A..B..STEP}` integer ranges, either direction, inclusive; when A or B
//!   (other than `0`) starts with `0` or `-0`, every number is zero-padded to the longer of
//!   the two as written (`{07..10}` is `07 08 09 10`);
//! - `{a..e}` letter ranges over `A-Za-z`;
//! - `{x,y,}` lists (empty items allowed), nested (`{a,b{1,2}}`);
//! - braces that hold neither stay as written (`{x}` is `{x}`); unbalanced braces are an error;
//! - a backslash escapes the next character and is removed from the result.
//!
//! Differences: digits are ASCII only (Python's `\d` also takes other scripts' digits), and the
//! expansion is refused past [`MAX_NAMES`] names instead of running out of memory.

/// The most names one argument may expand to.
pub const MAX_NAMES: usize = 1_000_000;

/// Whether `arg` is a brace pattern (holds a `{`, or `::` between patterns).
pub fn is_pattern(arg: &str) -> bool {
    arg.contains('{') || arg.contains("::")
}

/// The names `pattern` expands to, in WebDataset's order.
pub fn expand(pattern: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for part in pattern.split("::") {
        for name in parse_pattern(part)? {
            push_capped(&mut out, unescape(&name))?;
        }
    }
    Ok(out)
}

fn push_capped(out: &mut Vec<String>, s: String) -> Result<(), String> {
    if out.len() >= MAX_NAMES {
        return Err(format!("expands to more than {MAX_NAMES} names"));
    }
    out.push(s);
    Ok(())
}

/// Drops each escaping backslash (`\x` is `x`, `\\` is `\`).
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// A pattern: literals and `{...}` groups, every combination in order (the product).
fn parse_pattern(p: &str) -> Result<Vec<String>, String> {
    let b = p.as_bytes();
    let (mut start, mut pos, mut depth) = (0usize, 0usize, 0i64);
    let mut items: Vec<Vec<String>> = Vec::new();
    while pos < b.len() {
        match b[pos] {
            b'\\' => {
                pos += 2;
                continue;
            }
            b'{' => {
                if depth == 0 && pos > start {
                    items.push(vec![p[start..pos].to_string()]);
                    start = pos;
                }
                depth += 1;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    let expr = &p[start + 1..pos];
                    match parse_expression(expr)? {
                        Some(item) => items.push(item),
                        None => {
                            items.push(vec!["{".into()]);
                            items.push(parse_pattern(expr)?);
                            items.push(vec!["}".into()]);
                        }
                    }
                    start = pos + 1;
                }
            }
            _ => {}
        }
        pos += 1;
    }
    if depth != 0 {
        return Err(format!("unbalanced braces: '{p}'"));
    }
    if start < b.len().min(pos) {
        items.push(vec![p[start..].to_string()]);
    }
    product(&items)
}

fn product(items: &[Vec<String>]) -> Result<Vec<String>, String> {
    let mut out = vec![String::new()];
    for item in items {
        let n = out.len().saturating_mul(item.len());
        if n > MAX_NAMES {
            return Err(format!("expands to more than {MAX_NAMES} names"));
        }
        let mut next = Vec::with_capacity(n);
        for head in &out {
            for tail in item {
                next.push(format!("{head}{tail}"));
            }
        }
        out = next;
    }
    Ok(out)
}

/// A `{...}` body: an integer range, a letter range, a list, or `None` (kept as written).
fn parse_expression(expr: &str) -> Result<Option<Vec<String>>, String> {
    if let Some((a, b, step)) = range_parts(expr, |s| {
        let digits = s.strip_prefix('-').unwrap_or(s);
        !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
    }) {
        return int_range(a, b, step).map(Some);
    }
    if let Some((a, b, step)) = range_parts(expr, |s| {
        s.len() == 1 && s.as_bytes()[0].is_ascii_alphabetic()
    }) {
        return Ok(Some(char_range(a, b, step)));
    }
    parse_sequence(expr)
}

/// `A..B` or `A..B..STEP` (STEP digits, an optional `-` ignored) with A and B `valid`.
fn range_parts(expr: &str, valid: impl Fn(&str) -> bool) -> Option<(&str, &str, Option<&str>)> {
    let parts: Vec<&str> = expr.split("..").collect();
    let (a, b, step) = match parts[..] {
        [a, b] => (a, b, None),
        [a, b, s] => (a, b, Some(s.strip_prefix('-').unwrap_or(s))),
        _ => return None,
    };
    let step_ok = step.is_none_or(|s| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()));
    (valid(a) && valid(b) && step_ok).then_some((a, b, step))
}

/// The step as braceexpand reads it: absent or 0 is 1.
fn step_of(step: Option<&str>) -> Result<u128, String> {
    let s = step.map_or(Ok(1), |s| {
        s.parse::<u128>()
            .map_err(|_| format!("range step '{s}' is too large"))
    })?;
    Ok(s.max(1))
}

fn int_range(a: &str, b: &str, step: Option<&str>) -> Result<Vec<String>, String> {
    let padded = [a, b]
        .iter()
        .any(|s| *s != "0" && *s != "-0" && (s.starts_with('0') || s.starts_with("-0")));
    let width = if padded { a.len().max(b.len()) } else { 0 };
    let parse = |s: &str| {
        s.parse::<i128>()
            .map_err(|_| format!("range bound '{s}' is too large"))
    };
    let (start, end, step) = (parse(a)?, parse(b)?, step_of(step)?);
    let count = start.abs_diff(end) / step + 1;
    if count > MAX_NAMES as u128 {
        return Err(format!(
            "{{{a}..{b}}} expands to more than {MAX_NAMES} names"
        ));
    }
    let dir: i128 = if start < end { 1 } else { -1 };
    Ok((0..count as i128)
        .map(|i| format!("{:0width$}", start + dir * i * step as i128))
        .collect())
}

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn char_range(a: &str, b: &str, step: Option<&str>) -> Vec<String> {
    let at = |s: &str| {
        ALPHABET
            .iter()
            .position(|&c| c == s.as_bytes()[0])
            .unwrap_or(0)
    };
    let (start, end) = (at(a), at(b));
    // A step past the alphabet's length gives the first letter only, as a slice would.
    let step = step_of(step)
        .unwrap_or(u128::MAX)
        .min(ALPHABET.len() as u128) as usize;
    let indices: Vec<usize> = if start < end {
        (start..=end).step_by(step).collect()
    } else {
        (end..=start).rev().step_by(step).collect()
    };
    indices
        .into_iter()
        .map(|i| (ALPHABET[i] as char).to_string())
        .collect()
}

/// A comma list at the top level of `seq`; `None` when there is no comma (or braces do not balance).
fn parse_sequence(seq: &str) -> Result<Option<Vec<String>>, String> {
    let b = seq.as_bytes();
    let (mut start, mut pos, mut depth) = (0usize, 0usize, 0i64);
    let mut parts = Vec::new();
    while pos < b.len() {
        match b[pos] {
            b'\\' => {
                pos += 2;
                continue;
            }
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&seq[start..pos]);
                start = pos + 1;
            }
            _ => {}
        }
        pos += 1;
    }
    if depth != 0 || parts.is_empty() {
        return Ok(None);
    }
    parts.push(&seq[start..]);
    let mut out = Vec::new();
    for part in parts {
        for s in parse_pattern(part)? {
            push_capped(&mut out, s)?;
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(p: &str) -> Vec<String> {
        expand(p).unwrap()
    }

    /// The examples of braceexpand's own documentation, and webdataset's shard names.
    #[test]
    fn expands_as_braceexpand_does() {
        assert_eq!(ex("item{1..3}"), ["item1", "item2", "item3"]);
        assert_eq!(ex("{a..c}"), ["a", "b", "c"]);
        assert_eq!(
            ex("index.html{,.backup}"),
            ["index.html", "index.html.backup"]
        );
        assert_eq!(
            ex("python{2.{5..7},3.{2,3}}"),
            [
                "python2.5",
                "python2.6",
                "python2.7",
                "python3.2",
                "python3.3"
            ]
        );
        assert_eq!(ex("{07..10}"), ["07", "08", "09", "10"]);
        assert_eq!(ex("{a..g..2}"), ["a", "c", "e", "g"]);
        assert_eq!(ex("{4..1}"), ["4", "3", "2", "1"]);
        assert_eq!(ex("{2..-1}"), ["2", "1", "0", "-1"]);
        assert_eq!(ex(r"{1\{2,3}"), ["1{2", "3"]);
        assert!(expand("{1{2,3}").unwrap_err().contains("unbalanced"));
        let shards = ex("train-{000000..000127}.tar");
        assert_eq!(
            (shards.len(), shards[0].as_str(), shards[127].as_str()),
            (128, "train-000000.tar", "train-000127.tar")
        );
        assert_eq!(
            ex("a-{0..1}.tar::b-{x,y}.tar"),
            ["a-0.tar", "a-1.tar", "b-x.tar", "b-y.tar"]
        );
    }

    /// Each pattern with what `list(braceexpand.braceexpand(p))` (0.1.7) returns for it.
    #[test]
    fn edge_cases_give_what_braceexpand_gives() {
        let cases: &[(&str, &[&str])] = &[
            ("{x}", &["{x}"]),
            ("{}", &["{}"]),
            ("plain.tar", &["plain.tar"]),
            ("{-05..3..4}", &["-05", "-01", "003"]),
            ("{Y..b}", &["Y", "Z", "a", "b"]),
            ("{a..a}", &["a"]),
            ("{5..5}", &["5"]),
            ("a}b{c", &["a}b{c"]),
            ("{a,}x", &["ax", "x"]),
            (r"a\,b", &["a,b"]),
            ("{a..z..99}", &["a"]),
            ("{-0..2}", &["0", "1", "2"]),
            ("{0..-02}", &["000", "-01", "-02"]),
            ("{1..3..-1}", &["1", "2", "3"]),
            ("{z..a..10}", &["z", "p", "f"]),
            ("{,}", &["", ""]),
            ("{a,{b,c}d}", &["a", "bd", "cd"]),
            ("x{1..2}{a,b}y", &["x1ay", "x1by", "x2ay", "x2by"]),
            ("{000..2}", &["000", "001", "002"]),
            ("{A..z..13}", &["A", "N", "a", "n"]),
            ("{9..08}", &["09", "08"]),
        ];
        for (p, want) in cases {
            assert_eq!(ex(p), *want, "{p}");
        }
        assert_eq!(ex("{0..10..0}").len(), 11);
        let down = ex("{c..A}");
        assert_eq!(
            (down.len(), &down[..4], down[28].as_str()),
            (29, &["c", "b", "a", "Z"].map(String::from)[..], "A")
        );
        assert_eq!(ex("{1..010}")[..2], ["001", "002"]);
    }

    #[test]
    fn expansions_too_large_are_refused_not_allocated() {
        assert!(expand("{0..99999999999}")
            .unwrap_err()
            .contains("more than"));
        assert!(expand("{0..999}{0..999}{0..9}")
            .unwrap_err()
            .contains("more than"));
        assert!(expand("{0..99999999999999999999999999999999999999999}").is_err());
        assert!(expand("{a..z..99999999999999999999999999999999999999999}").is_ok());
    }
}
