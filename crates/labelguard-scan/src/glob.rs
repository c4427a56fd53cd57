//! A small glob matcher for include/exclude filters and mask patterns.
//!
//! Paths are matched relative to the scanned root with `/` separators. `*` matches within one
//! path component, `**` across components, `?` one character, `[a-z]` / `[!0-9]` a class, and
//! `{a,b}` alternatives. As in `.gitignore`, a pattern without `/` matches the file name at
//! any depth (`*.png`), while one with `/` matches the whole relative path (`gtFine/**/*.png`).
//! Matching is on Unicode scalar values of the (lossily decoded) path.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    text: String,
    alternatives: Vec<Vec<char>>,
    basename_only: bool,
}

impl Glob {
    pub fn new(pattern: &str) -> Result<Glob, String> {
        if pattern.is_empty() {
            return Err("empty glob pattern".into());
        }
        let alternatives = expand_braces(pattern)?;
        for alt in &alternatives {
            let mut depth = 0i32;
            for c in alt.chars() {
                match c {
                    '[' => depth += 1,
                    ']' if depth > 0 => depth -= 1,
                    _ => {}
                }
            }
            if depth != 0 {
                return Err(format!("glob '{pattern}': unclosed '['"));
            }
        }
        let pattern_trimmed = pattern.trim_start_matches("./");
        Ok(Glob {
            text: pattern.to_string(),
            basename_only: !pattern_trimmed.contains('/'),
            alternatives: alternatives
                .iter()
                .map(|a| a.trim_start_matches("./").chars().collect())
                .collect(),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `rel` (a `/`-separated path relative to the root) matches.
    pub fn matches(&self, rel: &str) -> bool {
        let subject = if self.basename_only {
            rel.rsplit('/').next().unwrap_or(rel)
        } else {
            rel
        };
        let s: Vec<char> = subject.chars().collect();
        self.alternatives.iter().any(|p| match_here(p, &s))
    }

    /// The literal directory prefix before the first wildcard (`gtFine/train` for
    /// `gtFine/train/**/*.png`): the `{subdir}` of an image template is relative to it.
    pub fn literal_prefix(&self) -> String {
        let alt: String = self.alternatives[0].iter().collect();
        let mut prefix = Vec::new();
        for comp in alt.split('/') {
            if comp.contains(['*', '?', '[', '{']) {
                break;
            }
            prefix.push(comp);
        }
        // The last literal component is a file name unless the pattern continues.
        if prefix.len() == alt.split('/').count() {
            prefix.pop();
        }
        prefix.join("/")
    }
}

fn expand_braces(p: &str) -> Result<Vec<String>, String> {
    let Some(open) = p.find('{') else {
        return Ok(vec![p.to_string()]);
    };
    let mut depth = 0;
    let mut close = None;
    for (i, c) in p[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close.ok_or_else(|| format!("glob '{p}': unclosed '{{'"))?;
    let inner = &p[open + 1..close];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    let mut out = Vec::new();
    for part in parts {
        for rest in expand_braces(&format!("{}{}{}", &p[..open], part, &p[close + 1..]))? {
            out.push(rest);
        }
    }
    Ok(out)
}

fn match_here(p: &[char], s: &[char]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some('*') if p.get(1) == Some(&'*') => {
            // `**/` matches zero or more whole components; a bare `**` anything.
            let rest = if p.get(2) == Some(&'/') {
                &p[3..]
            } else {
                &p[2..]
            };
            if match_here(rest, s) {
                return true;
            }
            (0..s.len())
                .any(|i| (s[i] == '/' || p.get(2) != Some(&'/')) && match_here(rest, &s[i + 1..]))
        }
        Some('*') => {
            let rest = &p[1..];
            for i in 0..=s.len() {
                if match_here(rest, &s[i..]) {
                    return true;
                }
                if i < s.len() && s[i] == '/' {
                    break;
                }
            }
            false
        }
        Some('?') => !s.is_empty() && s[0] != '/' && match_here(&p[1..], &s[1..]),
        Some('[') => {
            let Some(end) = p.iter().skip(1).position(|&c| c == ']').map(|e| e + 1) else {
                return false;
            };
            if s.is_empty() || s[0] == '/' {
                return false;
            }
            let class = &p[1..end];
            let (negate, class) = match class.first() {
                Some('!') | Some('^') => (true, &class[1..]),
                _ => (false, class),
            };
            let mut hit = false;
            let mut i = 0;
            while i < class.len() {
                if i + 2 < class.len() && class[i + 1] == '-' {
                    hit |= class[i] <= s[0] && s[0] <= class[i + 2];
                    i += 3;
                } else {
                    hit |= class[i] == s[0];
                    i += 1;
                }
            }
            hit != negate && match_here(&p[end + 1..], &s[1..])
        }
        Some(&c) => !s.is_empty() && s[0] == c && match_here(&p[1..], &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, s: &str) -> bool {
        Glob::new(p).unwrap().matches(s)
    }

    #[test]
    fn globs_match_like_gitignore() {
        assert!(m("*.png", "a/b/c.png"));
        assert!(!m("*.png", "a/b/c.jpg"));
        assert!(m("gtFine/**/*.png", "gtFine/train/aachen/x.png"));
        assert!(m("gtFine/**/*.png", "gtFine/x.png"));
        assert!(!m("gtFine/*.png", "gtFine/train/x.png"));
        assert!(m("**/val/**", "gtFine/val/a/x.png"));
        assert!(m("masks/img_??.png", "masks/img_01.png"));
        assert!(!m("masks/img_??.png", "masks/img_1.png"));
        assert!(m("[!.]*", "x.png"));
        assert!(!m("[!.]*", ".DS_Store"));
        assert!(m("*.{png,tif}", "a.tif"));
        assert!(m("*_label[0-9].png", "a_label7.png"));
        assert!(Glob::new("[abc").is_err());
        assert!(Glob::new("{a,b").is_err());
    }

    #[test]
    fn literal_prefix_stops_at_the_first_wildcard() {
        assert_eq!(
            Glob::new("gtFine/**/*.png").unwrap().literal_prefix(),
            "gtFine"
        );
        assert_eq!(Glob::new("a/b/*.png").unwrap().literal_prefix(), "a/b");
        assert_eq!(Glob::new("a/b/c.png").unwrap().literal_prefix(), "a/b");
        assert_eq!(Glob::new("*.png").unwrap().literal_prefix(), "");
    }
}
