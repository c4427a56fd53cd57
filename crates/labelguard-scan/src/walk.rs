//! Directory walking that never hangs: symlinks to directories are followed once, loops are
//! reported instead of followed, FIFOs and devices are reported without being opened, and
//! names that are not UTF-8 are kept byte-exact (and flagged).
//!
//! `walkdir` lists, sorts and descends (iteratively: no recursion per level, no open
//! descriptors kept, since a sorted listing is read whole). It runs with `follow_links(false)`
//! and this module follows directory symlinks itself, with a nested walk per link, because
//! walkdir's own following opens each link target with a plain `open(2)` (not `O_DIRECTORY`)
//! for its loop check, which blocks if the target is swapped for a FIFO, and reports a target
//! it cannot open without the link's path. Kept here, as before: the loop check against the
//! ancestors (by device and inode, bind mounts included), the "reached twice through links,
//! scanned once" rule, the depth limit, the filters, and the findings with their messages.

use crate::checks::lg601_unreadable_file::{self as lg601, io_problem, special_file_problem};
use crate::glob::Glob;
use labelguard_core::Finding;
use std::collections::HashSet;
use std::fs::Metadata;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use walkdir::WalkDir;

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
    /// A regular file (or a link to one).
    File,
    Problem(Finding),
}

/// Directories that hold version-control data, never labels.
const SKIPPED_DIRS: &[&str] = &[".git", ".hg", ".svn"];
const MAX_DEPTH: usize = 256;

/// A directory's identity: (device, inode).
type DirId = (u64, u64);

fn dir_id(meta: &Metadata) -> DirId {
    (meta.dev(), meta.ino())
}

/// Walks `root` depth-first in byte order of the names, which makes the order (and so the
/// report) the same on every run and every machine.
pub fn walk(root: &Path, include: &[Glob], exclude: &[Glob]) -> Vec<Entry> {
    let mut walker = Walker {
        filter: Filter { include, exclude },
        visited: HashSet::new(),
        ancestors: Vec::new(),
        out: Vec::new(),
    };
    let meta = match std::fs::metadata(root) {
        Ok(m) => m,
        Err(e) => {
            walker.problem(root, b"", io_problem("cannot read the path", &e));
            return walker.out;
        }
    };
    walker.visited.insert(dir_id(&meta));
    walker.ancestors.push((dir_id(&meta), String::new()));
    if meta.is_dir() {
        walker.walk_tree(root, b"");
    } else {
        // What listing a file, FIFO or device as a directory says (opendir would refuse
        // it with ENOTDIR without opening it).
        let e = std::io::Error::from_raw_os_error(libc::ENOTDIR);
        walker.problem(root, b"", io_problem("cannot list the directory", &e));
    }
    walker.out
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

struct Walker<'a> {
    filter: Filter<'a>,
    /// Every directory entered, so that one reached again through a link is scanned once.
    visited: HashSet<DirId>,
    /// The directories above the current entry (the root first), with their relative paths.
    ancestors: Vec<(DirId, String)>,
    out: Vec<Entry>,
}

/// The relative path of `path`, a path under `top` whose relative path is `top_rel`.
fn rel_bytes_of(top: &Path, top_rel: &[u8], path: &Path) -> Vec<u8> {
    // walkdir's paths are `top` joined with the names below it: a byte prefix, cut without
    // parsing the path's components (which cost a twentieth of a 100,000-file scan).
    let (p, t) = (path.as_os_str().as_bytes(), top.as_os_str().as_bytes());
    let below = match p.strip_prefix(t) {
        Some(rest) if t.ends_with(b"/") || rest.is_empty() || rest[0] == b'/' => {
            rest.strip_prefix(b"/").unwrap_or(rest)
        }
        _ => path
            .strip_prefix(top)
            .unwrap_or(path)
            .as_os_str()
            .as_bytes(),
    };
    let mut v = Vec::with_capacity(top_rel.len() + 1 + below.len());
    v.extend_from_slice(top_rel);
    if !v.is_empty() && !below.is_empty() {
        v.push(b'/');
    }
    v.extend_from_slice(below);
    v
}

/// What a directory entry turned out to be, once its kind has been decided.
enum Step {
    /// Not descended into (a file, a finding, a pruned or already scanned directory).
    Leaf,
    /// A real directory: walkdir descends into it.
    Descend,
    /// A symlink to a directory: walked here, by a nested walk.
    Follow,
}

