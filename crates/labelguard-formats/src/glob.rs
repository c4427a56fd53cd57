//! Glob patterns for include/exclude filters and mask patterns, matched by `globset`.
//!
//! Paths are matched relative to the scanned root with `/` separators. `*` matches within one
//! path component, `**` across components, `?` one character, `[a-z]` / `[!0-9]` a class, and
//! `{a,b}` alternatives. As in `.gitignore`, a pattern without `/` matches the file name at
//! any depth (`*.png`), while one with `/` matches the whole relative path (`gtFine/**/*.png`).
//! Matching is on Unicode scalar values of the (lossily decoded) path.

use globset::{GlobBuilder, GlobMatcher};

#[derive(Clone, Debug)]
pub struct Glob {
    text: String,
    matcher: GlobMatcher,
    basename_only: bool,
}

impl PartialEq for Glob {
    fn eq(&self, other: &Glob) -> bool {
        self.text == other.text
    }
}

impl Eq for Glob {}

impl Glob {
    pub fn new(pattern: &str) -> Result<Glob, String> {
        if pattern.is_empty() {
            return Err("empty glob pattern".into());
        }
        let trimmed = pattern.trim_start_matches("./");
        let matcher = GlobBuilder::new(trimmed)
            // `*` and `?` stay inside one path component; `**` crosses them.
            .literal_separator(true)
            // A backslash is a character of the name, not an escape.
            .backslash_escape(false)
            .build()
            .map_err(|e| format!("glob '{pattern}': {}", e.kind()))?
            .compile_matcher();
        Ok(Glob {
            text: pattern.to_string(),
            matcher,
            basename_only: !trimmed.contains('/'),
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
        self.matcher.is_match(subject)
    }

    /// The literal directory prefix before the first wildcard (`gtFine/train` for
    /// `gtFine/train/**/*.png`): the `{subdir}` of an image template is relative to it. With
    /// `{a,b}` alternatives, the prefix of the first one.
    pub fn literal_prefix(&self) -> String {
        let alt = first_alternative(self.text.trim_start_matches("./"));
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

/// The pattern with each `{a,b,...}` group replaced by its first option.
fn first_alternative(p: &str) -> String {
    let mut out = String::new();
    // Depth of the groups we are in, and whether we are past the first option at each.
    let mut skipping: Vec<bool> = Vec::new();
    for c in p.chars() {
        match c {
            '{' => {
                skipping.push(skipping.last().copied().unwrap_or(false));
                continue;
            }
            '}' if !skipping.is_empty() => {
                skipping.pop();
                continue;
            }
            ',' if !skipping.is_empty() => {
                if let Some(s) = skipping.last_mut() {
                    *s = true;
                }
                continue;
            }
            _ => {}
        }
        if !skipping.iter().any(|s| *s) {
            out.push(c);
        }
    }
    out
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
        assert_eq!(Glob::new("a/{b,c}/*.png").unwrap().literal_prefix(), "a/b");
        assert!(m("./masks/*.png", "masks/a.png"));
    }
}
