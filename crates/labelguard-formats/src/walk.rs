//! Directory walking that never hangs: symlinks to directories are followed once, loops are
//! reported instead of followed, FIFOs and devices are reported without being opened, and
//! names that are not UTF-8 are kept byte-exact (and flagged).
//!
//! Two passes. The first lists the tree ahead on all the threads of the current rayon pool
//! ([`list_ahead`]): each directory read whole and sorted by the bytes of its names, its
//! sub-directories listed in parallel, every name that is not a directory decided there (a
//! file's [`Entry`] built, a link followed, a special file reported). The second, sequential,
//! goes through the listings depth-first ([`Walker::consume`]) and decides each directory in
//! order: the loop check against the ancestors (by device and inode, bind mounts included),
//! "reached twice through links, scanned once" (which depends on the order), the depth limit
//! and the filters. The first pass lists only what the second would enter, as far as it can
//! know it (real directories, not pruned, not an ancestor, not too deep); a directory symlink
//! is listed when the second pass follows it, by a nested walk, and a directory the first
//! pass did not list is listed then. So the entries and their order are those of a plain
//! sequential walk; only the listing and the per-name work run in parallel.
//!
//! Listings are read with `std::fs::read_dir` and closed before any sub-directory is listed
//! (no descriptors held per level). A directory symlink is opened only by listing it, never
//! with a plain `open(2)` (which blocks if the target is swapped for a FIFO).

use crate::checks::lg601_unreadable_file::{self as lg601, io_problem, special_file_problem};
use crate::glob::Glob;
use crate::source::Source;
use labelguard_core::Finding;
use labelguard_io::portable::{self, DirId};
use rayon::prelude::*;
use std::collections::HashSet;
use std::fs::{FileType, Metadata};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One path under the root: a walked file, or an entry listed elsewhere (a member of a tar
/// shard, an object under a bucket prefix), which the layouts treat the same way.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Where its bytes come from (for a walked file: the root as given, joined with the
    /// relative path).
    pub source: Source,
    /// Relative to the root, `/`-separated, decoded lossily for display and globs.
    pub rel: String,
    /// The exact bytes of the relative path: the shard key, unless `shard_key` says otherwise.
    pub rel_bytes: Vec<u8>,
    pub non_utf8: bool,
    pub kind: EntryKind,
    /// What findings name, when not the root joined with `rel` (`shards/a.tar:000123.png`).
    pub shown: Option<String>,
    /// What `--shard K/N` hashes, when not the relative path: the tar shard a member is in, so
    /// that one shard file lands in one part.
    pub shard_key: Option<Vec<u8>>,
    /// The answers of [`Entry::sniffed`], once asked.
    sniffs: [OnceLock<bool>; 3],
}

/// The questions about a file's first bytes that discovery asks more than once (the
/// partition, the layout detection and the layout itself each ask whether a `.json` is a
/// COCO file): each is answered once per file, by [`Entry::sniffed`].
#[derive(Clone, Copy)]
pub enum Sniff {
    CocoJson,
    DataYaml,
    /// A `.json` file that is JSON Lines (`read::table::is_json_lines`).
    JsonLines,
}

#[derive(Clone, Debug)]
pub enum EntryKind {
    /// A regular file (or a link to one).
    File,
    Problem(Finding),
}

impl Entry {
    fn new(path: PathBuf, rel_bytes: Vec<u8>, kind: EntryKind) -> Entry {
        let (rel, non_utf8) = match std::str::from_utf8(&rel_bytes) {
            Ok(s) => (s.to_string(), false),
            Err(_) => (String::from_utf8_lossy(&rel_bytes).into_owned(), true),
        };
        Entry {
            source: Source::File(path),
            rel,
            rel_bytes,
            non_utf8,
            kind,
            shown: None,
            shard_key: None,
            sniffs: Default::default(),
        }
    }

