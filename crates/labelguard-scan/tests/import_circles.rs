//! No import circles between source files, in any crate of the workspace: a file that uses
//! another (`use crate::read::tar::TarProblem`, `super::shards::expand(..)`, `use super::{a, b}`)
//! must not be used by it, directly or through others. `module_layers.rs` holds the scan
//! crate's top-level modules to their layers; this holds every file of every crate.
//!
//! Read from the sources: every path that starts at `crate::`, `super::` or `self::` (and, in
//! a `use`, at a child module's name) is resolved to the file of the deepest module it names.
//! The files that declare modules (`lib.rs`, `main.rs`, `mod.rs`, `x.rs` beside `x/`) are the
//! faces of their modules, not files of their own: a path to an item they re-export
//! (`pub use discover::discover;`) is followed to the file that defines it, and a module's
//! use of its own children is no circle. Test code (`#[cfg(test)]` modules, inline or in files
//! of their own) is left out: a test may use what it tests from anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles known and being removed by work under way, each the sorted files of one circle (relative to
/// the workspace root). The test fails on a circle not listed here and on a listed one that is
/// gone, so the list only shrinks. Empty: the workspace has no import circle.
const ALLOWED: &[&[&str]] = &[];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Path, // `::`
    Punct(char),
}

/// The tokens of `text` with comments, strings and character literals left out.
fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied();
        if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == 'r' && matches!(next, Some('"') | Some('#')) && {
            let hashes = c[i + 1..].iter().take_while(|x| **x == '#').count();
            c.get(i + 1 + hashes) == Some(&'"')
        } {
            // A raw string: r"..", r#".."#.
            let hashes = c[i + 1..].iter().take_while(|x| **x == '#').count();
            i += hashes + 2;
            while i < c.len() {
                if c[i] == '"'
                    && c[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|x| **x == '#')
                        .count()
                        == hashes
                {
                    i += hashes + 1;
                    break;
                }
                i += 1;
            }
        } else if ch == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if ch == '\'' && (next == Some('\\') || c.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            i += 2;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
        } else if ch == ':' && next == Some(':') {
            out.push(Tok::Path);
            i += 2;
        } else {
            if !ch.is_whitespace() {
                out.push(Tok::Punct(ch));
            }
            i += 1;
        }
    }
    out
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The paths of the use tree at `toks[*i]` (`a::b::{c, d::e as f, self}`), each with the name
/// it is bound to; `*i` ends after it.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
                if toks.get(*i) == Some(&Tok::Path) {
                    *i += 1;
                    continue;
                }
                let mut bound = s.clone();
                if ident(toks.get(*i)) == Some("as") {
                    bound = ident(toks.get(*i + 1)).unwrap_or("_").to_string();
                    *i += 2;
                }
                if bound == "self" {
                    path.pop();
                    bound = path.last().cloned().unwrap_or_default();
                }
                out.push((path, bound));
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while *i < toks.len() && toks[*i] != Tok::Punct('}') {
                    if toks[*i] == Tok::Punct(',') {
                        *i += 1;
                        continue;
                    }
                    use_tree(toks, i, &path, out);
                }
                *i += 1;
                return;
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((path, "*".to_string()));
                return;
            }
            _ => return,
        }
    }
}

/// What one file says: the paths it uses (outside test code, module path of where each is
/// written, the path) and the names its `pub use`s re-export.
#[derive(Default)]
struct Said {
    uses: Vec<(Vec<String>, Vec<String>)>,
    reexports: Vec<(String, Vec<String>)>,
    test_children: BTreeSet<String>,
}

