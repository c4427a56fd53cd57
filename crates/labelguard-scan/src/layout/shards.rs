//! Tar shards (WebDataset) as entries: every `.tar` the walk finds, or that is named as a root,
//! stands for its regular members, read in place ([`labelguard_formats::read::tar`] indexes the headers;
//! each member is a [`Source::Slice`] of the shard). A member's relative path is where
//! extracting the shard in its own folder would put it (`data/train-000001.tar`'s
//! `000123.seg.png` is `data/000123.seg.png`), so that the layouts, the splits and the
//! datasets of a sharded tree are those of the same tree extracted; findings name it
//! `<shard as shown>:<member>`; `--shard K/N` hashes the shard's own path, so that one shard
//! file lands in one part. The shard's
//! problems (LG617) are entries of their own, on the shard (or on the member they are about).
//!
//! Compressed shards (`.tar.gz`, `.tgz`) are not read yet: each is one LG617 finding saying so.

use super::paths::display;
use super::root::{ListedRoot, Root};
use crate::checks::lg601_unreadable_file::io_problem;
use crate::checks::lg602_corrupt_file;
use crate::checks::lg617_corrupt_tar_shard as lg617;
use crate::config::ConfigError;
use labelguard_core::Finding;
use labelguard_formats::read::tar::{index_file, TarProblem};
use labelguard_formats::source::Source;
use labelguard_formats::walk::{Entry, EntryKind};
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// What a file name says about it as a shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardName {
    /// `.tar`: read in place.
    Tar,
    /// `.tar.gz`, `.tgz`: not read yet.
    Compressed,
}

/// Whether `name` is a tar shard, by its extension (any case).
pub fn shard_name(name: &[u8]) -> Option<ShardName> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(b".tar") {
        Some(ShardName::Tar)
    } else if lower.ends_with(b".tar.gz") || lower.ends_with(b".tgz") {
        Some(ShardName::Compressed)
    } else {
        None
    }
}

