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



def load_ipython_extension(ipython):  # noqa: ANN001 - `%load_ext labelguard` (IPython's hook)
    """`%load_ext labelguard`: the guards on for the kernel, and the diagnosis of a TargetError or
    a device-side assert in the failing cell's output (labelguard/_notebook.py)."""
    from ._notebook import load

    load(ipython)


def unload_ipython_extension(ipython):  # noqa: ANN001 - `%unload_ext labelguard`
    from ._notebook import unload

    unload(ipython)


__all__ = [
    "Finding", "GuardedDataset", "Location", "Remap", "Report", "ScanError", "ScanReport", "TargetError", "TargetWarning", "__version__",
    "capture", "check", "check_binary_cross_entropy", "check_binary_cross_entropy_with_logits",
    "check_cross_entropy", "check_ctc_loss", "check_embedding", "check_gather", "check_index_select", "check_model",
    "check_multinomial", "check_nll_loss", "check_one_hot", "check_scatter", "disable", "enable",
    "enabled", "guard_collate", "guarded_ops", "is_enabled", "model_spec", "remap", "remap_table", "replay", "scan",
]
