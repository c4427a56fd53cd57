"""What `labelguard.scan` hands the command: paths for a source and for a model.

A `datasets.Dataset` is read in place from its Arrow cache files when they hold exactly its rows
and columns (no indices mapping from `select`/`shuffle`, no in-memory `rename_column`, slice or
cast): its `save_to_disk` folder when the dataset is that folder's, else a temporary folder of
links to the cache files with the `state.json` that lists them in row order (the layout the
scan's `hfdataset` reader knows, `datasets` arrow_dataset.py `save_to_disk`). Any other dataset
(in memory, or transformed in memory) is first saved with `save_to_disk` into the temporary
folder: a copy, since its rows are not on disk as they are seen.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional

#: Table operations `datasets` replays on a memory-mapped table that leave its rows and columns as
#: the file holds them.
_HARMLESS_REPLAYS = frozenset({"replace_schema_metadata"})
_STATE, _DICT = "state.json", "dataset_dict.json"


def dataset_paths(source: Any, tmp: str) -> List[str]:
    """The paths `scan` takes for `source`: a path, a list of paths, a Dataset or a DatasetDict."""
    from ._scan import ScanError

    if isinstance(source, (str, os.PathLike)):
        return [os.fspath(source)]
    if isinstance(source, (list, tuple)) and source and all(isinstance(p, (str, os.PathLike)) for p in source):
        return [os.fspath(p) for p in source]
    kind = _datasets_kind(source)
    if kind == "Dataset":
        return [_dataset_folder(source, tmp, "dataset")]
    if kind == "DatasetDict":
        return [_dict_folder(source, tmp)]
    if kind is not None:
        raise ScanError(
            f"labelguard.scan: a datasets.{kind} has no files to read; scan the Dataset it streams from, "
            "or materialise it (Dataset.from_generator) first"
        )
    raise ScanError(
        f"labelguard.scan: cannot scan a {type(source).__name__}: give a path, a list of paths, "
        "a datasets.Dataset or a datasets.DatasetDict"
    )


def model_dir(model: Any, tmp: str) -> str:
    """A model directory for `--model`: a path as given; a transformers model's config written as
    `config.json` (the numbers the scan checks against: vocabulary, positions, labels, image tokens)."""
    from ._scan import ScanError

    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    config = getattr(model, "config", None)
    if config is None or not hasattr(config, "to_dict"):
        raise ScanError(
            f"labelguard.scan: model= takes a model directory or a transformers model (its .config is read); "
            f"a {type(model).__name__} has no config: give num_classes= instead"
        )
    folder = os.path.join(tmp, "model")
    os.makedirs(folder)
    values = config.to_dict()
    if not values.get("architectures"):
        # What `save_pretrained` records: the class, which says what a `labels` column holds
        # (token ids for a language model, class ids for a classification head).
        values["architectures"] = [type(model).__name__]
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        json.dump(values, f, default=str, indent=2)
    return folder


def _datasets_kind(source: Any) -> Optional[str]:
    """'Dataset', 'DatasetDict', 'IterableDataset', ... for an object of the `datasets` library."""
    for cls in type(source).__mro__:
        if cls.__module__.split(".")[0] == "datasets" and cls.__name__ in (
            "Dataset", "DatasetDict", "IterableDataset", "IterableDatasetDict",
        ):
            return cls.__name__
    return None


def _files_in_place(ds: Any) -> Optional[List[str]]:
    """The Arrow files that hold exactly `ds`'s rows and columns, in row order; None when they do not."""
    if getattr(ds, "_indices", None) is not None:
        return None
    table = ds.data
    rows = getattr(table, "blocks", None) or [[table]]
    files = []
    for row in rows:
        if len(row) != 1:
            return None  # columns concatenated side by side: no one file holds a row
        t = row[0]
        path, replays = getattr(t, "path", None), getattr(t, "replays", None)
        if path is None or replays is None or any(r[0] not in _HARMLESS_REPLAYS for r in replays):
            return None
        files.append(path)
    return files or None


def _shards_of(folder: str) -> Optional[List[str]]:
    try:
        with open(os.path.join(folder, _STATE), encoding="utf-8") as f:
            return [os.path.join(folder, d["filename"]) for d in json.load(f)["_data_files"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _saved_folder(ds: Any) -> Optional[str]:
    """The `save_to_disk` folder whose `state.json` lists exactly `ds`'s files, if there is one."""
    files = _files_in_place(ds)
    if not files:
        return None
    folder = os.path.dirname(files[0])
    shards = _shards_of(folder)
    same = shards is not None and [os.path.realpath(p) for p in shards] == [os.path.realpath(p) for p in files]
    return folder if same else None


def _dataset_folder(ds: Any, tmp: str, name: str, own: bool = True) -> str:
    """A folder the scan reads as `ds`: its own (when `own`), else `tmp/name` holding links to
    its files or a saved copy."""
    folder = _saved_folder(ds) if own else None
    if folder is not None:
        return folder
    folder = os.path.join(tmp, name)
    files = _files_in_place(ds)
    if files is not None and _link_view(files, folder, ds):
        return folder
    ds.save_to_disk(folder)
    return folder


def _link_view(files: List[str], folder: str, ds: Any) -> bool:
    """A folder of links to `files` with the `state.json` that lists them; False where links cannot be made."""
    os.makedirs(folder, exist_ok=True)
    names = [f"data-{i:05d}-of-{len(files):05d}.arrow" for i in range(len(files))]
    try:
        for src, n in zip(files, names):
            os.symlink(os.path.abspath(src), os.path.join(folder, n))
    except OSError:  # no symlinks (Windows without the privilege): a copy is saved instead
        for n in os.listdir(folder):
            os.remove(os.path.join(folder, n))
        return False
    split = getattr(ds, "split", None)
    state: Dict[str, Any] = {"_data_files": [{"filename": n} for n in names], "_split": None if split is None else str(split)}
    with open(os.path.join(folder, _STATE), "w", encoding="utf-8") as f:
        json.dump(state, f)
    return True


def _dict_folder(dd: Any, tmp: str) -> str:
    """A DatasetDict: its own `save_to_disk` folder when every split is read from it, else a
    temporary folder with one folder per split (as `DatasetDict.save_to_disk` lays them out)."""
    splits = list(dd.keys())
    own = [_saved_folder(dd[s]) for s in splits]
    parents = {os.path.dirname(f) for f in own if f is not None}
    if None not in own and len(parents) == 1 and all(os.path.basename(f) == s for f, s in zip(own, splits)):
        parent = parents.pop()
        try:
            with open(os.path.join(parent, _DICT), encoding="utf-8") as f:
                if list(json.load(f)["splits"]) == splits:
                    return parent
        except (OSError, ValueError, KeyError, TypeError):
            pass
    folder = os.path.join(tmp, "dataset")
    os.makedirs(folder)
    for s in splits:
        _dataset_folder(dd[s], folder, s, own=False)
    with open(os.path.join(folder, _DICT), "w", encoding="utf-8") as f:
        json.dump({"splits": splits}, f)
    return folder
