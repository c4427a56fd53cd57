"""`enable()`: wraps PyTorch's loss and indexing functions so that a bad call raises a
TargetError at the caller's line, before any kernel launches.

Every wrapper is built from the op table (`_ops.py`, declared in Rust): each site of each op
(`torch.nn.functional.cross_entropy`, `torch.Tensor.scatter_`, ...) is wrapped where it lives,
so the modules that call them are covered too, and each row's `modules` get the traceback cut
at the user's `criterion(x, y)`. Valid calls run the original function with the original
arguments: outputs and gradients are bit-identical. Inside `torch.compile`d code the check is an
op of the compiled graph (`_compiled.py`) that runs on the real tensors before the kernel.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from typing import Any, Callable, Dict, Iterable, Iterator, Optional, Set, Tuple

from . import _compiled, _indexing, _native, _placeholders, _placement, _trace_rules
from ._after_import import AfterImport
from ._callsite import cut_own_frames
from ._guard import binding, check_or_raise, compiling_test, count_call, module_forwards
from ._guard import config as _config
from ._guard import state as _state
from ._ops import INDEX_NAMES, OPS, Op
from ._report import TargetError
from ._tensors import readable
from ._userframe import ending, hide_refusals

#: pytest leaves this module's frames out of its report of a refusal (`_userframe.hide_refusals`).
__tracebackhide__ = hide_refusals


def _arguments(op: Op, bound: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The check() arguments of a bound call, by each parameter's use in the op table; None
    when labelguard leaves the call to PyTorch (a legacy argument, a tensor of a dtype the core
    does not read, something else where PyTorch wants a tensor, an argument of a form the check
    does not take)."""
    tensor = sys.modules["torch"].Tensor
    call: Dict[str, Any] = {}
    for name, v in bound.items():
        use = op.uses[name]
        if use == "legacy":
            if v is not None:
                return None  # rare, and PyTorch warns about them itself
            continue
        if use == "dropped" or (v is None and use != "read_none"):
            continue
        if isinstance(v, tensor):
            if not readable(v.dtype):
                return None
            if use == "table" and v.dim() == 2:
                call["num_embeddings"] = v.shape[0]  # the table's values never matter
                continue
        elif use == "scatter_src":
            call["value"] = float(v)
            continue
        elif name in op.tensor_only or use in ("shape", "finite", "table"):
            return None  # not a tensor where PyTorch wants one: PyTorch says so itself
        elif use == "indices":
            if type(v) not in (tuple, list) or not 0 < len(v) <= 8 or not all(isinstance(t, tensor) and readable(t.dtype) for t in v):
                return None
            call.update(zip(INDEX_NAMES, v))
            continue
        else:
            kind = op.kinds.get(name)
            if kind == "int_list" and type(v) in (tuple, list):
                v = [int(i) for i in v]  # (ctc_loss's lengths as a list or tuple of ints)
            elif kind == "bool" and not isinstance(v, bool) and type(v) is int:
                v = bool(v)
        call[name] = v
    return call


_originals: Dict[Tuple[str, str], Any] = {}


