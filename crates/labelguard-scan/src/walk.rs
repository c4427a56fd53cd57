//! Directory walking that never hangs: symlinks to directories are followed once, loops are
//! reported instead of followed, FIFOs and devices are reported without being opened, and
//! names that are not UTF-8 are kept byte-exact (and flagged).

use crate::checks::lg601_unreadable_file::{io_problem, special_file_problem};
use crate::glob::Glob;
use crate::problem::problem;
use labelguard_core::rules::LG601;
use labelguard_core::Finding;
use std::collections::HashSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One path under the root.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The path to open (the root as given, joined with the relative path).
    pub path: PathBuf,
    /// Relative to the root, `/`-separated, decoded lossily for display and globs.
    pub rel: String,
    /// The exact bytes of the relative path: the shard key.
    pub rel_bytes: Vec<u8>,
    pub non_utf8: bool,
    pub kind: EntryKind,
}

#[derive(Clone, Debug)]
pub enum EntryKind {
    File { len: u64 },
    Problem(Finding),
}

/// Directories that hold version-control data, never labels.
const SKIPPED_DIRS: &[&str] = &[".git", ".hg", ".svn"];
const MAX_DEPTH: usize = 256;

fn join_rel(parent: &str, name: &OsStr) -> String {
    let n = name.to_string_lossy();
    if parent.is_empty() {
        n.into_owned()
    } else {
        format!("{parent}/{n}")
    }
}

fn join_bytes(parent: &[u8], name: &OsStr) -> Vec<u8> {
    let mut v = parent.to_vec();
    if !v.is_empty() {
        v.push(b'/');
    }
    v.extend_from_slice(name.as_bytes());
    v
}

/// Walks `root` depth-first in byte order of the names, which makes the order (and so the
/// report) the same on every run and every machine.
pub fn walk(root: &Path, include: &[Glob], exclude: &[Glob]) -> Vec<Entry> {
    let mut out = Vec::new();
    let meta = match std::fs::metadata(root) {
        Ok(m) => m,
        Err(e) => {
            out.push(problem_entry(
                root,
                "",
                b"",
                io_problem("cannot read the path", &e),
            ));
            return out;
        }
    };
    let mut visited = HashSet::new();
    let mut ancestors = Vec::new();
    visited.insert((meta.dev(), meta.ino()));
    ancestors.push(((meta.dev(), meta.ino()), String::new()));
    let filter = Filter { include, exclude };
    walk_dir(
        root,
        "",
        b"",
        &filter,
        &mut visited,
        &mut ancestors,
        &mut out,
    );
    out
}

struct Filter<'a> {
    include: &'a [Glob],
    exclude: &'a [Glob],
}

impl Filter<'_> {
    fn keeps_file(&self, rel: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|g| g.matches(rel)))
            && !self.exclude.iter().any(|g| g.matches(rel))
    }
    fn prunes_dir(&self, rel: &str) -> bool {
        self.exclude
            .iter()
            .any(|g| g.matches(rel) || g.matches(&format!("{rel}/")))
    }
}

fn problem_entry(path: &Path, rel: &str, rel_bytes: &[u8], p: Finding) -> Entry {
    Entry {
        path: path.to_path_buf(),
        rel: rel.to_string(),
        rel_bytes: rel_bytes.to_vec(),
        non_utf8: std::str::from_utf8(rel_bytes).is_err(),
        kind: EntryKind::Problem(p),
    }
}