fn read_file(text: &str, module: &[String]) -> Said {
    let toks = tokens(text);
    let mut said = Said::default();
    // Inline modules open here: (name, brace depth inside it, test code).
    let mut inline: Vec<(String, usize, bool)> = Vec::new();
    let mut depth = 0usize;
    let mut test_attr = false;
    let mut i = 0;
    while i < toks.len() {
        let here: Vec<String> = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|m| m.0.clone()))
            .collect();
        let in_test = inline.iter().any(|m| m.2);
        match &toks[i] {
            Tok::Punct('#') if toks.get(i + 1) == Some(&Tok::Punct('[')) => {
                let end = toks[i..]
                    .iter()
                    .position(|t| *t == Tok::Punct(']'))
                    .map_or(toks.len(), |p| i + p);
                let attr: Vec<&str> = toks[i + 2..end]
                    .iter()
                    .filter_map(|t| ident(Some(t)))
                    .collect();
                if attr == ["cfg", "test"] {
                    test_attr = true;
                }
                i = end + 1;
                continue;
            }
            Tok::Punct('{') => {
                depth += 1;
                test_attr = false; // the attribute was on an item with a body
            }
            Tok::Punct(';') => test_attr = false,
            Tok::Punct('}') => {
                if inline.last().is_some_and(|m| m.1 == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let Some(name) = ident(toks.get(i + 1)) {
                    match toks.get(i + 2) {
                        Some(Tok::Punct('{')) => {
                            depth += 1;
                            inline.push((name.to_string(), depth, test_attr || in_test));
                            test_attr = false;
                            i += 3;
                            continue;
                        }
                        Some(Tok::Punct(';')) if test_attr || in_test => {
                            said.test_children.insert(name.to_string());
                        }
                        _ => {}
                    }
                }
                test_attr = false;
            }
            Tok::Ident(kw) if kw == "use" => {
                let public = i > 0 && ident(toks.get(i - 1)) == Some("pub")
                    || (i > 3
                        && toks[i - 1] == Tok::Punct(')')
                        && ident(toks.get(i - 4)) == Some("pub"));
                i += 1;
                let mut paths = Vec::new();
                use_tree(&toks, &mut i, &[], &mut paths);
                for (path, bound) in paths {
                    if public && inline.is_empty() {
                        said.reexports.push((bound, path.clone()));
                    }
                    if !in_test && !test_attr {
                        said.uses.push((here.clone(), path));
                    }
                }
                test_attr = false;
                continue;
            }
            Tok::Ident(kw)
                if matches!(kw.as_str(), "crate" | "super" | "self")
                    && toks.get(i + 1) == Some(&Tok::Path)
                    && !(i > 0 && (toks[i - 1] == Tok::Path || toks[i - 1] == Tok::Punct('$'))) =>
            {
                let mut path = Vec::new();
                while let Some(s) = ident(toks.get(i)) {
                    path.push(s.to_string());
                    if toks.get(i + 1) != Some(&Tok::Path) {
                        break;
                    }
                    i += 2;
                }
                if !in_test {
                    said.uses.push((here.clone(), path));
                }
            }
            _ => {}
        }
        i += 1;
    }
    said
}

/// One crate's source files by module path (`[]`: the crate's root).
struct Crate {
    files: BTreeMap<Vec<String>, PathBuf>,
    said: BTreeMap<Vec<String>, Said>,
}

impl Crate {
    /// Whether the module is a face: a module with modules below it (`lib.rs`, `main.rs`,
    /// `mod.rs`, or `x.rs` beside `x/`).
    fn is_face(&self, module: &[String]) -> bool {
        self.files
            .range(module.to_vec()..)
            .nth(1)
            .is_some_and(|(m, _)| m.len() > module.len() && m.starts_with(module))
    }
}

fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    if !matches!(last.as_str(), "lib.rs" | "main.rs" | "mod.rs") {
        parts.push(last.trim_end_matches(".rs").to_string());
    }
    parts
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a readable directory") {
        let p = e.expect("an entry").path();
        if p.is_dir() {
            collect_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The crate under `src` (its `bin/` targets, crates of their own, left out).
fn read_crate(src: &Path) -> Crate {
    let mut all = Vec::new();
    collect_files(src, &mut all);
    let mut files = BTreeMap::new();
    let mut said = BTreeMap::new();
    for file in all {
        if file.strip_prefix(src).is_ok_and(|r| r.starts_with("bin")) {
            continue;
        }
        let m = module_path(src, &file);
        let text = std::fs::read_to_string(&file).expect("a readable source");
        said.insert(m.clone(), read_file(&text, &m));
        files.insert(m, file);
    }
    // Files that are test modules of their parent.
    let tests: Vec<Vec<String>> = said
        .iter()
        .flat_map(|(m, s)| {
            s.test_children
                .iter()
                .map(move |c| [m.clone(), vec![c.clone()]].concat())
        })
        .collect();
    for t in tests {
        files.remove(&t);
        said.remove(&t);
    }
    Crate { files, said }
}

impl Crate {
    /// The file that defines what `path` names, written in module `at`.
    fn resolve(&self, at: &[String], path: &[String], hops: usize) -> Option<PathBuf> {
        let mut module: Vec<String> = at.to_vec();
        let mut rest = path;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                module.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            Some("super") => {
                while rest.first().map(String::as_str) == Some("super") {
                    module.pop()?;
                    rest = &rest[1..];
                }
            }
            Some(first)
                if self
                    .files
                    .contains_key(&[at, &[first.to_string()]].concat()) => {}
            _ => return None, // another crate, or a name in scope
        }
        while let Some(seg) = rest.first() {
            let deeper = [module.clone(), vec![seg.clone()]].concat();
            if !self.files.contains_key(&deeper) {
                break;
            }
            module = deeper;
            rest = &rest[1..];
        }
        let file = self.files.get(&module)?;
        if !self.is_face(&module) {
            return Some(file.clone());
        }
        // A face: follow its re-export of the item, if it makes one.
        let item = rest.first()?;
        let (_, target) = self
            .said
            .get(&module)?
            .reexports
            .iter()
            .find(|(b, _)| b == item)?;
        if hops > 8 {
            return None;
        }
        let target = [target.clone(), rest[1..].to_vec()].concat();
        self.resolve(&module, &target, hops + 1)
    }

    /// Every edge between two files (neither a face).
    fn edges(&self) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
        let mut out: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for (m, said) in &self.said {
            let from = &self.files[m];
            if self.is_face(m) {
                continue;
            }
            for (at, path) in &said.uses {
                if let Some(to) = self.resolve(at, path, 0) {
                    if &to != from {
                        out.entry(from.clone()).or_default().insert(to);
                    }
                }
            }
        }
        out
    }
}

