"""Loads a second labelguard (another branch's installed package) beside this one, so that a
benchmark times both in the same run, interleaved: `--baseline DIR` names a directory holding
a `labelguard` package (its Python files and its `_native` extension), e.g. a copy of main's
installed package:

    cp -r $(git -C ../main rev-parse --show-toplevel)/.venv/lib/python3*/site-packages/labelguard /tmp/base/
    python bench/indexing_overhead.py --baseline /tmp/base
"""

import importlib.util
import pathlib
import sys


def load(directory, name="labelguard_baseline"):
    """The package DIRECTORY/labelguard, imported as `name` (its imports are relative)."""
    package = pathlib.Path(directory) / "labelguard"
    spec = importlib.util.spec_from_file_location(name, package / "__init__.py", submodule_search_locations=[str(package)])
    if spec is None or spec.loader is None:
        raise SystemExit(f"--baseline: no labelguard package in {directory}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def add_option(parser):
    """The `--baseline DIR` option of the benchmarks that time two builds side by side."""
    parser.add_argument("--baseline", help="a directory holding another build's labelguard package, timed beside this one")


def builds(args, labelguard):
    """{"enabled": this build, "baseline": the --baseline build, if given}."""
    out = {"enabled": labelguard}
    if args.baseline:
        out["baseline"] = load(args.baseline)
    return out