    /// An entry listed elsewhere: a member of a tar shard, an object in a bucket. `rel` is its
    /// path below the listed root (`train-000001.tar/000123.seg.png`), `shown` what findings
    /// name, `shard_key` what `--shard K/N` hashes.
    pub fn listed(source: Source, rel_bytes: Vec<u8>, shown: String, shard_key: Vec<u8>) -> Entry {
        let mut e = Entry::new(PathBuf::new(), rel_bytes, EntryKind::File);
        e.source = source;
        e.shown = Some(shown);
        e.shard_key = Some(shard_key);
        e
    }

    /// The file on disk, for a walked entry.
    pub fn path(&self) -> Option<&Path> {
        self.source.path()
    }

    /// `sniff(source)`, the answer to the question `what`, read from the file the first time
    /// it is asked only (a copy of the entry keeps the answers given before it was made).
    pub fn sniffed(&self, what: Sniff, sniff: fn(&Source) -> bool) -> bool {
        *self.sniffs[what as usize].get_or_init(|| sniff(&self.source))
    }

    fn problem(path: PathBuf, rel_bytes: Vec<u8>, p: Finding) -> Entry {
        Entry::new(path, rel_bytes, EntryKind::Problem(p))
    }
}

/// Directories that hold version-control data, never labels.
const SKIPPED_DIRS: &[&str] = &[".git", ".hg", ".svn"];
const MAX_DEPTH: usize = 256;

/// Walks `root` depth-first in byte order of the names, which makes the order (and so the
/// report) the same on every run and every machine. The listing runs on the current rayon
/// pool's threads (the global pool outside one).
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
    walker.visited.insert(portable::dir_id(root, &meta));
    walker
        .ancestors
        .push((portable::dir_id(root, &meta), String::new()));
    if meta.is_dir() {
        walker.walk_tree(root, b"");
    } else {
        // What listing a file, FIFO or device as a directory says (opendir would refuse
        // it with ENOTDIR without opening it).
        let e = portable::not_a_directory();
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

/// The relative path of the name `name` in the folder whose relative path is `parent`.
fn child_rel(parent: &[u8], name: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(parent.len() + 1 + name.len());
    v.extend_from_slice(parent);
    if !v.is_empty() {
        v.push(b'/');
    }
    v.extend_from_slice(name);
    v
}

/// A directory read ahead: its path, its relative path, and its names sorted (or why it could
/// not be listed).
struct Listing {
    path: PathBuf,
    rel_bytes: Vec<u8>,
    names: std::io::Result<Vec<Name>>,
}

/// One name of a listing, decided as far as it can be without knowing the walk's order.
// `Done` is nearly every name: boxing its entry would cost an allocation per file.
#[allow(clippy::large_enum_variant)]
enum Name {
    /// A file kept by the filter, or a finding (a dangling link, a FIFO, a name whose type
    /// could not be read).
    Done(Entry),
    /// A directory, or a link to one: the sequential pass decides it.
    Dir(Box<DirName>),
}

struct DirName {
    path: PathBuf,
    rel_bytes: Vec<u8>,
    meta: Metadata,
    is_link: bool,
    /// Its listing, when the first pass could tell that it will be entered.
    listing: Option<Listing>,
}

impl Name {
    fn path(&self) -> &[u8] {
        match self {
            Name::Done(e) => e
                .path()
                .map_or(&[][..], |p| p.as_os_str().as_encoded_bytes()),
            Name::Dir(d) => d.path.as_os_str().as_encoded_bytes(),
        }
    }
}

/// The ancestors of a directory being listed ahead, itself included: those listed ahead
/// above it, innermost first (a list on the stack of the recursion: no allocation per level),
/// then those on the walk's stack.
struct Chain<'a> {
    id: Option<DirId>,
    up: Option<&'a Chain<'a>>,
    stack: &'a [DirId],
}

impl Chain<'_> {
    fn contains(&self, id: DirId) -> bool {
        let mut at = Some(self);
        while let Some(c) = at {
            if c.id == Some(id) {
                return true;
            }
            at = c.up;
        }
        self.stack.contains(&id)
    }
}

