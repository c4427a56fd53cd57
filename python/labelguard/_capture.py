"""`capture(dir)`: when a block raises a TargetError or a CUDA error, save what failed to a
`.safetensors` file that `labelguard replay FILE` (and `labelguard check`) read back. In a
multi-process job each rank saves under `dir/rank{N}/`, and the file's metadata says which rank
(and DataLoader worker, and sample) it came from."""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import os
import platform
import sys
import time
import traceback
from typing import Any, Callable, Dict, Optional

from . import _native, _ranks
from ._report import Report, TargetError
from ._tensors import describe, is_tensor_like, to_host

OP_KEY, ARGS_KEY = "labelguard.op", "labelguard.args"


def _is_cuda_error(exc: BaseException) -> bool:
    text = str(exc)
    return isinstance(exc, RuntimeError) and ("CUDA error" in text or "device-side assert" in text or "cudaError" in text)


def _versions() -> Dict[str, str]:
    torch = sys.modules.get("torch")
    return {
        "labelguard.version": _native.__version__,
        "labelguard.python": platform.python_version(),
        "labelguard.torch": getattr(torch, "__version__", "") if torch else "",
    }


def save(
    directory: str, tensors: Dict[str, Any], op: Optional[str] = None, args: Optional[dict] = None,
    exc: Optional[BaseException] = None, extra: Optional[Dict[str, str]] = None,
) -> str:
    """Writes tensors (copied to the host) and the call's metadata (and `extra`, more of it:
    a trainer's epoch and step); returns the file's path."""
    place = _ranks.place(sys._getframe(1))
    # A TargetError knows where it was raised (the sample being loaded, gone from the stack now).
    place.update({k: getattr(exc, k) for k in place if getattr(exc, k, None) is not None})
    directory = _ranks.rank_directory(directory, place)  # ranks never share a folder
    os.makedirs(directory, exist_ok=True)
    host, lost = {}, []
    for name, t in tensors.items():
        try:
            host[name] = t if not hasattr(t, "device") or t.device.type == "cpu" else to_host(t)
        except Exception:  # noqa: BLE001 - a dead CUDA context cannot copy anything back
            lost.append(name)
    metadata = dict(_versions())
    metadata.update(_ranks.metadata(place))
    metadata.update(extra or {})
    if op:
        metadata[OP_KEY] = op
        metadata[ARGS_KEY] = json.dumps(args or {})
    if exc is not None:
        metadata["labelguard.error"] = f"{type(exc).__name__}: {exc}"
        metadata["labelguard.traceback"] = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if lost:
        metadata["labelguard.lost"] = ", ".join(lost) + " (on a device whose CUDA context was dead)"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = os.path.join(directory, f"labelguard-{op or 'batch'}-{stamp}-{os.getpid()}-{time.monotonic_ns() % 10**6}.safetensors")
    _native.save_safetensors(path, [describe(k, v) for k, v in host.items()], sorted(metadata.items()))
    print(f"labelguard: saved the failing {'call' if op else 'batch'} to {path}; replay it with `labelguard replay {path}`", file=sys.stderr)
    return path


def replay(path: str) -> Report:
    """Reruns the checks of a captured call offline."""
    _metadata, report = _native.replay(path)
    return Report.from_json(report)


def _flatten(prefix: str, value: Any, out: Dict[str, Any]) -> None:
    if is_tensor_like(value):
        out[prefix] = value
    elif isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _flatten(f"{prefix}.{i}" if prefix else str(i), v, out)


class capture(contextlib.ContextDecorator):
    """Saves the failing call (TargetError) or the batch (CUDA error) to `directory`.

    As a context manager, ``with labelguard.capture("dumps") as cap: cap.batch = batch; ...``
    (the batch is what is saved when a CUDA error has no call attached). As a decorator,
    ``@labelguard.capture("dumps")`` saves the decorated function's tensor arguments. The
    exception is re-raised; its ``labelguard_capture`` attribute holds the file's path.
    """

    def __init__(self, directory: str):
        self.directory = directory
        self.batch: Any = None

    def __enter__(self) -> "capture":
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc is not None:
            self._save(exc, self.batch)
        return False

    def _save(self, exc: BaseException, batch: Any) -> None:
        if isinstance(exc, TargetError) and exc.call is not None:
            op, tensors, args = exc.call
            exc.labelguard_capture = save(self.directory, tensors, op, args, exc)  # type: ignore[attr-defined]
        elif isinstance(exc, TargetError) or _is_cuda_error(exc):
            tensors: Dict[str, Any] = {}
            _flatten("", batch, tensors)
            if tensors:
                exc.labelguard_capture = save(self.directory, tensors, None, None, exc)  # type: ignore[attr-defined]

    def __call__(self, fn: Callable) -> Callable:  # type: ignore[override]
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except BaseException as exc:
                self._save(exc, dict(sig.bind_partial(*args, **kwargs).arguments))
                raise

        return wrapper
