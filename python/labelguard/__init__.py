"""labelguard: stops PyTorch's `device-side assert triggered` before it happens, and explains it.

    import labelguard
    labelguard.enable()          # every loss/indexing call is checked on its real tensors
    report = labelguard.check("cross_entropy", input=logits, target=mask, ignore_index=255)
    labelguard.check_cross_entropy(logits, mask)   # raises TargetError, PyTorch's signature
    labelguard.check_model(model, tokenizer)   # tokens added without resize_token_embeddings, ...
    labelguard.guarded_ops()     # what enable() wraps: each op's PyTorch sites, modules, parameters
    labelguard.scan("data/masks", num_classes=19)   # a dataset (or a datasets.Dataset), as `labelguard scan`

The work happens in Rust (the same engine as the `labelguard` command); CPU tensors and numpy
arrays are read in place, CUDA tensors are reduced on the GPU.
"""

import importlib as _importlib

# `typing.TYPE_CHECKING` without importing typing (~3 ms): type checkers take a module's own
# `TYPE_CHECKING = False` as true, as they take typing's. (Deleted below: not a public name.)
TYPE_CHECKING = False

# Each public name and the module that defines it. The package imports none of them up front:
# `labelguard --version` (the pip console script, labelguard/__main__.py) needs only the
# extension, and these modules cost ~90 ms to import, 20 times the binary's whole run (issue 35).
# A name's module is imported at its first use (`labelguard.enable`, `from labelguard import
# scan`, PEP 562); none of them imports torch.
_HOMES = {
    "_capture": ("capture", "replay"),
    "_check": (
        "check", "check_binary_cross_entropy", "check_binary_cross_entropy_with_logits", "check_cross_entropy",
        "check_ctc_loss", "check_embedding", "check_gather", "check_index_select", "check_multinomial",
        "check_nll_loss", "check_one_hot", "check_scatter",
    ),
    "_data": ("GuardedDataset", "guard_collate"),
    "_enable": ("disable", "enable", "enabled", "is_enabled"),
    "_model": ("check_model", "model_spec"),
    "_native": ("__version__",),
    "_ops": ("guarded_ops",),
    "_remap": ("Remap", "remap", "remap_table"),
    "_report": ("Finding", "Location", "Report", "TargetError", "TargetWarning"),
    "_scan": ("ScanError", "ScanReport", "scan"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}
__all__ = sorted(_HOME)

if TYPE_CHECKING:  # what type checkers and editors read (python/tests/test_lazy_package.py holds it equal to _HOMES)
    from typing import Any, List

    from ._capture import capture, replay
    from ._check import (
        check,
        check_binary_cross_entropy,
        check_binary_cross_entropy_with_logits,
        check_cross_entropy,
        check_ctc_loss,
        check_embedding,
        check_gather,
        check_index_select,
        check_multinomial,
        check_nll_loss,
        check_one_hot,
        check_scatter,
    )
    from ._data import GuardedDataset, guard_collate
    from ._enable import disable, enable, enabled, is_enabled
    from ._model import check_model, model_spec
    from ._native import __version__
    from ._ops import guarded_ops
    from ._remap import Remap, remap, remap_table
    from ._report import Finding, Location, Report, TargetError, TargetWarning
    from ._scan import ScanError, ScanReport, scan
del TYPE_CHECKING


def __getattr__(name: str) -> "Any":
    """A public name, from its module on first use (then a plain attribute: this runs once per
    name); or one of the package's private modules (`labelguard._enable`), as an eager import
    made them attributes."""
    home = _HOME.get(name)
    if home is not None:
        value = getattr(_importlib.import_module(f"{__name__}.{home}"), name)
        globals()[name] = value
        return value
    if name.startswith("_") and not name.startswith("__"):
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as missing:
            if missing.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> "List[str]":
    return sorted(set(globals()) | set(_HOME))


def load_ipython_extension(ipython):  # noqa: ANN001 - `%load_ext labelguard` (IPython's hook)
    """`%load_ext labelguard`: the guards on for the kernel, and the diagnosis of a TargetError or
    a device-side assert in the failing cell's output (labelguard/_notebook.py)."""
    from ._notebook import load

    load(ipython)


def unload_ipython_extension(ipython):  # noqa: ANN001 - `%unload_ext labelguard`
    from ._notebook import unload

    unload(ipython)