/// Lists the directory `path` (relative path `rel_bytes`; `chain` its ancestors and itself,
/// `depth` their number), and below it every directory the sequential pass will enter, in
/// parallel.
fn list_ahead(
    path: PathBuf,
    rel_bytes: Vec<u8>,
    filter: &Filter<'_>,
    chain: &Chain<'_>,
    depth: usize,
) -> Listing {
    let mut names = match read_names(&path, &rel_bytes, filter) {
        Ok(n) => n,
        Err(e) => {
            return Listing {
                path,
                rel_bytes,
                names: Err(e),
            }
        }
    };
    let mut below: Vec<&mut DirName> = names
        .iter_mut()
        .filter_map(|n| match n {
            Name::Dir(d) if !d.is_link && depth < MAX_DEPTH && enters(d, filter) => Some(&mut **d),
            _ => None,
        })
        .filter(|d| !chain.contains(portable::dir_id(&d.path, &d.meta)))
        .collect();
    let list = |d: &mut &mut DirName| {
        let inner = Chain {
            id: Some(portable::dir_id(&d.path, &d.meta)),
            up: Some(chain),
            stack: chain.stack,
        };
        let l = list_ahead(
            d.path.clone(),
            d.rel_bytes.clone(),
            filter,
            &inner,
            depth + 1,
        );
        d.listing = Some(l);
    };
    if below.len() > 1 {
        below.par_iter_mut().for_each(list);
    } else {
        below.iter_mut().for_each(list);
    }
    Listing {
        path,
        rel_bytes,
        names: Ok(names),
    }
}

/// Whether a directory is one the walk enters unless it is a loop, seen already or too deep:
/// not version-control data, not pruned by `--exclude`.
fn enters(d: &DirName, filter: &Filter<'_>) -> bool {
    let name = d
        .path
        .file_name()
        .map(|n| n.as_encoded_bytes())
        .unwrap_or(b"");
    !SKIPPED_DIRS.iter().any(|s| name == s.as_bytes())
        && !filter.prunes_dir(&String::from_utf8_lossy(&d.rel_bytes))
}

/// The names of one directory, each decided as far as it can be, sorted by their bytes (the
/// names whose type could not be read first). Large listings are decided in parallel.
fn read_names(dir: &Path, rel: &[u8], filter: &Filter<'_>) -> std::io::Result<Vec<Name>> {
    // The listing is read whole and closed before anything else is done with it.
    let listed: Vec<std::fs::DirEntry> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    let decide = |e: &std::fs::DirEntry| -> Option<(bool, Name)> {
        let path = e.path();
        let rel_bytes = child_rel(rel, e.file_name().as_encoded_bytes());
        match e.file_type() {
            Ok(kind) => name_of(path, rel_bytes, kind, filter).map(|n| (true, n)),
            Err(err) => {
                let p = io_problem("cannot stat", &err);
                Some((false, Name::Done(Entry::problem(path, rel_bytes, p))))
            }
        }
    };
    let names: Vec<(bool, Name)> = if listed.len() >= 4096 {
        listed
            .par_iter()
            .with_min_len(1024)
            .filter_map(decide)
            .collect()
    } else {
        listed.iter().filter_map(decide).collect()
    };
    drop(listed);
    // The paths share the directory's path: their order is their names' order. A name is
    // listed once, so the order is total. The names are sorted as indices, then moved once
    // (an entry is a few hundred bytes: a sort would move each of them many times).
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_unstable_by(|&a, &b| {
        let (a, b) = (&names[a], &names[b]);
        (a.0, a.1.path()).cmp(&(b.0, b.1.path()))
    });
    let mut slots: Vec<Option<Name>> = names.into_iter().map(|(_, n)| Some(n)).collect();
    Ok(order
        .into_iter()
        .map(|i| slots[i].take().expect("each index once"))
        .collect())
}

