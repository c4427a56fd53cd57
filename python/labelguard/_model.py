"""`check_model(model, tokenizer)`: a tokenizer checked against its model (LG809-LG813).

The model is described as the command line describes a saved model directory: the live
config goes through the same parser as `config.json` (`labelguard_model::read_config`), and
the numbers that only a live object knows replace the config's: the input embedding's rows,
the output head's, and the tokenizer's size, special tokens and pad token.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Tuple

from . import _native
from ._report import Report, report_or_raise

# transformers' "no limit" for `model_max_length` (VERY_LARGE_INTEGER, 1e30).
_NO_LIMIT = 10**15


def model_spec(model: Any, tokenizer: Any = None) -> Dict[str, Any]:
    """The model's description (labelguard's `ModelSpec`) as a dict: vocab size, embedding and
    head rows, positions, special ids, image tokens and the tokenizer's size and special ids.

    `model` is a transformers model (its config and its live tables are read) or the path of a
    saved model directory (read offline, as `labelguard scan DIR` does); `tokenizer`, when
    given, replaces the tokenizer found in the directory.
    """
    if isinstance(model, (str, os.PathLike)):
        spec = json.loads(_native.read_model_dir(os.fspath(model)))
    else:
        spec = _live_model(model)
    if tokenizer is not None:
        spec["tokenizer"] = _live_tokenizer(tokenizer)
    return spec


def check_model(model: Any, tokenizer: Any = None, labels: Any = None) -> Report:
    """Checks a tokenizer against its model before training: ids the tokenizer emits beyond the
    embedding table (LG809; tokens added without `resize_token_embeddings`), special token ids
    beyond it (LG810), no pad token (LG811, a warning), an `lm_head` smaller than the vocabulary
    or, with `labels`, a label beyond a classification head's `num_labels` (LG812).

    Raises TargetError when training would hit a device-side assert; returns the Report.
    """
    spec = model_spec(model, tokenizer)
    values = None if labels is None else _label_values(labels)
    report = Report.from_json(_native.check_model(json.dumps(spec), values))
    return report_or_raise(report)


def check_head(source: str, head_rows: int, classes: int) -> Report:
    """A classification head of `head_rows` outputs (named `source`) against the `classes`
    that the data declares (ids 0..classes-1): LG812 when a class is beyond the head. Only the
    head is checked (a module without a config has no vocabulary to check: LG813 is left out)."""
    spec = json.loads(_native.model_spec_of_config(json.dumps({"num_labels": int(head_rows)}), source))
    spec["source"] = source
    report = Report.from_json(_native.check_model(json.dumps(spec), list(range(int(classes)))))
    head = tuple(f for f in report.findings if f.code == "LG812")
    return report_or_raise(Report(report.op, report.verdict if head else "ok", head), where=" (labelguard, the head)", context=source)


def _live_model(model: Any) -> Dict[str, Any]:
    config = model.config
    name = type(model).__name__
    spec = json.loads(_native.model_spec_of_config(json.dumps(config.to_dict(), default=str), f"{name}.config"))
    spec["source"] = name
    spec["architecture"] = name
    if "Classification" not in name:
        spec["num_labels"] = None  # the config's default id2label; no classification head
    embedding = model.get_input_embeddings()
    rows = _rows(embedding)
    if rows is not None:
        spec["embedding_rows"] = rows
        spec["embedding_source"] = f"{name}.get_input_embeddings()"
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    head_rows = _rows(head)
    if head_rows is not None:
        spec["head_rows"] = head_rows
    return spec


def _rows(module: Any) -> Optional[int]:
    """The rows of an embedding or linear head (`num_embeddings`, `out_features`, the weight's
    first dimension), None for a module without one."""
    if module is None:
        return None
    for attr in ("num_embeddings", "out_features"):
        value = getattr(module, attr, None)
        if isinstance(value, int):
            return value
    weight = getattr(module, "weight", None)
    shape = getattr(weight, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) >= 1 else None


def _live_tokenizer(tokenizer: Any) -> Dict[str, Any]:
    length = len(tokenizer)
    vocab = tokenizer.get_vocab()
    max_id = max([length - 1, *vocab.values()]) if vocab else length - 1
    decoder = getattr(tokenizer, "added_tokens_decoder", {}) or {}
    special: List[Tuple[str, int]] = [(str(t), int(i)) for i, t in decoder.items() if getattr(t, "special", False)]
    added: List[Tuple[str, int]] = [(str(t), int(i)) for i, t in decoder.items() if not getattr(t, "special", False)]
    ids = list(getattr(tokenizer, "all_special_ids", []) or [])
    tokens = tokenizer.convert_ids_to_tokens(ids) if ids else []
    special.extend((str(t), int(i)) for t, i in zip(tokens, ids))
    special = sorted(set(special), key=lambda x: (x[1], x[0]))
    added = sorted(set(added) - set(special), key=lambda x: x[1])
    max_length = getattr(tokenizer, "model_max_length", None)
    pad = getattr(tokenizer, "pad_token_id", None)
    return {
        "source": type(tokenizer).__name__,
        "len": length,
        "max_id": max(max_id, *(i for _, i in special + added)) if special or added else max_id,
        "special_tokens": special,
        "added_tokens": added,
        "pad_token_id": pad,
        "model_max_length": int(max_length) if isinstance(max_length, (int, float)) and 1 <= max_length < _NO_LIMIT else None,
    }


def _label_values(labels: Any) -> List[int]:
    """Every label as a Python int, from a tensor (any device), an array or an iterable."""
    if hasattr(labels, "detach"):
        labels = labels.detach().cpu()
    if hasattr(labels, "reshape") and hasattr(labels, "tolist"):
        return [int(v) for v in labels.reshape(-1).tolist()]
    return [int(v) for v in _flatten(labels)]


def _flatten(items: Iterable[Any]) -> Iterable[Any]:
    for v in items:
        if isinstance(v, (list, tuple)):
            yield from _flatten(v)
        else:
            yield v
