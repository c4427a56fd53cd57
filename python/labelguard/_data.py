"""Guards for data pipelines: the checks run in DataLoader workers, on the CPU, costing the
GPU nothing, and name the sample that is wrong."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from . import _native
from ._report import Report, TargetError
from ._tensors import describe, is_array, is_tensor_like


class _Contract:
    """What a sample must satisfy: class ids of `target_key` in [0, num_classes-1] (or
    ignore_index); ids of `ids_key` below num_embeddings."""

    def __init__(self, num_classes: Optional[int] = None, ignore_index: int = -100, target_key: Any = None,
                 num_embeddings: Optional[int] = None, ids_key: Any = "input_ids"):
        if num_classes is None and num_embeddings is None:
            raise ValueError("give num_classes (class-id targets) and/or num_embeddings (token ids)")
        self.num_classes, self.ignore_index, self.target_key = num_classes, ignore_index, target_key
        self.num_embeddings, self.ids_key = num_embeddings, ids_key

    def _pick(self, sample: Any, key: Any, defaults: Sequence[Any]) -> Any:
        if key is not None:
            return sample[key]
        if isinstance(sample, dict):
            for k in defaults:
                if k in sample:
                    return sample[k]
            return None
        if isinstance(sample, (tuple, list)) and len(sample) >= 2 and isinstance(defaults[0], str) and defaults[0] == "target":
            return sample[-1]
        return None

    def reports(self, sample: Any):
        if self.num_classes is not None:
            target = self._pick(sample, self.target_key, ("target", "targets", "label", "labels", "mask", "masks", "segmentation"))
            if target is not None:
                if not is_tensor_like(target):
                    import numpy as np

                    target = np.asarray(target)
                # The scan's label-target contract, told whether numpy or torch holds the target
                # (the fix is written in that library's API).
                yield Report.from_json(_native.check_class_targets(
                    describe("target", target), int(self.num_classes), int(self.ignore_index), is_array(target)))
        if self.num_embeddings is not None:
            ids = self._pick(sample, self.ids_key, ("input_ids",)) if isinstance(sample, dict) or self.ids_key is not None else None
            if ids is not None:
                from ._check import check

                yield check("embedding", input=ids, num_embeddings=int(self.num_embeddings))

    def verify(self, sample: Any, where: str) -> None:
        for report in self.reports(sample):
            if report.raises:
                raise TargetError(report, where)


# Where a dataset keeps its files, in a list indexed like the dataset, mask lists first (the
# guard checks targets): torchvision's VOCSegmentation (`masks`), Cityscapes (`targets`, a list
# of paths per sample), ImageFolder (`samples`, `imgs`), and common names of custom datasets.
# docs/guide/python.md lists them.
_FILE_LISTS = ("masks", "targets", "mask_files", "label_files", "samples", "imgs", "files", "images", "paths")
# The keys of a dict sample that name its file (mmseg's `seg_map_path` among them).
_FILE_KEYS = ("path", "file", "filename", "mask_path", "seg_map_path", "label_path")


def _source(dataset: Any, index: int) -> str:
    """The file behind a dataset index, when the dataset says: its `source(index)` method, else
    a file list of `_FILE_LISTS`."""
    method = getattr(dataset, "source", None)
    if callable(method):
        try:
            return f", file {method(index)}"
        except Exception:  # noqa: BLE001 - naming the file must never hide the real error
            pass
    for attr in _FILE_LISTS:
        seq = getattr(dataset, attr, None)
        try:
            item = seq[index] if seq is not None else None
        except Exception:  # noqa: BLE001 - a guess at a convention, never an error
            continue
        if isinstance(item, (tuple, list)) and item:
            item = item[0]
        if isinstance(item, str) or hasattr(item, "__fspath__"):
            return f", file {item}"
    return ""


class GuardedDataset:
    """Wraps a Dataset; each sample is checked when it is loaded (in the DataLoader worker).

    ``GuardedDataset(ds, num_classes=19, ignore_index=255)`` raises TargetError naming the
    dataset index and the file of a bad sample, when the dataset can say which: a ``source(index)``
    method, or a file list indexed like the dataset (``masks``, ``targets``, ``samples``, ...).
    """

    def __init__(self, dataset: Any, **contract: Any):
        self.dataset = dataset
        self.contract = _Contract(**contract)

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> Any:
        sample = self.dataset[index]
        self.contract.verify(sample, f" (dataset index {index}{_source(self.dataset, index)})")
        return sample

    def __getattr__(self, name: str) -> Any:
        return getattr(self.dataset, name)


def guard_collate(collate_fn: Optional[Callable] = None, **contract: Any) -> Callable:
    """A collate_fn that checks every sample of a batch, in the worker, before collating.

    ``DataLoader(ds, collate_fn=labelguard.guard_collate(num_classes=19, ignore_index=255))``.
    The error names the sample's position in the batch, and its dataset index and file when
    the sample is a dict with an 'index'/'idx' and a 'path'/'file'/'filename'/'mask_path'/
    'seg_map_path'/'label_path' entry.
    """
    checker = _Contract(**contract)
    if collate_fn is None:
        from torch.utils.data import default_collate as collate_fn  # type: ignore[no-redef]

    def labelguard_collate(batch: Sequence[Any]) -> Any:
        for position, sample in enumerate(batch):
            where = f" (sample {position} of the batch"
            if isinstance(sample, dict):
                for k in ("index", "idx"):
                    if k in sample:
                        where += f", dataset index {int(sample[k])}"
                for k in _FILE_KEYS:
                    if k in sample:
                        where += f", file {sample[k]}"
                        break
            checker.verify(sample, where + ")")
        return collate_fn(batch)

    return labelguard_collate


