"""Turns numpy arrays and torch tensors into the (address, shape, strides, dtype) tuples the
native module reads without copying, and CUDA tensors into a few reduced values."""

from __future__ import annotations

import ctypes
import sys
from typing import Any, Dict, Tuple

# numpy dtype names and torch dtypes, to labelguard's dtype names.
_NUMPY = {
    "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16", "uint16": "uint16",
    "int32": "int32", "int64": "int64", "float16": "float16", "float32": "float32", "float64": "float64",
}


def _torch():
    return sys.modules.get("torch")


def is_tensor(x: Any) -> bool:
    t = _torch()
    return t is not None and isinstance(x, t.Tensor)


def is_array(x: Any) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray)


def is_tensor_like(x: Any) -> bool:
    return is_tensor(x) or is_array(x)


def on_host(x: Any) -> bool:
    """True for numpy arrays and CPU tensors: the data can be read where it lies."""
    return is_array(x) or x.device.type == "cpu"


_PLAIN: tuple = ()  # torch.Tensor and nn.Parameter, once torch is loaded


def plain_tensor_types() -> tuple:
    """(torch.Tensor, nn.Parameter, nn.Buffer) once torch is imported, else ()."""
    global _PLAIN
    if not _PLAIN:
        torch = _torch()
        if torch is None:
            return ()
        _PLAIN = (torch.Tensor, torch.nn.Parameter) + ((torch.nn.Buffer,) if isinstance(getattr(torch.nn, "Buffer", None), type) else ())
    return _PLAIN


def strided() -> Any:
    """torch.strided: the layout the native hot path reads in place."""
    if _STRIDED[0] is None:
        _STRIDED[0] = _torch().strided
    return _STRIDED[0]


def is_abstract(x: Any) -> bool:
    """True for tensors that have a shape and a dtype but no values: the `meta` device, and
    FakeTensorMode's fake tensors (whatever device they claim)."""
    if getattr(x, "is_meta", False):
        return True
    if type(x) in plain_tensor_types() or is_array(x):
        return False
    fake = sys.modules.get("torch._subclasses.fake_tensor")
    return fake is not None and bool(fake.is_fake(x))


# A few zero bytes that an abstract tensor's descriptor points at (all strides 0: every
# element reads them); they are never written.
_ZEROS = ctypes.create_string_buffer(16)


_ZEROS_AT = ctypes.addressof(_ZEROS)


def describe_abstract(name: str, x: Any):
    """The native tuple for a tensor without values: its shape and dtype over zero bytes.
    Findings about its values are invented and dropped by the caller."""
    shape = x.shape
    return (name, _ZEROS, _ZEROS_AT, shape, (0,) * len(shape), torch_dtype_name(x.dtype))


_DTYPE_NAMES: dict = {}


def torch_dtype_name(dtype: Any) -> str:
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = str(dtype).removeprefix("torch.")
    return name


def describe(name: str, x: Any):
    """The native tuple for a host array or tensor: (name, owner, address, shape, strides, dtype)."""
    if is_array(x):
        np = sys.modules["numpy"]
        dtype = _NUMPY.get(x.dtype.name)
        if dtype is None or not x.dtype.isnative:
            raise TypeError(f"{name}: numpy dtype {x.dtype} is not supported (expected bool, integers, or floats)")
        item = x.itemsize
        if any(s < 0 or s % item for s in x.strides):
            x = np.ascontiguousarray(x)
        return (name, x, x.__array_interface__["data"][0], list(x.shape), [s // item for s in x.strides], dtype)
    return describe_tensor(name, x)


_STRIDED: list = [None]


def describe_tensor(name: str, x: Any):
    """`describe` for a host torch tensor, with as few calls into torch as can be (the hot path
    of every wrapped call): no detach (the data pointer is the same), and the conjugate and
    negative bits resolved only when set (labelguard's dtypes are real; their conj bit never is)."""
    if x.layout is not strided():
        x = x.to_dense()
    if x.is_neg():
        x = x.resolve_neg()
    return (name, x, x.data_ptr(), x.shape, x.stride(), torch_dtype_name(x.dtype))


def to_host(x: Any):
    """A host copy of a device tensor (only used when a check has already failed)."""
    return x.detach().cpu()


_DTYPES = ("bool", "uint8", "int8", "int16", "uint16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
_READABLE: Dict[Any, bool] = {}


def readable(dtype: Any) -> bool:
    """Whether labelguard's core reads this dtype (complex, float8, quantized: no)."""
    known = _READABLE.get(dtype)
    if known is None:
        known = _READABLE[dtype] = str(dtype).removeprefix("torch.") in _DTYPES
    return known


# Shape-only views by (dtype, shape): training steps index tensors of the same few shapes
# every step, and building a view costs more than the check (bounded: cleared when full).
_VIEWS: Dict[Tuple[Any, Any], Any] = {}
_VIEWS_MAX = 256


def shape_view(dtype: Any, shape: Any) -> Any:
    """A host view of this shape and dtype (float32 for a dtype the core does not read) of one
    zero: a tensor that a check reads by shape and dtype only, or an index that a compiled
    graph proved in range, which every zero stands for (`_placement._index_zeros`)."""
    key = (dtype, shape)
    view = _VIEWS.get(key)
    if view is None:
        torch = _torch()
        with torch.inference_mode(False):  # (usable outside inference mode too)
            view = torch.zeros((), dtype=dtype if readable(dtype) else torch.float32, device="cpu").expand(shape)
        if type(view) is torch.Tensor:  # not a fake or dispatch-mode tensor: safe to keep
            if len(_VIEWS) >= _VIEWS_MAX:
                _VIEWS.clear()
            _VIEWS[key] = view
    return view