def _wrap(op: Op, original: Callable, native: Any, is_compiling: Callable[[], bool], finite: bool, key: str) -> Callable:
    """The checked version of `original`. A valid call's path: one flag test, the compile test,
    one native call on the call's own argument tuple and keyword dict (`_native.valid_call`:
    binding, tensors read in place, the check; no dict, no report), the original. Any other
    call takes the general path (`judge`): the argument dict (`Params.bind`, `_arguments`),
    then `check_or_raise`. While dynamo traces the call, the check goes into the graph
    (`_compiled.in_graph`) and runs there, on the real tensors, through the same two steps;
    when AOTAutograd replays a node of dynamo's graph that calls this wrapper itself (dynamo
    recorded the call without tracing into it: `_compiled.replaying`), the check goes into
    AOTAutograd's graph; other tracers (export) call the original."""
    bind, name = op.params.bind, op.name
    qualname = getattr(original, "__qualname__", name)
    # The header names each thing once: `nll_loss (labelguard)`, `gather (labelguard, Tensor.gather)`.
    where = " (labelguard)" if qualname == name else f" (labelguard, {qualname})"
    config, state, valid_call, tick = _config, _state, _native.valid_call, count_call
    in_graph, tracing = _compiled.in_graph, _compiled.dynamo_test()
    replaying, replay = _compiled.replaying, _compiled.replay
    roles, in_graphs = op.in_graph_roles(finite), not op.breaks_graph

    def judge(args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: Any = None) -> None:
        bound = bind(args, kwargs)
        call = None if bound is None else _arguments(op, bound)  # None: PyTorch reports its own signature errors
        if call is not None:
            check_or_raise(name, call, where, traced)

    def in_compiled_graph(args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: Any) -> None:
        if not valid_call(native, args, kwargs):
            judge(args, kwargs, traced)

    _compiled.CHECKERS[key] = in_compiled_graph
    _compiled.NATIVE[key] = native
    _compiled.GENERATION[0] += 1
    if not op.raises_on_values:
        _compiled.AFTER_KERNELS.add(key)
    if op.within:
        _compiled.WITHIN[key] = op.within_by_slot()
    indexes = op.indexes_by_slot()
    if indexes:
        _compiled.INDEXES[key] = indexes

    @functools.wraps(original)
    def labelguard_checked(*args: Any, **kwargs: Any) -> Any:
        if config["active"] and not state.depth:
            if is_compiling():
                if tracing():
                    if in_graphs:
                        args, kwargs = in_graph(key, roles, args, kwargs)
                elif replaying():
                    return replay(key, roles, original, args, kwargs)
            else:
                tick()
                if not valid_call(native, args, kwargs):
                    try:
                        judge(args, kwargs)
                    except TargetError as err:
                        raise ending(err) from None  # the last frame: the user's line
        return original(*args, **kwargs)

    labelguard_checked.__labelguard_original__ = original  # type: ignore[attr-defined]
    if not in_graphs and "torch._dynamo" in sys.modules:  # (else when dynamo arrives: _when_dynamo)
        # Dynamo breaks the graph at the call and runs it eagerly (the wrapper checks it there),
        # as it would at the original op: the same one break, no graph made of the check.
        disabled = sys.modules["torch"].compiler.disable(labelguard_checked)
        disabled.__labelguard_original__ = original  # type: ignore[attr-defined]
        return disabled
    return labelguard_checked


def _wrap_module(cls: type, original_call: Callable) -> Callable:
    """The `__call__` of a module whose forward is one wrapped op (the row's `modules`). Its
    functional call is checked by the op's wrapper; this is the module's `__call__`, with the traceback of a TargetError raised by torch's own forward
    of `cls` cut to this call and the user's line (`_userframe.ending`). A valid call's path is the original `__call__` inside a `try`
    (free until something is raised): the check itself is the functional wrapper's, so a module
    call costs one checked functional call and this frame. Dynamo traces the `try` (no graph
    break, `fullgraph=True` works: test_enable.py), so no compile test is needed here."""
    name = "nn." + cls.__name__

    def labelguard_module_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return original_call(self, *args, **kwargs)
        except TargetError as err:
            if err.raised_in != name or getattr(err, "first_useful_frame", None) is not None:
                # Raised by a subclass's forward or a hook (its frames are the user's), or
                # inside a compiled function, from a frame at the user's line (`_userframe`).
                raise
            err.raised_in = None  # cut once: an enclosing module keeps the frames in between
            raise ending(err) from None

    return labelguard_module_call


def _resolve(path: str):
    obj = sys.modules[path.split(".")[0]]
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _install(owner: Any, path: str, attr: str, wrapper: Callable) -> None:
    if path == "torch.Tensor" and wrapper.__name__ == attr:
        # Dynamo takes a Tensor method named like the builtin one for the builtin and would not
        # trace the wrapper (nor put its check into the graph).
        wrapper.__name__ = f"{attr}_labelguard"
    setattr(owner, attr, wrapper)
    if path == "torch.Tensor" and attr == "__getitem__":
        _clear_sequence_item(owner)