#[allow(clippy::too_many_arguments)]
fn walk_dir(
    dir: &Path,
    rel: &str,
    rel_bytes: &[u8],
    filter: &Filter<'_>,
    visited: &mut HashSet<(u64, u64)>,
    ancestors: &mut Vec<((u64, u64), String)>,
    out: &mut Vec<Entry>,
) {
    let read = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(e) => {
            out.push(problem_entry(
                dir,
                rel,
                rel_bytes,
                io_problem("cannot list the directory", &e),
            ));
            return;
        }
    };
    let mut children: Vec<(std::ffi::OsString, std::io::Result<std::fs::FileType>)> = Vec::new();
    for entry in read {
        match entry {
            Ok(e) => children.push((e.file_name(), e.file_type())),
            Err(e) => {
                out.push(problem_entry(
                    dir,
                    rel,
                    rel_bytes,
                    io_problem("cannot list the directory", &e),
                ));
                return;
            }
        }
    }
    children.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (name, file_type) in children {
        let path = dir.join(&name);
        let child_rel = join_rel(rel, &name);
        let child_bytes = join_bytes(rel_bytes, &name);
        let file_type = match file_type {
            Ok(t) => t,
            Err(e) => {
                out.push(problem_entry(
                    &path,
                    &child_rel,
                    &child_bytes,
                    io_problem("cannot stat", &e),
                ));
                continue;
            }
        };
        // Follow symlinks: datasets are often assembled from links. The target's metadata
        // says what it is; a loop or a dangling link is a finding.
        let meta = if file_type.is_symlink() {
            match std::fs::metadata(&path) {
                Ok(m) => m,
                Err(e) => {
                    if filter.keeps_file(&child_rel) {
                        let what = if e.raw_os_error() == Some(libc::ELOOP) {
                            "symlink loop"
                        } else {
                            "cannot follow the symlink"
                        };
                        out.push(problem_entry(
                            &path,
                            &child_rel,
                            &child_bytes,
                            io_problem(what, &e),
                        ));
                    }
                    continue;
                }
            }
        } else {
            match std::fs::symlink_metadata(&path) {
                Ok(m) => m,
                Err(e) => {
                    out.push(problem_entry(
                        &path,
                        &child_rel,
                        &child_bytes,
                        io_problem("cannot stat", &e),
                    ));
                    continue;
                }
            }
        };
        if meta.is_dir() {
            if SKIPPED_DIRS.iter().any(|s| name.as_bytes() == s.as_bytes())
                || filter.prunes_dir(&child_rel)
            {
                continue;
            }
            let id = (meta.dev(), meta.ino());
            if let Some((_, ancestor)) = ancestors.iter().find(|(a, _)| *a == id) {
                let target = if ancestor.is_empty() {
                    "the scan root".to_string()
                } else {
                    format!("'{ancestor}'")
                };
                out.push(problem_entry(
                    &path,
                    &child_rel,
                    &child_bytes,
                    problem(&LG601, format!("directory symlink loop: this link points back to {target}; not followed"))
                        .hint("os.walk(followlinks=True) and glob('**', recursive=True) recurse through such a loop until they fail")
                        .fix("remove the link, or exclude it with --exclude"),
                ));
                continue;
            }
            if !visited.insert(id) {
                // The same directory reached through another link: scanned once.
                continue;
            }
            if ancestors.len() >= MAX_DEPTH {
                out.push(problem_entry(
                    &path,
                    &child_rel,
                    &child_bytes,
                    problem(
                        &LG601,
                        format!("directory nesting deeper than {MAX_DEPTH} levels; not followed"),
                    ),
                ));
                continue;
            }
            ancestors.push((id, child_rel.clone()));
            walk_dir(
                &path,
                &child_rel,
                &child_bytes,
                filter,
                visited,
                ancestors,
                out,
            );
            ancestors.pop();
            continue;
        }
        if !filter.keeps_file(&child_rel) {
            continue;
        }
        let non_utf8 = std::str::from_utf8(&child_bytes).is_err();
        if meta.is_file() {
            out.push(Entry {
                path,
                rel: child_rel,
                rel_bytes: child_bytes,
                non_utf8,
                kind: EntryKind::File { len: meta.len() },
            });
        } else {
            out.push(problem_entry(
                &path,
                &child_rel,
                &child_bytes,
                special_file_problem(&meta.file_type()),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn loops_fifos_and_dangling_links_are_problems_not_hangs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/m.png"), b"x").unwrap();
        symlink(root.join("a"), root.join("a/b/up")).unwrap();
        symlink(root.join("missing"), root.join("a/dangling.png")).unwrap();
        symlink("self.png", root.join("a/self.png")).unwrap();
        let fifo = root.join("a/pipe.png");
        let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let name = OsStr::from_bytes(b"bad\xffname.png");
        std::fs::write(root.join("a").join(name), b"y").unwrap();
        let entries = walk(root, &[], &[]);
        let files: Vec<&str> = entries
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::File { .. }))
            .map(|e| e.rel.as_str())
            .collect();
        assert_eq!(files, vec!["a/b/m.png", "a/bad\u{fffd}name.png"]);
        assert!(entries
            .iter()
            .any(|e| e.non_utf8 && e.rel_bytes.ends_with(b"bad\xffname.png")));
        let problems: Vec<(&str, &str)> = entries
            .iter()
            .filter_map(|e| match &e.kind {
                EntryKind::Problem(p) => Some((e.rel.as_str(), p.message.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems
            .iter()
            .any(|(r, m)| *r == "a/b/up" && m.contains("loop")));
        assert!(problems
            .iter()
            .any(|(r, m)| *r == "a/dangling.png" && m.contains("symlink")));
        assert!(problems
            .iter()
            .any(|(r, m)| *r == "a/self.png" && m.contains("loop")));
        assert!(problems
            .iter()
            .any(|(r, m)| *r == "a/pipe.png" && m.contains("FIFO")));
    }

    #[test]
    fn filters_prune_and_select() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in ["x/a.png", "x/b.jpg", "skip/c.png", ".git/d.png"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"1").unwrap();
        }
        let inc = [Glob::new("*.png").unwrap()];
        let exc = [Glob::new("skip").unwrap()];
        let rels: Vec<String> = walk(root, &inc, &exc).into_iter().map(|e| e.rel).collect();
        assert_eq!(rels, vec!["x/a.png"]);
    }

    #[test]
    fn permission_errors_explain_themselves() {
        let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let p = io_problem("cannot open", &e);
        assert_eq!(p.code, "LG601");
        assert!(p.fix.contains("chmod"));
    }
}