/// Decides one listed name of type `kind`: a regular file from the listing's type (no stat:
/// a scan of 100,000 label files once spent a third of its time in such stats), a link by
/// its target, anything else by its own metadata.
fn name_of(path: PathBuf, rel_bytes: Vec<u8>, kind: FileType, filter: &Filter<'_>) -> Option<Name> {
    let keeps = |rel: &[u8]| filter.keeps_file(&String::from_utf8_lossy(rel));
    let is_link = kind.is_symlink();
    let meta = if kind.is_file() {
        return keeps(&rel_bytes).then(|| Name::Done(Entry::new(path, rel_bytes, EntryKind::File)));
    } else if is_link {
        // Follow symlinks: datasets are often assembled from links. The target's metadata
        // says what it is; a loop or a dangling link is a finding.
        match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(e) => {
                if !keeps(&rel_bytes) {
                    return None;
                }
                let what = if portable::is_symlink_loop(&e) {
                    "symlink loop"
                } else {
                    "cannot follow the symlink"
                };
                return Some(Name::Done(Entry::problem(
                    path,
                    rel_bytes,
                    io_problem(what, &e),
                )));
            }
        }
    } else {
        match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) => {
                let p = io_problem("cannot stat", &e);
                return Some(Name::Done(Entry::problem(path, rel_bytes, p)));
            }
        }
    };
    if meta.is_dir() {
        return Some(Name::Dir(Box::new(DirName {
            path,
            rel_bytes,
            meta,
            is_link,
            listing: None,
        })));
    }
    if !keeps(&rel_bytes) {
        return None;
    }
    let kind = if meta.is_file() {
        EntryKind::File
    } else {
        EntryKind::Problem(special_file_problem(&meta.file_type()))
    };
    Some(Name::Done(Entry::new(path, rel_bytes, kind)))
}

struct Walker<'a> {
    filter: Filter<'a>,
    /// Every directory entered, so that one reached again through a link is scanned once.
    visited: HashSet<DirId>,
    /// The directories above the current entry (the root first), with their relative paths.
    ancestors: Vec<(DirId, String)>,
    out: Vec<Entry>,
}

/// What a directory turned out to be, once it has been decided.
enum Step {
    /// Not entered (pruned, a loop, already scanned, too deep).
    Leaf,
    /// A real directory: entered from its listing.
    Descend,
    /// A symlink to a directory: walked by a nested walk.
    Follow,
}

