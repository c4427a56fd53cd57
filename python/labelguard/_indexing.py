"""Wrappers for the indexing syntax: `x[idx]` and `x[idx] = v` (the ops `index` and
`index_put`), bound by their key. (Every other site, `index_put_` and `take` among them, is
bound by its op's parameters in `_enable.py`.)

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
from ._guard import binding, check_or_raise, config, count_call, state
from ._ops import INDEX_NAMES
from ._report import TargetError
from ._tensors import plain_tensor_types, shape_view
from ._tensors import readable as _readable
from ._userframe import ending, hide_refusals

#: pytest leaves this module's frames out of its report of a refusal (`_userframe.hide_refusals`).
__tracebackhide__ = hide_refusals

#: The sites bound by their key, not by the op's parameters.
KEY_SITES = ("__getitem__", "__setitem__")

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
    for name, t in zip(INDEX_NAMES, tensors):
        if _is_mask(t) and not real_masks and len(tensors) == 1:
            t = _shape_only(t)  # a lone mask is checked by its shape; its values never matter
        call[name] = t
    return call


_ALL = slice(None)


def _binding(op: str) -> Any:
    """`x[key]` as `op(input, index)` for `_native.valid_index`, which reads `x` by shape and
    dtype only and takes one int64/int32 index tensor: the common `weights[labels]`."""
    return binding(op, False)


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
                count_call()
                # One index tensor: the native test decides a valid call; the rest, the general path.
                if type(key) is tuple or not valid_index(native, self, key):
                    try:
                        judge((self, key), {})
                    except TargetError as err:
                        raise ending(err) from None  # the last frame: the user's line
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
                count_call()
                try:
                    judge((self, key, value), {})
                except TargetError as err:
                    raise ending(err) from None
            elif _compiled.replaying():
                # Dynamo traces `x[idx] = v` itself; AOTAutograd's replay of its node comes here.
                if type(key) is tuple:
                    roles = {**_KEY_ROLES, len(key) + 1: ""}  # the value by shape
                    return _replay_spread(_SETITEM_KEY + "(spread)", original, self, key, (value,), roles)
                return _compiled.replay(_SETITEM_KEY, _SETITEM_ROLES, original, (self, key, value), {})
        return original(self, key, value)

    return labelguard_setitem


def wrap(attr: str, original: Callable, is_compiling: Callable[[], bool]) -> Callable:
    """The checked version of `original`, `Tensor.__getitem__` or `__setitem__` (`attr`, one of
    KEY_SITES); `is_compiling` is torch.compiler.is_compiling (or a function that answers
    False). Dynamo traces `x[idx]` and `x[idx] = v` itself, without calling
    `Tensor.__getitem__`: their wrappers are for eager code and AOTAutograd's replay."""
    global _MASK_DTYPES, _LONG_DTYPES, _PLAIN_TENSORS
    torch = _torch()
    _MASK_DTYPES, _LONG_DTYPES = (torch.bool, torch.uint8), (torch.int64, torch.int32)
    _PLAIN_TENSORS = plain_tensor_types()
    if attr == "__getitem__":
        return _wrap_getitem(original, is_compiling)
    return _wrap_setitem(original, _torch().Tensor.__getitem__, is_compiling)