/// Replaces every tar shard among the walked `entries` of `root` by its members and problems,
/// in the walk's order (the shards are indexed in parallel).
pub fn expand(root: &Path, entries: Vec<Entry>) -> Vec<Entry> {
    if !entries
        .iter()
        .any(|e| matches!(e.kind, EntryKind::File) && shard_name(&e.rel_bytes).is_some())
    {
        return entries;
    }
    entries
        .into_par_iter()
        .map(|e| match (&e.kind, e.path()) {
            (EntryKind::File, Some(file)) if shard_name(&e.rel_bytes).is_some() => {
                let file = file.to_path_buf();
                shard_entries(&file, &e.rel_bytes, &display(root, &e.rel))
            }
            _ => vec![e],
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect()
}

/// The entries of the shard `file`: its regular members (relative path: the shard's folder
/// joined with the member's name; shown as `shown:member`) and its problems. `rel` is the
/// shard's own relative path: its shard key.
pub fn shard_entries(file: &Path, rel: &[u8], shown: &str) -> Vec<Entry> {
    let problem_at = |rel_bytes: Vec<u8>, shown: String, finding| {
        let mut e = problem_entry(file, &rel_bytes, &shown, finding);
        e.shard_key = Some(rel.to_vec());
        e
    };
    if shard_name(rel) == Some(ShardName::Compressed) {
        return vec![problem_at(
            rel.to_vec(),
            shown.to_string(),
            lg617::compressed(),
        )];
    }
    let index = match index_file(file) {
        Ok(ix) => ix,
        Err(e) => {
            let p = TarProblem::Io {
                at: 0,
                error: e.to_string(),
            };
            return vec![problem_at(
                rel.to_vec(),
                shown.to_string(),
                lg617::finding(&p),
            )];
        }
    };
    let shard = Arc::new(file.to_path_buf());
    // Members sit where extracting the shard in its own folder would put them.
    let dir = rel
        .iter()
        .rposition(|&c| c == b'/')
        .map_or(&rel[..0], |i| &rel[..=i]);
    let member_rel = |name: &[u8]| [dir, name].concat();
    let mut out: Vec<Entry> = index
        .members
        .iter()
        .map(|m| {
            let name = m.name_lossy();
            let shown = format!("{shown}:{name}");
            let source = Source::Slice {
                file: shard.clone(),
                name: Arc::from(shown.as_str()),
                offset: m.offset,
                len: m.len,
            };
            Entry::listed(source, member_rel(&m.name), shown, rel.to_vec())
        })
        .collect();
    // Each problem needs a key of its own (items are told apart by it): the member it is
    // about, else the shard, numbered after the first.
    for (n, p) in index.problems.iter().enumerate() {
        let member = match p {
            TarProblem::UnsafeName { name }
            | TarProblem::TruncatedData { name, .. }
            | TarProblem::ClaimsMore { name, .. } => Some(name),
            _ => None,
        };
        let (key, shown) = match member {
            Some(name) => (member_rel(name.as_bytes()), format!("{shown}:{name}")),
            None if n == 0 => (rel.to_vec(), shown.to_string()),
            None => (
                [rel, format!("#{n}").as_bytes()].concat(),
                shown.to_string(),
            ),
        };
        out.push(problem_at(key, shown, lg617::finding(p)));
    }
    out
}

/// The root a command-line argument names: a brace pattern (`shards/train-{000000..000127}.tar`,
/// expanded as WebDataset expands it, [`labelguard_formats::brace`]) that names no file itself is one listed
/// root of the files it names, each relative to the pattern's fixed directory (so that its
/// entries are those of a scan of that directory); anything else is a path. A named file that
/// does not exist is a finding (LG601); a pattern that names none, or does not parse, is an
/// error.
pub fn root_of_argument(arg: &Path) -> Result<Root, ConfigError> {
    let text = arg.to_string_lossy();
    if !arg.exists() && labelguard_formats::brace::is_pattern(&text) {
        return pattern_root(&text);
    }
    Ok(Root::Path(arg.to_path_buf()))
}

/// The listed root of a tar shard named as a root (a regular file named `.tar`, `.tar.gz`,
/// `.tgz`); `None` for any other path.
pub fn shard_file_root(file: &Path) -> Option<Root> {
    let name = file.file_name()?.as_encoded_bytes();
    shard_name(name)?;
    if !std::fs::metadata(file).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let shown = file.to_string_lossy();
    Some(Root::Listed(ListedRoot {
        display: shown.clone().into_owned(),
        entries: shard_entries(file, name, &shown),
    }))
}

fn pattern_root(pattern: &str) -> Result<Root, ConfigError> {
    let names = labelguard_formats::brace::expand(pattern)
        .map_err(|e| ConfigError::Invalid(format!("{pattern}: {e}")))?;
    // The directory before the first brace: what the names are relative to.
    let base = pattern[..pattern.find('{').unwrap_or(0)]
        .rfind('/')
        .map_or("", |i| &pattern[..=i]);
    if !names.iter().any(|n| Path::new(n).exists()) {
        return Err(ConfigError::Invalid(format!(
            "{pattern}: none of the {} files it names exists",
            names.len()
        )));
    }
    let entries = names
        .par_iter()
        .map(|name| {
            let file = Path::new(name);
            let rel = name.strip_prefix(base).unwrap_or(name).as_bytes();
            match std::fs::metadata(file) {
                Ok(m) if m.is_file() && shard_name(rel).is_some() => shard_entries(file, rel, name),
                Ok(m) if m.is_file() => vec![Entry::listed(
                    Source::File(file.to_path_buf()),
                    rel.to_vec(),
                    name.clone(),
                    rel.to_vec(),
                )],
                Ok(_) => vec![problem_entry(
                    file,
                    rel,
                    name,
                    lg602_corrupt_file::directory(),
                )],
                Err(e) => vec![problem_entry(
                    file,
                    rel,
                    name,
                    io_problem("a file the pattern names cannot be opened", &e),
                )],
            }
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    Ok(Root::Listed(ListedRoot {
        display: pattern.to_string(),
        entries,
    }))
}

/// An entry of kind problem for `file`, at `rel`, shown as `shown`.
fn problem_entry(file: &Path, rel: &[u8], shown: &str, finding: Finding) -> Entry {
    let mut e = Entry::listed(
        Source::File(file.to_path_buf()),
        rel.to_vec(),
        shown.to_string(),
        rel.to_vec(),
    );
    e.kind = EntryKind::Problem(finding);
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use labelguard_formats::fixtures::tar;

    #[test]
    fn shards_are_named_by_their_extension() {
        assert_eq!(shard_name(b"a/train-000001.tar"), Some(ShardName::Tar));
        assert_eq!(shard_name(b"B.TAR"), Some(ShardName::Tar));
        assert_eq!(shard_name(b"c.tar.gz"), Some(ShardName::Compressed));
        assert_eq!(shard_name(b"c.tgz"), Some(ShardName::Compressed));
        assert_eq!(shard_name(b"tar"), None);
        assert_eq!(shard_name(b"x.tar.zst"), None);
    }

    #[test]
    fn members_become_slices_named_after_their_shard_and_problems_entries_of_their_own() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.tar");
        let mut bytes = tar(&[
            ("000001.seg.png", b"png"),
            ("../up.png", b"x"),
            ("000001.cls", b"3"),
        ]);
        bytes.extend(b"trailing garbage");
        std::fs::write(&file, &bytes).unwrap();
        let entries = shard_entries(&file, b"sub/s.tar", "data/sub/s.tar");
        let files: Vec<(&str, Option<&str>, &[u8])> = entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::File))
            .map(|e| {
                (
                    e.rel.as_str(),
                    e.shown.as_deref(),
                    e.shard_key.as_deref().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            files,
            [
                (
                    "sub/000001.seg.png",
                    Some("data/sub/s.tar:000001.seg.png"),
                    &b"sub/s.tar"[..]
                ),
                (
                    "sub/000001.cls",
                    Some("data/sub/s.tar:000001.cls"),
                    b"sub/s.tar"
                ),
            ]
        );
        let mut buf = Vec::new();
        entries[0].source.read_all(1 << 20, &mut buf).unwrap();
        assert_eq!(buf, b"png");
        let problems: Vec<(&str, &str, String)> = entries
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Problem(f) => Some((
                    e.rel.as_str(),
                    e.shown.as_deref().unwrap(),
                    f.message.clone(),
                )),
                EntryKind::File => None,
            })
            .collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(
            (problems[0].0, problems[0].1),
            ("sub/../up.png", "data/sub/s.tar:../up.png")
        );
        assert!(
            problems[0].2.contains("absolute path or '..'"),
            "{}",
            problems[0].2
        );
        assert_eq!(
            (problems[1].0, problems[1].1),
            ("sub/s.tar#1", "data/sub/s.tar")
        );
        assert!(
            problems[1].2.contains("after the end-of-archive blocks"),
            "{}",
            problems[1].2
        );
    }

    #[test]
    fn a_compressed_or_unreadable_shard_is_one_problem() {
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("s.tar.gz");
        std::fs::write(&gz, b"\x1f\x8b").unwrap();
        for (file, rel) in [
            (gz.as_path(), &b"s.tar.gz"[..]),
            (&dir.path().join("gone.tar"), b"gone.tar"),
        ] {
            let entries = shard_entries(file, rel, "x");
            assert_eq!(entries.len(), 1);
            assert!(
                matches!(&entries[0].kind, EntryKind::Problem(f) if f.code == "LG617"),
                "{:?}",
                entries[0].kind
            );
        }
    }
}
