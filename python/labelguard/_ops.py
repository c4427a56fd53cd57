"""The op table, as the Python side reads it: one row per op, declared once in Rust
(crates/labelguard-core/src/ops/table.rs) and read here from the native module. `enable()`
builds every wrapper from it; `guarded_ops()` lists it.

Nothing here knows an op by name: what a wrapped call does with an argument is the row's `use`
of that parameter (`read`, `shape`, `finite`, `dropped`, ...).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from . import _native


class Params:
    """An op's parameters, bound without `inspect` (a wrapped call's hot path): the positional
    names in order (also accepted as keywords) and the keyword-only ones. `bind` gives what
    `inspect.Signature.bind(...).arguments` gives (defaults not filled in), or None where
    PyTorch would reject the call itself."""

    __slots__ = ("names", "known", "required")

    def __init__(self, names: Tuple[str, ...], keyword_only: Tuple[str, ...], required: int):
        self.names = names
        self.known = frozenset(names) | frozenset(keyword_only)
        self.required = required

    def bind(self, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        names = self.names
        if len(args) > len(names):
            return None
        bound = dict(zip(names, args))
        if kwargs:
            for k, v in kwargs.items():
                if k in bound or k not in self.known:
                    return None
                bound[k] = v
        if len(args) < self.required and any(n not in bound for n in names[: self.required]):
            return None
        return bound


class Op:
    """One row of the table: the op's PyTorch surface and its check's inputs."""

    __slots__ = ("name", "sites", "modules", "params", "uses", "kinds", "tensors", "tensor_only", "breaks_graph", "raises_on_values", "within", "_unread")

    def __init__(self, row: Dict[str, Any]):
        self.name: str = row["name"]
        self.sites: List[str] = row["sites"]
        self.modules: List[str] = row["modules"]
        self.breaks_graph: bool = row["breaks_graph"]
        self.raises_on_values: bool = row["raises_on_values"]
        params = row["params"]
        positional = tuple(p["name"] for p in params if not p["keyword_only"])
        required = 0
        while required < len(params) and params[required]["default"] is None and not params[required]["keyword_only"]:
            required += 1
        self.params = Params(positional, tuple(p["name"] for p in params if p["keyword_only"]), required)
        #: parameter -> its use: what a wrapped call does with the argument (see surface.rs)
        self.uses: Dict[str, str] = {p["name"]: p["use"] for p in params}
        #: parameter -> the values that never change the verdict, (lo, hi) (surface.rs `within`)
        self.within: Dict[str, Tuple[float, float]] = {p["name"]: tuple(p["within"]) for p in params if p.get("within")}
        #: the check's scalar arguments -> their kind (`bool`, `int_list`, ...)
        self.kinds: Dict[str, str] = dict(row["check"]["arguments"])
        #: the check's tensor names, in order (index_put's `indices` become index, index1, ...)
        self.tensors: List[str] = row["check"]["tensors"]
        #: the check's inputs that only a tensor can be (ctc_loss's lengths may be lists too)
        self.tensor_only = frozenset(self.tensors) - frozenset(self.kinds)
        by_shape = frozenset(n for n, u in self.uses.items() if u in ("shape", "scatter_src"))
        finite = frozenset(n for n, u in self.uses.items() if u == "finite")
        self._unread = (by_shape | finite, by_shape)

    def unread(self, finite: bool) -> FrozenSet[str]:
        """The parameters whose tensors the check reads by shape and dtype only."""
        return self._unread[1] if finite else self._unread[0]

    def in_graph_roles(self, finite: bool) -> Dict[Any, str]:
        """`_compiled.in_graph`'s roles, by position and by name: "read" for the arguments whose
        values the check reads (a compiled call passes these tensors to `labelguard::check`,
        the others by their shapes), "drop" for those it never looks at."""
        unread = self.unread(finite)

        def role(name: str) -> str:
            use = self.uses[name]
            if use in ("dropped", "legacy"):
                return "drop"
            return "" if name in unread or use == "table" else "read"

        return self._by_slot({n: role(n) for n in self.uses})

    def within_by_slot(self) -> Dict[Any, Tuple[float, float]]:
        """`within`, by position and by name, as a compiled call's spec holds its arguments."""
        return self._by_slot(self.within)

    def indexes_by_slot(self) -> FrozenSet[Any]:
        """The parameters that take a list of index tensors (use "indices"), by position and by
        name, as a compiled call's spec holds its arguments."""
        return frozenset(self._by_slot({n: True for n, u in self.uses.items() if u == "indices"}))

    def _by_slot(self, by_name: Dict[str, Any]) -> Dict[Any, Any]:
        """A per-parameter dict keyed by name and by position too (a call's positional slots)."""
        by = dict(by_name)
        by.update((i, by_name[n]) for i, n in enumerate(self.params.names) if n in by_name)
        return by


def _load() -> Tuple[List[Dict[str, Any]], Dict[str, Op]]:
    rows = json.loads(_native.op_table())
    return rows, {row["name"]: Op(row) for row in rows}


_ROWS, OPS = _load()

#: The check's names of the index tensors of advanced indexing (`x[i, j]` -> index, index1).
INDEX_NAMES = tuple(t for t in OPS["index"].tensors if t.startswith("index"))


def guarded_ops() -> List[Dict[str, Any]]:
    """Every op that labelguard checks, as `labelguard ops --format json` lists it: its name,
    its signature, where PyTorch exposes it (`sites`: what `enable()` wraps), the `torch.nn`
    modules whose forward is the op, PyTorch's parameters with what a check does with each,
    the check's own inputs, and the kernel names `diagnose` knows it by."""
    return copy.deepcopy(_ROWS)
