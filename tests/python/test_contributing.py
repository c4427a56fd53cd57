"""CONTRIBUTING's recipes name files and identifiers: every path they name exists (or, for a
file a recipe creates, its folder does), and every constant and type they name is defined in
the sources, so a renamed list (`MASK_EXTS` once) fails here rather than misleading a reader."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
SPANS = sorted(set(re.findall(r"`([^`\n]+)`", TEXT)))

PATH_START = ("crates/", "docs/", "tests/", "python/", "tools/", "bench/", ".ci/", "examples/")
# A part of a path that a recipe fills in: NAME, <face>, lgNNN_name, lg60N_*, *.
PLACEHOLDER = re.compile(r"NAME|<[^>]+>|NNN|\d*N_|\*")


def named_paths():
    for span in SPANS:
        words = span.split()
        word = words[0] if words else ""
        if word.startswith(PATH_START) or re.fullmatch(r"[A-Z]+\.md", word):
            yield word.rstrip("/")


def test_every_path_the_recipes_name_exists():
    paths = list(named_paths())
    assert len(paths) > 40, paths
    missing = []
    for p in paths:
        parts = p.split("/")
        fixed = []
        for part in parts:
            if PLACEHOLDER.search(part):
                break
            fixed.append(part)
        target = ROOT.joinpath(*fixed)
        if not target.exists():
            missing.append(p)
    assert not missing, f"CONTRIBUTING names paths that do not exist: {missing}"


# Constants (LAYOUTS, FORMATS) and types (OpSpec, Reader) the recipes name.
IDENT = re.compile(r"[A-Z][A-Z0-9_]{2,}|[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+|[A-Z][a-z]{2,}")
# Words that are identifiers of Rust or Python themselves, or prose in code spans.
# trycmd's [CWD] and mkdocs' `- Title: ...` are other tools' words; rule codes are checked by
# crates/labelguard-core/tests/rule_code_ledger.rs.
NOT_OURS = {"String", "PathBuf", "Vec", "Value", "Guide", "README", "BENCHMARKS", "CONTRIBUTING", "NAME", "KEY", "TRYCMD", "CWD", "Title"}


def sources():
    for folder in ("crates", "python", "tests", "tools"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".rs", ".py", ".pyi", ".toml"} and "target" not in path.parts:
                yield path.read_text(encoding="utf-8", errors="replace")


def test_every_constant_and_type_the_recipes_name_is_defined():
    names = set()
    for span in SPANS:
        for token in re.split(r"::|[^A-Za-z0-9_]", span):
            token = token.rstrip("_")
            if IDENT.fullmatch(token) and token not in NOT_OURS and not re.fullmatch(r"LG\d{3}", token):
                names.add(token)
    assert {"LAYOUTS", "FORMATS", "OpSpec", "Reader"} <= names, names
    corpus = "\n".join(sources())
    undefined = sorted(n for n in names if not re.search(rf"\b{re.escape(n)}\b", corpus))
    assert not undefined, f"CONTRIBUTING names identifiers no source defines or uses: {undefined}"
