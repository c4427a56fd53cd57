"""Wrappers for advanced indexing and its relatives: `x[idx]`, `x[idx] = v`, `index_put_`,
`take`, `put_`, `take_along_dim`, `index_add`/`index_copy`/`index_fill`, `scatter_reduce`,
`F.embedding_bag`.

`Tensor.__getitem__` and `__setitem__` run on every slice of every training step, so they decide
from the type of the key before any other work: ints, slices, `...`, None, lists and anything
without a tensor in it go straight to PyTorch. Only a key holding a tensor is checked.

The checks read only the shapes and dtypes of the indexed tensor and of the values written: they
are passed as zero-stride views of one element (`_shape_only`), never copied or reduced on the
device. The index tensors themselves are read (on CUDA: their min and max, one synchronisation).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _compiled, _native
from ._guard import binding, check_or_raise, config, state
from ._tensors import plain_tensor_types, shape_view
from ._tensors import readable as _readable

# (module path, attribute, op): where each wrapped function lives.
TARGETS: List[Tuple[str, str, str]] = [
    ("torch.Tensor", "__getitem__", "index"),
    ("torch.Tensor", "__setitem__", "index_put"),
    ("torch.Tensor", "index_put_", "index_put"),
    ("torch.Tensor", "index_put", "index_put"),
    ("torch", "index_put", "index_put"),
    ("torch", "take", "take"),
    ("torch.Tensor", "take", "take"),
    ("torch.Tensor", "put_", "put"),
    ("torch.Tensor", "put", "put"),
    ("torch", "take_along_dim", "take_along_dim"),
    ("torch.Tensor", "take_along_dim", "take_along_dim"),
    ("torch", "index_add", "index_add"),
    ("torch.Tensor", "index_add", "index_add"),
    ("torch.Tensor", "index_add_", "index_add"),
    ("torch", "index_copy", "index_copy"),
    ("torch.Tensor", "index_copy", "index_copy"),
    ("torch.Tensor", "index_copy_", "index_copy"),
    ("torch", "index_fill", "index_fill"),
    ("torch.Tensor", "index_fill", "index_fill"),
    ("torch.Tensor", "index_fill_", "index_fill"),
    ("torch", "scatter_reduce", "scatter_reduce"),
    ("torch.Tensor", "scatter_reduce", "scatter_reduce"),
    ("torch.Tensor", "scatter_reduce_", "scatter_reduce"),
    ("torch.nn.functional", "embedding_bag", "embedding_bag"),
]
OPS = sorted({op for _, _, op in TARGETS})

def _torch():
    return sys.modules["torch"]


def _shape_only(t: Any) -> Any:
    """A host view with t's shape and dtype (float32 for a dtype the core does not read) whose
    one element is never read."""
    return shape_view(t.dtype, t.shape)


_MASK_DTYPES: Tuple[Any, ...] = ()  # (torch.bool, torch.uint8), set by wrap()
_LONG_DTYPES: Tuple[Any, ...] = ()  # (torch.int64, torch.int32), set by wrap()
_PLAIN_TENSORS: Tuple[type, ...] = ()  # torch.Tensor, nn.Parameter, ..., set by wrap()


def _is_mask(t: Any) -> bool:
    return t.dtype in _MASK_DTYPES


def _plan(x: Any, key: Any, getter: Callable, real_masks: bool) -> Optional[Dict[str, Any]]:
    """The check() arguments of `x[key]`: the indexed tensor after the basic part of the key
    (ints, slices, None, ...), the index tensors and the dims where they start. None when the
    key holds something labelguard does not judge (lists, arrays, bools): PyTorch decides."""
    torch = _torch()
    if type(key) is not tuple:
        if type(key) in _PLAIN_TENSORS and x.dim() >= 1 and key.dim() >= 1 and key.dtype in _LONG_DTYPES:
            return {"input": _shape_only(x), "dims": [0], "index": key}  # x[ids]: the common case
        key = (key,)
    consumed = 0
    if any(isinstance(k, torch.Tensor) and ((k.dim() == 0 and not _is_mask(k)) or not _readable(k.dtype)) for k in key):
        return None  # PyTorch reads 0-d integer tensors as Python ints and checks them itself
    for k in key:
        if isinstance(k, torch.Tensor):
            consumed += k.dim() if _is_mask(k) else 1
        elif k is None or k is Ellipsis:
            pass
        elif type(k) is int or type(k) is slice:
            consumed += 1
        else:
            return None
    if consumed > x.dim():
        return None  # PyTorch raises "too many indices" itself, on the host
    basic: List[Any] = []
    tensors: List[Any] = []
    dims: List[int] = []
    cursor = 0
    whole = True  # the basic part keeps every dimension whole: the view is x's shape
    ellipses = 0
    for k in key:
        if isinstance(k, torch.Tensor):
            width = k.dim() if _is_mask(k) else 1
            basic.extend([_ALL] * width)
            tensors.append(k)
            dims.append(cursor)
            cursor += width
        elif k is Ellipsis:
            basic.append(k)
            cursor += x.dim() - consumed
            ellipses += 1
        elif k is None or type(k) is slice:
            basic.append(k)
            cursor += 1
            whole = whole and k == _ALL
        else:
            basic.append(k)  # an int removes its dimension
            whole = False
    if len(tensors) > 8:
        return None
    if whole and ellipses <= 1:
        view = _shape_only(x)
    else:
        try:
            view = getter(_shape_only(x), tuple(basic))
        except (IndexError, RuntimeError, TypeError):
            return None  # a bad int or slice: PyTorch raises its own error
    call: Dict[str, Any] = {"input": view, "dims": dims}
    for i, t in enumerate(tensors):
        if _is_mask(t) and not real_masks and len(tensors) == 1:
            t = _shape_only(t)  # a lone mask is checked by its shape; its values never matter
        call["index" if i == 0 else f"index{i}"] = t
    return call


_ALL = slice(None)


def _binding(op: str) -> Any:
    """`x[key]` as `op(input, index)` for `_native.valid_index`, which reads `x` by shape and
    dtype only and takes one int64/int32 index tensor: the common `weights[labels]`."""
    return binding(op, [("input", "unread"), ("index", "keep")], 2, 2)


#: `x[idx]`'s entry in `_compiled.CHECKERS`, and the roles of its two arguments there: the
#: indexed tensor by shape, the index by value. A tuple key (`x[rows, labels]`, `x[..., ids]`)
#: goes to the op spread out, `(x, *key)`, every tensor of it by value; its checker rebuilds it.
_GETITEM_KEY = "torch.Tensor.__getitem__"
_GETITEM_ROLES: Dict[Any, str] = {0: "", 1: "read"}
_KEY_ROLES: Dict[Any, str] = {0: "", **{i: "read" for i in range(1, 65)}}


def _spread(judge: Callable, tail: int) -> Callable:
    """The checker of a call whose tuple key was spread out (`(x, *key)`, then `tail` more
    arguments): `judge` gets the call as the user wrote it."""

    def rebuilt(args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: Any = None) -> None:
        end = len(args) - tail
        judge((args[0], tuple(args[1:end]), *args[end:]), kwargs, traced)

    return rebuilt


def _replay_spread(key: str, original: Callable, x: Any, index: tuple, rest: Tuple[Any, ...], roles: Dict[Any, str]) -> Any:
    """`x[index]` (with `rest`: the value of `x[index] = v`) replayed with its tuple key spread
    out, so that each tensor of the key reaches the check in the graph."""
    n = len(index)
    return _compiled.replay(key, roles, lambda x, *a: original(x, tuple(a[:n]), *a[n:]), (x, *index, *rest), {})


def _wrap_getitem(original: Callable, is_compiling: Callable[[], bool]) -> Callable:
    tensor = _torch().Tensor
    native, valid_index = _binding("index"), _native.valid_index
    where = " (labelguard, Tensor.__getitem__)"

    def judge(args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: Any = None) -> None:
        self, key = args
        call = _plan(self, key, original, real_masks=False)
        if call is not None:
            check_or_raise("index", call, where, traced)

    _compiled.CHECKERS[_GETITEM_KEY] = judge
    _compiled.CHECKERS[_GETITEM_KEY + "(spread)"] = _spread(judge, 0)

    def labelguard_getitem(self, key):
        # The fast path, inlined: a key without a tensor goes straight to PyTorch.
        if type(key) is tuple:
            for k in key:
                if isinstance(k, tensor):
                    break
            else:
                return original(self, key)
        elif not isinstance(key, tensor):
            return original(self, key)
        if config["active"] and not state.depth:
            if not is_compiling():
                # One index tensor: the native test decides a valid call; the rest, the general path.
                if type(key) is tuple or not valid_index(native, self, key):
                    judge((self, key), {})
            elif _compiled.replaying():
                # Dynamo traces `x[idx]` itself; AOTAutograd's replay of its node comes here.
                if type(key) is tuple:
                    return _replay_spread(_GETITEM_KEY + "(spread)", original, self, key, (), _KEY_ROLES)
                return _compiled.replay(_GETITEM_KEY, _GETITEM_ROLES, original, (self, key), {})
        return original(self, key)

    return labelguard_getitem


_SETITEM_KEY = "torch.Tensor.__setitem__"
_SETITEM_ROLES: Dict[Any, str] = {0: "", 1: "read", 2: ""}


def _wrap_setitem(original: Callable, getter: Callable, is_compiling: Callable[[], bool]) -> Callable:
    torch = _torch()
    tensor = torch.Tensor
    native, valid_index = _binding("index_put"), _native.valid_index

    def judge(args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: Any = None) -> None:
        self, key, value = args
        is_tensor = isinstance(value, tensor)
        if not is_tensor and type(key) is not tuple and valid_index(native, self, key):
            return  # `x[ids] = number`, valid
        call = _plan(self, key, getter, real_masks=is_tensor and value.numel() > 1)
        masks = [k for k in (key if type(key) is tuple else (key,)) if isinstance(k, tensor)]
        # One mask and one value: PyTorch takes masked_fill, which casts any dtype.
        masked_fill = len(masks) == 1 and _is_mask(masks[0]) and (not is_tensor or value.numel() == 1)
        if call is not None and is_tensor and not masked_fill and _readable(self.dtype) and _readable(value.dtype):
            # index_put_ with the value's leading 1-sized dimensions dropped.
            shape = list(value.shape)
            while shape and shape[0] == 1:
                shape.pop(0)
            call["values"] = torch.empty((), dtype=value.dtype).expand(shape)
        if call is not None:
            check_or_raise("index_put", call, " (labelguard, Tensor.__setitem__)", traced)

    _compiled.CHECKERS[_SETITEM_KEY] = judge
    _compiled.CHECKERS[_SETITEM_KEY + "(spread)"] = _spread(judge, 1)

    def labelguard_setitem(self, key, value):
        if type(key) is tuple:
            for k in key:
                if isinstance(k, tensor):
                    break
            else:
                return original(self, key, value)
        elif not isinstance(key, tensor):
            return original(self, key, value)
        if config["active"] and not state.depth:
            if not is_compiling():
                judge((self, key, value), {})
            elif _compiled.replaying():
                # Dynamo traces `x[idx] = v` itself; AOTAutograd's replay of its node comes here.
                if type(key) is tuple:
                    roles = {**_KEY_ROLES, len(key) + 1: ""}  # the value by shape
                    return _replay_spread(_SETITEM_KEY + "(spread)", original, self, key, (value,), roles)
                return _compiled.replay(_SETITEM_KEY, _SETITEM_ROLES, original, (self, key, value), {})
        return original(self, key, value)

    return labelguard_setitem


def _index_put(self, indices, values, accumulate=False):
    torch = _torch()
    if type(indices) not in (tuple, list) or not all(isinstance(t, torch.Tensor) for t in indices) or not 0 < len(indices) <= 8:
        return None
    call: Dict[str, Any] = {"input": _shape_only(self), "accumulate": bool(accumulate)}
    for i, t in enumerate(indices):
        call["index" if i == 0 else f"index{i}"] = t
    if isinstance(values, torch.Tensor) and _readable(self.dtype) and _readable(values.dtype):
        call["values"] = _shape_only(values)
    return call


def _take(input, index):
    return dict(input=_shape_only(input), index=index)


def _put(input, index, source, accumulate=False):
    return dict(input=_shape_only(input), index=index, source=_shape_only(source), accumulate=bool(accumulate))


def _take_along_dim(input, indices, dim=None, *, out=None):
    return dict(input=_shape_only(input), indices=indices, dim=dim)


def _index_add(input, dim, index, source, *, alpha=1, out=None):
    return dict(input=_shape_only(input), dim=dim, index=index, source=_shape_only(source))


def _index_copy(input, dim, index, source, *, out=None):
    return dict(input=_shape_only(input), dim=dim, index=index, source=_shape_only(source))


def _index_fill(input, dim, index, value):
    return dict(input=_shape_only(input), dim=dim, index=index)


def _scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    return dict(input=_shape_only(input), dim=dim, index=index, src=_shape_only(src), reduce=reduce, include_self=bool(include_self))


def _embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    call = dict(input=input, weight=_shape_only(weight), mode=mode, include_last_offset=bool(include_last_offset), padding_idx=padding_idx)
    if offsets is not None:
        call["offsets"] = offsets
    if per_sample_weights is not None:
        call["per_sample_weights"] = _shape_only(per_sample_weights)
    return call


# op -> how a call's arguments become check() arguments (Python binds them: no inspect).
_BINDERS: Dict[str, Callable[..., Optional[Dict[str, Any]]]] = {
    "index_put": _index_put,
    "take": _take,
    "put": _put,
    "take_along_dim": _take_along_dim,
    "index_add": _index_add,
    "index_copy": _index_copy,
    "index_fill": _index_fill,
    "scatter_reduce": _scatter_reduce,
    "embedding_bag": _embedding_bag,
}


#: The parameters of each op above whose values its check reads (the index tensors); a compiled
#: call passes the other tensors to the in-graph check by their shapes.
_READS: Dict[str, Tuple[str, ...]] = {
    "index_put": ("indices",), "take": ("index",), "put": ("index",), "take_along_dim": ("indices",),
    "index_add": ("index",), "index_copy": ("index",), "index_fill": ("index",), "scatter_reduce": ("index",),
    "embedding_bag": ("input", "offsets"),
}
_UNUSED = ("max_norm", "norm_type", "scale_grad_by_freq", "sparse", "out", "alpha")


def _in_graph_roles(op: str) -> Dict[Any, str]:
    """`_compiled.in_graph`'s roles of the binder's parameters, by position and by name."""
    import inspect

    names = list(inspect.signature(_BINDERS[op]).parameters)
    roles = {n: "read" if n in _READS[op] else "drop" if n in _UNUSED else "" for n in names}
    return {**{i: roles[n] for i, n in enumerate(names)}, **roles}


def _wrap_function(op: str, original: Callable, is_compiling: Callable[[], bool], key: str) -> Callable:
    binder = _BINDERS[op]
    tensor = _torch().Tensor
    name = getattr(original, "__qualname__", op)
    where = f" (labelguard, {name})"
    in_graph, tracing, roles = _compiled.in_graph, _compiled.dynamo_test(), _in_graph_roles(op)

    def judge(args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: Any = None) -> None:
        try:
            call = binder(*args, **kwargs)
        except (TypeError, AttributeError):
            call = None  # PyTorch reports its own signature errors
        if call is not None and all(_readable(v.dtype) if isinstance(v, tensor) else not hasattr(v, "shape") for v in call.values()):
            check_or_raise(op, {k: v for k, v in call.items() if v is not None or k == "padding_idx"}, where, traced)

    _compiled.CHECKERS[key] = judge

    def labelguard_checked(*args, **kwargs):
        if config["active"] and not state.depth:
            if not is_compiling():
                judge(args, kwargs)
            elif tracing():
                args, kwargs = in_graph(key, roles, args, kwargs)
            elif _compiled.replaying():
                return _compiled.replay(key, roles, original, args, kwargs)
        return original(*args, **kwargs)

    labelguard_checked.__labelguard_original__ = original  # type: ignore[attr-defined]
    labelguard_checked.__name__ = getattr(original, "__name__", op)
    labelguard_checked.__doc__ = getattr(original, "__doc__", None)
    return labelguard_checked


def wrap(attr: str, op: str, original: Callable, is_compiling: Callable[[], bool], key: str = "") -> Callable:
    """The checked version of `original`, the function `attr` of TARGETS (op is its op);
    `is_compiling` is torch.compiler.is_compiling (or a function that answers False); `key`
    names the wrapper for its in-graph check. Dynamo traces `x[idx]` and `x[idx] = v` itself,
    without calling `Tensor.__getitem__`: their wrappers are for eager code."""
    global _MASK_DTYPES, _LONG_DTYPES, _PLAIN_TENSORS
    torch = _torch()
    _MASK_DTYPES, _LONG_DTYPES = (torch.bool, torch.uint8), (torch.int64, torch.int32)
    _PLAIN_TENSORS = plain_tensor_types()
    if attr == "__getitem__":
        return _wrap_getitem(original, is_compiling)
    if attr == "__setitem__":
        return _wrap_setitem(original, _torch().Tensor.__getitem__, is_compiling)
    return _wrap_function(op, original, is_compiling, key)
