//! The layouts asked in order ([`LAYOUTS`], declared in `layout/mod.rs`: a new layout is its
//! own file and one line there). Everything that names the layouts comes from that list: a
//! kind's name and aliases are its layout's ([`Layout::kind`], [`Layout::aliases`]), and so are
//! `--layout`'s parsing and its error ([`requested`]) and `scan --help`'s list
//! ([`layouts_help`]); the lists written out elsewhere (the JSON schema's enum, README's list)
//! are held to it by a test that `make docs` (`UPDATE_DOCS=1`) rewrites them with, and the
//! user guide must name every alias.

use super::declare::{At, Layout, Scope};
use super::{files, LAYOUTS};
use crate::config::ConfigError;
use crate::layout_kind::LayoutKind;
use labelguard_formats::walk::Entry;

/// The names `--layout` takes: `auto`, then every layout's, in order of precedence.
pub fn layout_names() -> Vec<&'static str> {
    std::iter::once(LayoutKind::AUTO)
        .chain(LAYOUTS.iter().map(|l| l.kind()))
        .map(LayoutKind::as_str)
        .collect()
}

/// The layout a requested kind names (`--layout`, a config's `layout =`, a dataset's own):
/// `auto`, or the kind of the layout with that name or alias.
pub fn requested(kind: LayoutKind) -> Result<LayoutKind, ConfigError> {
    if kind == LayoutKind::AUTO {
        return Ok(kind);
    }
    let name = kind.as_str();
    LAYOUTS
        .iter()
        .find(|l| l.kind() == kind || l.aliases().contains(&name))
        .map(|l| l.kind())
        .ok_or_else(|| {
            ConfigError::Invalid(format!(
                "unknown layout '{name}' (known: {})",
                layout_names().join(", ")
            ))
        })
}

/// The layout of a kind; `auto` (a dataset whose layout was not detected) reads its files as
/// loose files.
pub(crate) fn layout_of(kind: LayoutKind) -> &'static dyn Layout {
    LAYOUTS
        .iter()
        .copied()
        .find(|l| l.kind() == kind)
        .unwrap_or(&files::Files)
}

/// The first layout of `scope` (any, when `None`) that claims anything among `files`.
pub(crate) fn first_claim(files: &[&Entry], at: &At<'_>, scope: Option<Scope>) -> LayoutKind {
    LAYOUTS
        .iter()
        .filter(|l| scope.is_none_or(|s| l.scope() == s))
        .find(|l| !l.claim(files, at).is_empty())
        .map_or(files::KIND, |l| l.kind())
}

/// `scan --help`'s list of layouts: one line each, its name and the files that mark it.
pub fn layouts_help() -> String {
    LAYOUTS
        .iter()
        .map(|l| format!("  {:<12} {}\n", l.kind().as_str(), l.help()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Each layout once, with a one-line help; every name and alias spelled as a request is
    /// (lower case, no `-` or `_`) and naming one layout; `auto` reads loose files.
    #[test]
    fn each_layout_is_named_once() {
        let mut seen: Vec<&str> = vec![LayoutKind::AUTO.as_str()];
        for l in LAYOUTS {
            assert!(!l.help().is_empty() && !l.help().contains('\n'));
            for s in std::iter::once(l.kind().as_str()).chain(l.aliases().iter().copied()) {
                assert!(!seen.contains(&s), "'{s}' names two layouts");
                seen.push(s);
                assert_eq!(
                    LayoutKind::requested(s).as_str(),
                    s,
                    "'{s}' is not normalised"
                );
            }
            assert_eq!(layout_of(l.kind()).help(), l.help());
        }
        assert_eq!(layout_of(LayoutKind::AUTO).kind(), files::KIND);
    }

    /// A name or alias, in any case, with or without `-` and `_`, is its layout; an unknown one
    /// lists them all.
    #[test]
    fn names_and_aliases_are_their_layout() {
        let asked = |s: &str| requested(LayoutKind::requested(s)).map(LayoutKind::as_str);
        for l in LAYOUTS {
            for s in std::iter::once(l.kind().as_str()).chain(l.aliases().iter().copied()) {
                assert_eq!(asked(s).unwrap(), l.kind().as_str());
                assert_eq!(asked(&s.to_uppercase()).unwrap(), l.kind().as_str());
            }
        }
        assert_eq!(asked("Image_Folder").unwrap(), "imagefolder");
        assert_eq!(asked("pascal-voc").unwrap(), "voc");
        assert_eq!(asked("AUTO").unwrap(), "auto");
        assert_eq!(
            asked("darknet").unwrap_err().to_string(),
            format!(
                "unknown layout 'darknet' (known: {})",
                layout_names().join(", ")
            )
        );
    }

    /// The lists of layouts written out elsewhere are this one, in its order: the JSON schema's
    /// enum and README's list (`make docs`, `UPDATE_DOCS=1`, rewrites both), `scan --help`'s;
    /// and the user guide names every alias.
    #[test]
    fn the_other_lists_of_layouts_are_this_one() {
        let names = layout_names();
        let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        pinned(
            "crates/labelguard-scan/schema/scan-report.schema.json",
            "{",
            "        \"layouts\": ",
            &format!(
                "{{\"type\": \"array\", \"items\": {{\"enum\": [{}]}}}},",
                quoted.join(", ")
            ),
        );
        pinned(
            "README.md",
            "Layouts, recognised by default",
            "- ",
            &names[1..].join(", "),
        );

        let help = layouts_help();
        let first_words: Vec<&str> = help
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(first_words, names[1..]);

        let guide = include_str!("../../../../docs/guide/layout-detection.md");
        for a in LAYOUTS.iter().flat_map(|l| l.aliases()) {
            assert!(
                guide.contains(&format!("`{a}`")),
                "docs/guide/layout-detection.md does not name the alias '{a}'"
            );
        }
    }

    /// The first line of `file` (from the workspace root) that starts with `prefix`, after the
    /// first that starts with `after`, goes on with `rest`; with `UPDATE_DOCS` set, it is
    /// rewritten so.
    fn pinned(file: &str, after: &str, prefix: &str, rest: &str) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with(after))
            .and_then(|a| (a..lines.len()).find(|&i| lines[i].starts_with(prefix)))
            .unwrap_or_else(|| panic!("{file}: no line {prefix:?} after {after:?}"));
        let want = format!("{prefix}{rest}\n");
        if lines[at] != want && std::env::var_os("UPDATE_DOCS").is_some() {
            lines[at] = &want;
            std::fs::write(&path, lines.concat()).unwrap();
            return;
        }
        assert_eq!(
            lines[at], want,
            "{file}'s list of layouts is stale: run `make docs`"
        );
    }
}
