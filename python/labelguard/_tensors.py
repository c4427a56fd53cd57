"""Turns numpy arrays and torch tensors into the (address, shape, strides, dtype) tuples the
native module reads without copying, and CUDA tensors into a few reduced values."""

from __future__ import annotations

import sys
from typing import Any

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
    if x.layout != _torch().strided:
        x = x.to_dense()
    x = x.detach().resolve_conj().resolve_neg()
    dtype = str(x.dtype).removeprefix("torch.")
    return (name, x, x.data_ptr(), list(x.shape), list(x.stride()), dtype)


def to_host(x: Any):
    """A host copy of a device tensor (only used when a check has already failed)."""
    return x.detach().cpu()