/// The circles of a graph: its strongly connected components of more than one file, each
/// sorted (Tarjan's algorithm).
fn circles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct State<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, (usize, usize)>,
        stack: Vec<&'a PathBuf>,
        next: usize,
        out: Vec<Vec<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        s.index.insert(v, (s.next, s.next));
        s.next += 1;
        s.stack.push(v);
        for w in s.edges.get(v).into_iter().flatten() {
            match s.index.get(w).copied() {
                None => {
                    visit(s, w);
                    let low = s.index[v].1.min(s.index[w].1);
                    s.index.get_mut(v).unwrap().1 = low;
                }
                Some((wi, _)) if s.stack.contains(&w) => {
                    let low = s.index[v].1.min(wi);
                    s.index.get_mut(v).unwrap().1 = low;
                }
                Some(_) => {}
            }
        }
        let (vi, vl) = s.index[v];
        if vi == vl {
            let at = s.stack.iter().rposition(|x| *x == v).expect("on the stack");
            let mut scc: Vec<PathBuf> = s.stack.drain(at..).cloned().collect();
            if scc.len() > 1 {
                scc.sort();
                s.out.push(scc);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let root = workspace().canonicalize().expect("the workspace");
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut files = 0;
    let mut edges = 0;
    for e in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let src = e.expect("an entry").path().join("src");
        if !src.is_dir() {
            continue;
        }
        let krate = read_crate(&src);
        let graph = krate.edges();
        files += krate.files.len();
        edges += graph.values().map(BTreeSet::len).sum::<usize>();
        for c in circles(&graph) {
            found.push(
                c.iter()
                    .map(|p| {
                        p.strip_prefix(&root)
                            .unwrap_or(p)
                            .to_string_lossy()
                            .into_owned()
                    })
                    .collect(),
            );
        }
    }
    // The reading works: hundreds of files, and their imports found.
    assert!(files > 300 && edges > 600, "{files} files, {edges} imports");
    let allowed: Vec<Vec<String>> = ALLOWED
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    let new: Vec<&Vec<String>> = found.iter().filter(|c| !allowed.contains(c)).collect();
    let gone: Vec<&Vec<String>> = allowed.iter().filter(|c| !found.contains(c)).collect();
    assert!(
        new.is_empty(),
        "import circles (each file uses the next, and the last the first): move what they share \
         into a file that both use, or what one needs down to it:\n{}",
        new.iter()
            .map(|c| c.join(" <-> "))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        gone.is_empty(),
        "allowed circles that no longer exist: delete them from ALLOWED:\n{gone:?}"
    );
}

/// A small crate on disk: each (path under src, text).
fn crate_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Vec<Vec<String>>) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    for (path, text) in files {
        let p = src.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let found = circles(&read_crate(&src).edges())
        .into_iter()
        .map(|c| {
            c.iter()
                .map(|p| p.strip_prefix(&src).unwrap().to_string_lossy().into_owned())
                .collect()
        })
        .collect();
    (dir, found)
}

#[test]
fn circles_are_found_through_use_groups_inline_paths_and_re_exports() {
    let (_d, found) = crate_of(&[
        ("lib.rs", "pub mod a;\nmod b;\n"),
        ("a/mod.rs", "mod x;\nmod y;\npub use x::Thing;\n"),
        // `x` uses `y` in a use group, `y` uses `x` through the face's re-export.
        ("a/x.rs", "use super::{y::f, z};\npub struct Thing;\n"),
        ("a/y.rs", "pub fn f() { let _ = crate::a::Thing; }\n"),
        // A one-way import, a comment and a string that name `b` do not count.
        (
            "b.rs",
            "use crate::a::Thing; // crate::b\nconst S: &str = \"crate::b::S\";\n",
        ),
    ]);
    assert_eq!(found, [vec!["a/x.rs".to_string(), "a/y.rs".to_string()]]);
}

#[test]
fn test_code_and_inline_modules_are_read_as_such() {
    let (_d, found) = crate_of(&[
        ("lib.rs", "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\n"),
        // `a`'s tests use `b`, which uses `a`: test code, no circle.
        (
            "a.rs",
            "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    use crate::b::g;\n}\n",
        ),
        // `super` in an inline module is the file's own module.
        (
            "b.rs",
            "pub fn g() { crate::a::f() }\nmod inner {\n    use super::g;\n}\n",
        ),
        ("tests.rs", "use crate::a::f;\nuse crate::b::g;\n"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}
