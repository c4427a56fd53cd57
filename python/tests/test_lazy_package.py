"""`import labelguard` imports its modules on first use (PEP 562), so that the pip console script
starts as the binary does (issue 35): `labelguard --version` needs only the extension. The API is
unchanged: every public name that the eager package had is there, in `dir()`, `__all__` and a
star import, and the package's private modules are still attributes.
"""
import ast
import pathlib
import subprocess
import sys
import types

import labelguard

INIT = pathlib.Path(labelguard.__file__)

# `dir(labelguard)`'s public names when the package imported everything up front (main at 71ee1e6).
EAGER_PUBLIC = [
    "Finding", "GuardedDataset", "Location", "Remap", "Report", "ScanError", "ScanReport", "TargetError",
    "TargetWarning", "capture", "check", "check_binary_cross_entropy", "check_binary_cross_entropy_with_logits",
    "check_cross_entropy", "check_ctc_loss", "check_embedding", "check_gather", "check_index_select", "check_model",
    "check_multinomial", "check_nll_loss", "check_one_hot", "check_scatter", "disable", "enable", "enabled",
    "guard_collate", "guarded_ops", "is_enabled", "load_ipython_extension", "model_spec", "remap", "remap_table",
    "replay", "scan", "unload_ipython_extension",
]
EAGER_ALL = sorted(set(EAGER_PUBLIC) - {"load_ipython_extension", "unload_ipython_extension"} | {"__version__"})


def fresh(code: str) -> str:
    """Runs `code` in a new interpreter (nothing of labelguard imported yet); its stdout."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_command_imports_neither_torch_nor_the_api_modules():
    # The command as `python -m labelguard --version` runs it, then what it had imported.
    out = fresh(
        "import runpy, sys\n"
        "sys.argv = ['labelguard', '--version']\n"
        "try:\n"
        "    runpy.run_module('labelguard', run_name='__main__', alter_sys=True)\n"
        "except SystemExit as end:\n"
        "    print('exit', end.code)\n"
        "print(*sorted(m for m in sys.modules if m.split('.')[0] in ('labelguard', 'torch', 'numpy', 'typing')))\n"
    )
    version, modules = out.splitlines()[-2:]
    assert out.startswith(f"labelguard {labelguard.__version__}\n") and version == "exit 0", out
    assert modules.split() == ["labelguard", "labelguard._native"], modules


def test_the_public_names_are_the_eager_packages():
    # (Here other tests may have imported labelguard.lightning or .transformers: modules, set aside.)
    names = [n for n in dir(labelguard) if not n.startswith("_") and not isinstance(getattr(labelguard, n), types.ModuleType)]
    assert names == EAGER_PUBLIC
    assert labelguard.__all__ == EAGER_ALL
    # In a new interpreter too, before any name was used, and through a star import.
    out = fresh(
        "import labelguard\n"
        "print(*[n for n in dir(labelguard) if not n.startswith('_')])\n"
        "from labelguard import *\n"
        "print(*sorted(n for n in globals() if n in labelguard.__all__))\n"
        "print(labelguard.enable.__module__, labelguard.TargetError.__name__, labelguard._enable.__name__)\n"
    )
    public, starred, used = out.splitlines()
    assert public.split() == EAGER_PUBLIC
    assert starred.split() == EAGER_ALL
    assert used == "labelguard._enable TargetError labelguard._enable"


def test_each_name_is_its_modules_object_and_unknown_names_are_attribute_errors():
    import importlib

    for module, names in labelguard._HOMES.items():
        for name in names:
            assert getattr(labelguard, name) is getattr(importlib.import_module(f"labelguard.{module}"), name)
    for missing in ("nothing_here", "_nothing_here", "__nothing_here__"):
        assert not hasattr(labelguard, missing)
    assert labelguard._report is sys.modules["labelguard._report"]


def test_the_type_checkers_imports_are_the_lazy_table():
    """The `if TYPE_CHECKING:` imports (what editors and type checkers read) name the same modules
    and names as `_HOMES` (what runs)."""
    tree = ast.parse(INIT.read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", None) == "TYPE_CHECKING")
    declared = {
        f"_{node.module.lstrip('_')}": tuple(a.name for a in node.names)
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.level == 1
    }
    assert declared == labelguard._HOMES