def _clear_sequence_item(cls: type) -> None:
    """Undoes what a Python `__getitem__` on a class also does: CPython fills the type's
    `sq_item` slot, so `PySequence_Check` holds for every tensor, and `torch.tensor([t0, t1])`
    (0-d tensors: transformers' Qwen2-VL `get_rope_index`) calls `len()` of a 0-d tensor and
    fails. `torch.Tensor` has no `sq_item` of its own (indexing is `mp_subscript`); the slot is
    reset through CPython's type layout (`tp_as_sequence`, the 14th pointer of `PyTypeObject`)."""
    import ctypes
    import sysconfig

    if sys.implementation.name != "cpython" or sysconfig.get_config_var("Py_GIL_DISABLED"):
        return
    word = ctypes.sizeof(ctypes.c_void_p)
    sequence = ctypes.c_void_p.from_address(id(cls) + 13 * word).value
    base = cls.__base__
    base_sequence = ctypes.c_void_p.from_address(id(base) + 13 * word).value if base else None
    base_item = ctypes.c_void_p.from_address(base_sequence + 3 * word).value if base_sequence else None
    if sequence and not base_item:  # the base (torch._C.TensorBase) is no sequence: nor is Tensor
        ctypes.c_void_p.from_address(sequence + 3 * word).value = None


def enable(mode: str = "raise", ops: Optional[Iterable[str]] = None, finite: bool = False) -> None:
    """Checks every wrapped PyTorch call before it runs.

    mode: 'raise' (TargetError at the caller's line) or 'warn' (TargetWarning, then the call
    runs). ops: op names to wrap (default: all of `labelguard.guarded_ops()`: {ops}).
    finite: also scan the logits of the losses ({finite_ops}) for NaN and +inf (LG508, a
    warning). Off by default: the logits are usually many times the bytes of the targets, so
    the scan is most of a loss check's cost, for a verdict that is never a device-side assert
    (see docs/benchmarks-history.md, issue 13).

    Calls that dynamo traces (`torch.compile`) are checked by an op of the compiled graph, at
    run time, on the real tensors, with the same errors (`_compiled.py`).
    """
    try:
        import torch  # noqa: F401 - enable() is for PyTorch code
    except ImportError as e:
        raise ImportError(
            f"labelguard.enable() guards PyTorch's calls, but torch cannot be imported in this Python "
            f"({sys.executable}): {e}. Install it: pip install torch (or pip install 'labelguard[torch]'; "
            "https://pytorch.org/get-started/locally/ gives the command for a CUDA build). labelguard.check "
            "on numpy arrays and the labelguard command work without it.",
            name="torch",
        ) from e

    if mode not in ("raise", "warn"):
        raise ValueError(f"mode must be 'raise' or 'warn', not {mode!r}")
    wanted = set(ops) if ops is not None else None
    unknown = (wanted or set()) - set(OPS)
    if unknown:
        raise ValueError(f"unknown ops {sorted(unknown)}; known: {sorted(OPS)}")
    disable()
    finite = bool(finite)
    is_compiling = compiling_test()
    if "torch._dynamo" in sys.modules:
        _compiled.prepare()
        _compiled.skip_top_level(_WRAPPER_FACTORIES)
        _placement.install()
    else:
        _when_dynamo()
    _compiled.hold_autograd_cache()
    nn = sys.modules["torch.nn"]
    for op in OPS.values():
        if wanted is not None and op.name not in wanted:
            continue
        native = None
        for site in op.sites:
            path, attr = site.rsplit(".", 1)
            owner = _resolve(path)
            original = getattr(owner, attr, None)
            if original is None:
                continue  # (a site that this torch does not have)
            # An inherited method (Tensor.__getitem__ is TensorBase's) is deleted again by disable().
            inherited = isinstance(owner, type) and attr not in vars(owner)
            _originals[(path, attr)] = _INHERITED if inherited else original
            if attr in _indexing.KEY_SITES:  # x[key], x[key] = v: bound by the key
                wrapper = _indexing.wrap(attr, original, is_compiling)
            else:
                native = native or binding(op.name, finite)
                wrapper = _wrap(op, original, native, is_compiling, finite, site)
            _install(owner, path, attr, wrapper)
        for name in op.modules:
            cls = getattr(nn, name)
            _originals[("torch.nn." + name, "__call__")] = cls.__dict__.get("__call__", _INHERITED)
            module_forwards[cls.forward.__code__] = "nn." + name
            setattr(cls, "__call__", _wrap_module(cls, cls.__call__))
    if wanted is None or "masked_scatter" in wanted:
        # Libraries that check a VLM's merge themselves before masked_scatter (_libraries.py).
        _placeholders.install(is_compiling)
    if "torch._dynamo" in sys.modules:
        _trace_rules.known_originals(_originals)  # (else when dynamo arrives: enabled again)
    _cut_in_hooks()
    _config.update(mode=mode, active=True, finite=finite)