impl Walker<'_> {
    /// A regular file the filter keeps.
    fn file(&mut self, path: &Path, rel: String, rel_bytes: &[u8]) {
        self.out.push(Entry {
            path: path.to_path_buf(),
            non_utf8: std::str::from_utf8(rel_bytes).is_err(),
            rel,
            rel_bytes: rel_bytes.to_vec(),
            kind: EntryKind::File,
        });
    }

    fn problem(&mut self, path: &Path, rel_bytes: &[u8], p: Finding) {
        self.out.push(Entry {
            path: path.to_path_buf(),
            rel: String::from_utf8_lossy(rel_bytes).into_owned(),
            rel_bytes: rel_bytes.to_vec(),
            non_utf8: std::str::from_utf8(rel_bytes).is_err(),
            kind: EntryKind::Problem(p),
        });
    }

    /// Walks the directory `top` (already checked and on the ancestor stack) whose relative
    /// path is `top_rel`.
    fn walk_tree(&mut self, top: &Path, top_rel: &[u8]) {
        let base = self.ancestors.len();
        let mut it = WalkDir::new(top)
            .min_depth(1)
            .follow_links(false)
            .sort_by(|a, b| a.file_name().as_bytes().cmp(b.file_name().as_bytes()))
            .into_iter();
        // The directory whose listing walkdir reads next: its errors come first (a sorted
        // listing puts them before the names).
        let mut listing: PathBuf = top.to_path_buf();
        while let Some(next) = it.next() {
            let dent = match next {
                Ok(d) => d,
                Err(e) => {
                    let at = e.path().map(Path::to_path_buf);
                    // walkdir's errors here are io errors (no loops: links are followed here).
                    let io = e
                        .into_io_error()
                        .unwrap_or_else(|| std::io::Error::other("directory loop"));
                    match at {
                        Some(p) if p != listing => {
                            // A name in the listing whose type could not be read.
                            let rel = rel_bytes_of(top, top_rel, &p);
                            self.problem(&p, &rel, io_problem("cannot stat", &io));
                        }
                        _ => {
                            // The directory could not be listed (in full): no names from it.
                            let rel = rel_bytes_of(top, top_rel, &listing);
                            let dir = listing.clone();
                            self.problem(&dir, &rel, io_problem("cannot list the directory", &io));
                            it.skip_current_dir();
                        }
                    }
                    continue;
                }
            };
            self.ancestors.truncate(base + dent.depth() - 1);
            let rel_bytes = rel_bytes_of(top, top_rel, dent.path());
            // walkdir has listed it already (it lists before it yields) and descends into it
            // unless told not to.
            let listed_dir = !dent.path_is_symlink() && dent.file_type().is_dir();
            match self.entry(&dent, &rel_bytes) {
                Step::Descend => listing = dent.path().to_path_buf(),
                Step::Follow => self.walk_tree(dent.path(), &rel_bytes),
                Step::Leaf => {
                    if listed_dir {
                        it.skip_current_dir();
                    }
                }
            }
        }
    }

    /// Decides what one listed name is, records it, and says whether to descend.
    fn entry(&mut self, dent: &walkdir::DirEntry, rel_bytes: &[u8]) -> Step {
        let path = dent.path();
        let rel = String::from_utf8_lossy(rel_bytes).into_owned();
        let is_link = dent.path_is_symlink();
        // Follow symlinks: datasets are often assembled from links. The target's metadata
        // says what it is; a loop or a dangling link is a finding.
        let meta = if is_link {
            match std::fs::metadata(path) {
                Ok(m) => m,
                Err(e) => {
                    if self.filter.keeps_file(&rel) {
                        let what = if e.raw_os_error() == Some(libc::ELOOP) {
                            "symlink loop"
                        } else {
                            "cannot follow the symlink"
                        };
                        self.problem(path, rel_bytes, io_problem(what, &e));
                    }
                    return Step::Leaf;
                }
            }
        } else if dent.file_type().is_file() {
            // A regular file, as the directory listing says (walkdir stats the entry itself
            // when the file system does not say): no stat needed. A scan of 100,000 label
            // files spent a third of its time in these stats.
            if self.filter.keeps_file(&rel) {
                self.file(path, rel, rel_bytes);
            }
            return Step::Leaf;
        } else {
            match std::fs::symlink_metadata(path) {
                Ok(m) => m,
                Err(e) => {
                    self.problem(path, rel_bytes, io_problem("cannot stat", &e));
                    return Step::Leaf;
                }
            }
        };
        if meta.is_dir() {
            return self.directory(dent, &meta, rel, rel_bytes);
        }
        if !self.filter.keeps_file(&rel) {
            return Step::Leaf;
        }
        if meta.is_file() {
            self.file(path, rel, rel_bytes);
        } else {
            self.problem(path, rel_bytes, special_file_problem(&meta.file_type()));
        }
        Step::Leaf
    }

    /// A directory (or a link to one): pruned, a loop, seen before, too deep, or entered.
    fn directory(
        &mut self,
        dent: &walkdir::DirEntry,
        meta: &Metadata,
        rel: String,
        rel_bytes: &[u8],
    ) -> Step {
        let path = dent.path();
        if SKIPPED_DIRS
            .iter()
            .any(|s| dent.file_name().as_bytes() == s.as_bytes())
            || self.filter.prunes_dir(&rel)
        {
            return Step::Leaf;
        }
        let id = dir_id(meta);
        if let Some((_, ancestor)) = self.ancestors.iter().find(|(a, _)| *a == id) {
            let target = if ancestor.is_empty() {
                "the scan root".to_string()
            } else {
                format!("'{ancestor}'")
            };
            self.problem(path, rel_bytes, lg601::symlink_loop(&target));
            return Step::Leaf;
        }
        if !self.visited.insert(id) {
            // The same directory reached through another link: scanned once.
            return Step::Leaf;
        }
        if self.ancestors.len() >= MAX_DEPTH {
            self.problem(path, rel_bytes, lg601::nesting_too_deep(MAX_DEPTH));
            return Step::Leaf;
        }
        self.ancestors.push((id, rel));
        if dent.path_is_symlink() {
            Step::Follow
        } else {
            Step::Descend
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_cut_from_the_top_as_bytes() {
        let rel = |top: &str, top_rel: &[u8], p: &str| {
            rel_bytes_of(Path::new(top), top_rel, Path::new(p))
        };
        assert_eq!(rel("a", b"", "a/x/y.txt"), b"x/y.txt");
        assert_eq!(rel("a/", b"", "a/x"), b"x");
        assert_eq!(rel(".", b"", "./x"), b"x");
        assert_eq!(rel("a", b"r", "a/x"), b"r/x");
        assert_eq!(rel("a", b"r", "a"), b"r");
        assert_eq!(rel("/d/e", b"", "/d/e/f"), b"f");
    }
    use std::ffi::OsStr;
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
            .filter(|e| matches!(e.kind, EntryKind::File))
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
    fn byte_order_and_a_directory_reached_twice_is_scanned_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in ["b/_.png", "b/a.png", "b/Z.png", "c/x.png"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b"1").unwrap();
        }
        // A link to a directory the walk also reaches directly: listed once, first reached
        // through the link (`a` sorts before `c`).
        symlink(root.join("c"), root.join("a")).unwrap();
        let rels: Vec<String> = walk(root, &[], &[]).into_iter().map(|e| e.rel).collect();
        assert_eq!(rels, vec!["a/x.png", "b/Z.png", "b/_.png", "b/a.png"]);
    }

    #[test]
    fn nesting_beyond_the_limit_is_a_finding() {
        let dir = tempfile::tempdir().unwrap();
        let mut deep = dir.path().join("d");
        for _ in 0..MAX_DEPTH + 20 {
            deep.push("n");
        }
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("deep.png"), b"1").unwrap();
        std::fs::write(dir.path().join("d/n/top.png"), b"1").unwrap();
        let entries = walk(dir.path(), &[], &[]);
        let rels: Vec<(&str, bool)> = entries
            .iter()
            .map(|e| (e.rel.as_str(), matches!(e.kind, EntryKind::Problem(_))))
            .collect();
        let limit = format!("d{}", "/n".repeat(MAX_DEPTH - 1));
        assert_eq!(rels, vec![(limit.as_str(), true), ("d/n/top.png", false)]);
        let EntryKind::Problem(p) = &entries[0].kind else {
            unreachable!()
        };
        assert_eq!(
            p.message,
            format!("directory nesting deeper than {MAX_DEPTH} levels; not followed")
        );
    }

    #[test]
    fn permission_errors_explain_themselves() {
        let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let p = io_problem("cannot open", &e);
        assert_eq!(p.code, "LG601");
        assert!(p.fix.contains("chmod"));
    }
}
