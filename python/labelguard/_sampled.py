"""Which dataset samples made each batch: the index lists that DataLoader iterators draw, recorded
while a trainer callback's run is open.

A trainer's loop prefetches (Lightning's data fetcher, accelerate's `DataLoaderShard`, the Hugging
Face Trainer's gradient-accumulation groups, DataLoader workers), and it creates the loader's
iterator before any callback hook of the epoch runs, so neither "the last indices drawn" nor a
hook on the sampler after the fact gives the batch in training. Every index list a DataLoader
iterator sends to its fetcher or workers goes through `_BaseDataLoaderIter._next_index` (torch's
own, single-process and multi-worker alike), in order: while recording, it also appends what it
returns to the current pass of that iterator's dataset (a new sampler iterator: a new pass, the
next epoch), and the batch in training is looked up by its position in the pass (`indices`).
Indices are kept as one int64 array per pass (8 bytes a sample). An IterableDataset has no
indices: nothing is recorded for it, and `indices` is None.
"""

from __future__ import annotations

import sys
from array import array
from typing import Any, Dict, List, Optional, Tuple

#: id(dataset) -> (the dataset, its current sampler iterator, indices flat, where each batch starts)
_PASSES: Dict[int, Tuple[Any, Any, array, array]] = {}
_USERS: List[object] = []
_ORIGINAL: List[Any] = []


def _iterator_class() -> Any:
    return sys.modules["torch.utils.data.dataloader"]._BaseDataLoaderIter


def _recording_next_index(self: Any) -> Any:
    drawn = _ORIGINAL[0](self)
    dataset = getattr(self, "_dataset", None)
    key = id(dataset)
    entry = _PASSES.get(key)
    if entry is None or entry[1] is not self._sampler_iter:
        entry = (dataset, self._sampler_iter, array("q"), array("q"))
        _PASSES[key] = entry
    flat, starts = entry[2], entry[3]
    try:
        values = drawn.tolist() if hasattr(drawn, "tolist") else drawn
        values = [int(i) for i in values] if isinstance(values, (list, tuple)) else [int(values)]
    except (TypeError, ValueError):  # not indices (an IterableDataset's placeholder)
        _PASSES.pop(key, None)
        return drawn
    starts.append(len(flat))
    flat.extend(values)
    return drawn


def start(user: object) -> None:
    """Records from now until every `user` has called `stop`."""
    if not _USERS:
        cls = _iterator_class()
        _ORIGINAL[:] = [cls._next_index]
        cls._next_index = _recording_next_index
    _USERS.append(user)


def stop(user: object) -> None:
    if user in _USERS:
        _USERS.remove(user)
    if not _USERS and _ORIGINAL:
        _iterator_class()._next_index = _ORIGINAL.pop()
        _PASSES.clear()


def indices(dataset: Any, position: Optional[int]) -> Optional[List[int]]:
    """The dataset indices of the `position`-th batch of the current pass over `dataset`, None
    when they are not known."""
    entry = _PASSES.get(id(dataset))
    if entry is None or entry[0] is not dataset or position is None:
        return None
    flat, starts = entry[2], entry[3]
    if not 0 <= position < len(starts):
        return None
    end = starts[position + 1] if position + 1 < len(starts) else len(flat)
    return flat[starts[position] : end].tolist()