impl Walker<'_> {
    fn problem(&mut self, path: &Path, rel_bytes: &[u8], p: Finding) {
        self.out
            .push(Entry::problem(path.to_path_buf(), rel_bytes.to_vec(), p));
    }

    /// Walks the directory `top` (already checked and on the ancestor stack) whose relative
    /// path is `top_rel`.
    fn walk_tree(&mut self, top: &Path, top_rel: &[u8]) {
        let listing = self.list(top.to_path_buf(), top_rel.to_vec());
        self.consume(listing);
    }

    /// Lists `path` ahead, the directory on top of the ancestor stack.
    fn list(&self, path: PathBuf, rel_bytes: Vec<u8>) -> Listing {
        let ids: Vec<DirId> = self.ancestors.iter().map(|(id, _)| *id).collect();
        let chain = Chain {
            id: None,
            up: None,
            stack: &ids,
        };
        list_ahead(path, rel_bytes, &self.filter, &chain, ids.len())
    }

    /// Goes through `top`'s listing and those below it depth-first, in order.
    fn consume(&mut self, top: Listing) {
        let base = self.ancestors.len();
        let mut stack: Vec<std::vec::IntoIter<Name>> = Vec::new();
        self.open(top, &mut stack);
        while let Some(names) = stack.last_mut() {
            let Some(name) = names.next() else {
                stack.pop();
                continue;
            };
            self.ancestors.truncate(base + stack.len() - 1);
            match name {
                Name::Done(e) => self.out.push(e),
                Name::Dir(d) => {
                    let d = *d;
                    match self.directory(&d) {
                        Step::Leaf => {}
                        Step::Follow => self.walk_tree(&d.path, &d.rel_bytes),
                        Step::Descend => {
                            let listing = match d.listing {
                                Some(l) => l,
                                None => self.list(d.path, d.rel_bytes),
                            };
                            self.open(listing, &mut stack);
                        }
                    }
                }
            }
        }
    }

    /// Enters a listing: its names onto the stack, or the finding that it could not be read.
    fn open(&mut self, listing: Listing, stack: &mut Vec<std::vec::IntoIter<Name>>) {
        match listing.names {
            Ok(names) => stack.push(names.into_iter()),
            // The directory could not be listed (in full): no names from it.
            Err(e) => self.problem(
                &listing.path,
                &listing.rel_bytes,
                io_problem("cannot list the directory", &e),
            ),
        }
    }

    /// A directory (or a link to one): pruned, a loop, seen before, too deep, or entered.
    fn directory(&mut self, d: &DirName) -> Step {
        if !enters(d, &self.filter) {
            return Step::Leaf;
        }
        let id = portable::dir_id(&d.path, &d.meta);
        if let Some((_, ancestor)) = self.ancestors.iter().find(|(a, _)| *a == id) {
            let target = if ancestor.is_empty() {
                "the scan root".to_string()
            } else {
                format!("'{ancestor}'")
            };
            self.problem(&d.path, &d.rel_bytes, lg601::symlink_loop(&target));
            return Step::Leaf;
        }
        if !self.visited.insert(id) {
            // The same directory reached through another link: scanned once.
            return Step::Leaf;
        }
        if self.ancestors.len() >= MAX_DEPTH {
            self.problem(&d.path, &d.rel_bytes, lg601::nesting_too_deep(MAX_DEPTH));
            return Step::Leaf;
        }
        let rel = String::from_utf8_lossy(&d.rel_bytes).into_owned();
        self.ancestors.push((id, rel));
        if d.is_link {
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
    fn relative_paths_join_the_names_as_bytes() {
        assert_eq!(child_rel(b"", b"x"), b"x");
        assert_eq!(child_rel(b"r", b"x"), b"r/x");
        assert_eq!(child_rel(b"r/s", b"\xffy"), b"r/s/\xffy");
    }
    // The file types and names below are Unix ones (FIFOs, symlinks, non-UTF-8 bytes).
    #[cfg(unix)]
    use std::ffi::OsStr;
    #[cfg(unix)]
    use std::os::unix::ffi::OsStrExt;
    #[cfg(unix)]
    use std::os::unix::fs::symlink;

    #[cfg(unix)]
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

    #[cfg(unix)]
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

    #[cfg(unix)]
    #[test]
    fn a_large_listing_is_decided_in_parallel_and_walked_in_byte_order() {
        // Over 4,096 names in one folder (their decisions run in parallel), folders beside
        // and below it (listed in parallel): the order is the byte order of a plain walk.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut expected = Vec::new();
        for d in ["big", "b/c", "b/c/d", "a"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for i in (0..5000).rev() {
            let rel = format!("big/{i}.txt");
            std::fs::write(root.join(&rel), b"0").unwrap();
            expected.push(rel);
        }
        for rel in ["a/z", "b/c/d/y", "b/c/x", "b/w", "top"] {
            std::fs::write(root.join(rel), b"1").unwrap();
            expected.push(rel.to_string());
        }
        symlink(root.join("missing"), root.join("big/dangling.txt")).unwrap();
        expected.sort_by(|a, b| {
            let (a, b) = (a.split('/'), b.split('/'));
            a.map(str::as_bytes).cmp(b.map(str::as_bytes))
        });
        let walked = walk(root, &[], &[]);
        let rels: Vec<&str> = walked.iter().map(|e| e.rel.as_str()).collect();
        let at = expected
            .iter()
            .position(|r| r.as_str() > "big/dangling.txt")
            .unwrap();
        expected.insert(at, "big/dangling.txt".to_string());
        assert_eq!(rels, expected);
        assert!(matches!(walked[at].kind, EntryKind::Problem(_)));
        assert_eq!(walked[0].path(), Some(root.join("a/z").as_path()));
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

    #[cfg(unix)]
    #[test]
    fn permission_errors_explain_themselves() {
        let e = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let p = io_problem("cannot open", &e);
        assert_eq!(p.code, "LG601");
        assert!(p.fix.contains("chmod"));
    }
}