_DYNAMO: list = []  # the finder that waits for torch._dynamo (one per process)

#: The functions that make the wrappers enable() installs (their code is `_compiled.skip_top_level`'s).
_WRAPPER_FACTORIES = (_wrap, _wrap_module, _indexing._wrap_getitem, _indexing._wrap_setitem, _placeholders._wrap)


def _when_dynamo() -> None:
    """Importing torch._dynamo takes seconds (most of `import torch`'s time again), and only
    torch.compile (or export) needs it: the compiled path (`_compiled.prepare`, the wrappers that
    dynamo must not trace) is made once dynamo is imported, by enabling again with the same
    settings, before anything can be compiled."""

    def arrived() -> None:
        torch = sys.modules["torch"]
        torch._dynamo = sys.modules["torch._dynamo"]  # (the import system sets it after this)
        if _config["active"]:
            enable(_config["mode"], {_OP_OF[key] for key in _originals}, _config["finite"])

    if not _DYNAMO:
        _DYNAMO.append(AfterImport("torch._dynamo", arrived).install())


def _cut_in_hooks() -> None:
    """An uncaught TargetError's traceback ends at the user's line: sys.excepthook and
    threading.excepthook cut labelguard's own frames off it (`_callsite.cut_own_frames`), then
    do what they did before. Installed once; they leave every other exception alone."""
    import threading

    if not getattr(sys.excepthook, "labelguard", False):
        previous = sys.excepthook

        def excepthook(kind: Any, exc: Any, tb: Any) -> None:
            cut_own_frames(exc)
            previous(kind, exc, tb)  # (cut in place: `tb` is still its head)

        excepthook.labelguard = True  # type: ignore[attr-defined]
        sys.excepthook = excepthook
    if not getattr(threading.excepthook, "labelguard", False):
        previous_threads = threading.excepthook

        def thread_excepthook(args: Any) -> None:
            cut_own_frames(args.exc_value)
            previous_threads(args)

        thread_excepthook.labelguard = True  # type: ignore[attr-defined]
        threading.excepthook = thread_excepthook


enable.__doc__ = (enable.__doc__ or "").format(
    ops=", ".join(OPS), finite_ops=", ".join(op.name for op in OPS.values() if op.unread(False) != op.unread(True))
)


_INHERITED = object()  # marks a module class that had no __call__ of its own


def disable() -> None:
    """Restores PyTorch's original functions."""
    for (path, attr), original in _originals.items():
        if original is _INHERITED:
            delattr(_resolve(path), attr)
        else:
            setattr(_resolve(path), attr, original)
    _originals.clear()
    _placeholders.remove()
    module_forwards.clear()
    _compiled.release_autograd_cache()
    _placement.remove()
    _config["active"] = False


def is_enabled() -> bool:
    return bool(_config["active"])


def held() -> Optional[Tuple[Dict[str, Any], Set[str]]]:
    """The guards' state now (settings and wrapped ops), for `restore`; None when they are off."""
    return (dict(_config), {_OP_OF[key] for key in _originals}) if _config["active"] else None


def restore(previous: Optional[Tuple[Dict[str, Any], Set[str]]]) -> None:
    """Puts the guards back as `held()` found them: off, or on with the same settings and ops."""
    disable()
    if previous is not None:
        was, ops = previous
        enable(was["mode"], ops, was["finite"])


@contextlib.contextmanager
def enabled(mode: str = "raise", ops: Optional[Iterable[str]] = None, finite: bool = False) -> Iterator[None]:
    """``with labelguard.enabled(): ...`` checks the calls of the block, then restores the previous state."""
    previous = held()
    enable(mode, ops, finite)
    try:
        yield
    finally:
        restore(previous)


#: (module path, attribute) of every wrapped site and module -> its op
_OP_OF = {
    **{tuple(site.rsplit(".", 1)): op.name for op in OPS.values() for site in op.sites},
    **{("torch.nn." + m, "__call__"): op.name for op in OPS.values() for m in op.modules},
}
