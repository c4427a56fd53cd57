"""`enable()`: wraps PyTorch's loss and indexing functions so that a bad call raises a
TargetError at the caller's line, before any kernel launches.

Functions of `torch.nn.functional` are wrapped where they live, so the modules that call them
(`nn.CrossEntropyLoss`, `nn.NLLLoss`, `nn.BCELoss`, `nn.BCEWithLogitsLoss`, `nn.Embedding`,
`nn.CTCLoss`) are covered too. Valid calls run the original function with the original
arguments: outputs and gradients are bit-identical. Inside `torch.compile`d code the check is an
op of the compiled graph (`_compiled.py`) that runs on the real tensors before the kernel.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from . import _compiled, _indexing, _native
from ._guard import binding, check_or_raise, compiling_test, module_forwards, unread
from ._guard import config as _config
from ._guard import state as _state
from ._report import TargetError

class Params:
    """An op's parameters, bound without `inspect` (a wrapped call's hot path): the positional
    names in order (also accepted as keywords) and the keyword-only ones with defaults.
    `bind` gives what `inspect.Signature.bind(...).arguments` gives (defaults not filled in),
    or None where PyTorch would reject the call itself."""

    __slots__ = ("names", "known", "required")

    def __init__(self, *names: str, **defaults: Any):
        self.names = names
        self.known = frozenset(names) | frozenset(defaults)
        self.required = sum(1 for n in names if n not in defaults)

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


_sig = Params  # (the name the op tables below use)

_LOSS = dict(weight=None, size_average=None, reduce=None, reduction="mean")
# op key: (op, parameters)
_SIGS: Dict[str, Tuple[str, Params]] = {
    "cross_entropy": ("cross_entropy", _sig("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing", ignore_index=-100, label_smoothing=0.0, **_LOSS)),
    "nll_loss": ("nll_loss", _sig("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction", ignore_index=-100, **_LOSS)),
    "binary_cross_entropy": ("binary_cross_entropy", _sig("input", "target", "weight", "size_average", "reduce", "reduction", **_LOSS)),
    "binary_cross_entropy_with_logits": ("binary_cross_entropy_with_logits", _sig("input", "target", "weight", "size_average", "reduce", "reduction", "pos_weight", pos_weight=None, **_LOSS)),
    "embedding": ("embedding", _sig("input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse", padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False)),
    "one_hot": ("one_hot", _sig("tensor", "num_classes", num_classes=-1)),
    "ctc_loss": ("ctc_loss", _sig("log_probs", "targets", "input_lengths", "target_lengths", "blank", "reduction", "zero_infinity", blank=0, reduction="mean", zero_infinity=False)),
    "gather": ("gather", _sig("input", "dim", "index", sparse_grad=False, out=None)),
    "scatter": ("scatter", _sig("input", "dim", "index", "src", value=None, reduce=None, out=None, src=None)),
    "scatter_add": ("scatter_add", _sig("input", "dim", "index", "src", out=None)),
    "index_select": ("index_select", _sig("input", "dim", "index", out=None)),
    "multinomial": ("multinomial", _sig("input", "num_samples", "replacement", replacement=False, generator=None, out=None)),
    "bincount": ("bincount", _sig("input", "weights", "minlength", weights=None, minlength=0)),
}

# Where each op lives: (module path, attribute, signature key). Tensor methods bind `self` as input.
_TARGETS: List[Tuple[str, str, str]] = [
    ("torch.nn.functional", "cross_entropy", "cross_entropy"),
    ("torch.nn.functional", "nll_loss", "nll_loss"),
    ("torch.nn.functional", "binary_cross_entropy", "binary_cross_entropy"),
    ("torch.nn.functional", "binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits"),
    ("torch.nn.functional", "embedding", "embedding"),
    ("torch.nn.functional", "one_hot", "one_hot"),
    ("torch.nn.functional", "ctc_loss", "ctc_loss"),
    ("torch", "gather", "gather"),
    ("torch", "scatter", "scatter"),
    ("torch", "scatter_add", "scatter_add"),
    ("torch", "index_select", "index_select"),
    ("torch", "multinomial", "multinomial"),
    ("torch", "bincount", "bincount"),
    ("torch.Tensor", "gather", "gather"),
    ("torch.Tensor", "scatter", "scatter"),
    ("torch.Tensor", "scatter_", "scatter"),
    ("torch.Tensor", "scatter_add", "scatter_add"),
    ("torch.Tensor", "scatter_add_", "scatter_add"),
    ("torch.Tensor", "index_select", "index_select"),
    ("torch.Tensor", "multinomial", "multinomial"),
    ("torch.Tensor", "bincount", "bincount"),
]


# Arguments that never change what labelguard decides, and the losses' legacy ones.
_DROPPED = frozenset(("out", "generator", "sparse_grad", "max_norm", "norm_type", "scale_grad_by_freq", "sparse", "reduce", "size_average"))
_LOSSES = frozenset(("cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"))


def _scatter_scalar(a: Dict[str, Any]) -> Dict[str, Any]:
    if "src" in a and not isinstance(a["src"], sys.modules["torch"].Tensor):
        a["value"] = float(a.pop("src"))
    return a


def _ctc_lengths(a: Dict[str, Any]) -> Dict[str, Any]:
    for k in ("input_lengths", "target_lengths"):
        if k in a and not isinstance(a[k], sys.modules["torch"].Tensor):
            a[k] = [int(v) for v in a[k]]
    return a


def _embedding_table_size(a: Dict[str, Any]) -> Dict[str, Any]:
    w = a.get("weight")
    if isinstance(w, sys.modules["torch"].Tensor) and w.dim() == 2:
        # The table's values never matter: pass its size, not its memory.
        a["num_embeddings"] = w.shape[0]
        del a["weight"]
    return a


#: op -> what turns its bound arguments into check() arguments, after the generic step
#: (arguments in _DROPPED and None values removed). Ops of other modules add theirs here.
CONVERTERS: Dict[str, Callable[[Dict[str, Any]], Optional[Dict[str, Any]]]] = {
    "scatter": _scatter_scalar,
    "ctc_loss": _ctc_lengths,
    "embedding": _embedding_table_size,
}


def _arguments(op: str, a: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The check() arguments of a bound call, or None when labelguard cannot judge it."""
    if op in _LOSSES and (a.get("size_average") is not None or a.get("reduce") is not None):
        return None  # legacy arguments: rare, and PyTorch warns about them itself
    call = {k: v for k, v in a.items() if k not in _DROPPED and (v is not None or k == "padding_idx")}
    convert = CONVERTERS.get(op)
    return convert(call) if convert is not None else call


_originals: Dict[Tuple[str, str], Any] = {}


# Parameters whose argument the native test converts as a CONVERTERS entry does in Python.
_CONVERTED_ROLES = {("scatter", "src"): "scatter_src", ("embedding", "weight"): "table"}


def _roles(op: str, sig: Params, finite: bool) -> Dict[str, str]:
    """Each parameter's role for the native test: what `_arguments` and CONVERTERS do to it."""
    not_read = unread(op, finite)

    def role(name: str) -> str:
        if op in _LOSSES and name in ("size_average", "reduce"):
            return "legacy"
        if name in _DROPPED:
            return "drop"
        if (op, name) in _CONVERTED_ROLES:
            return _CONVERTED_ROLES[(op, name)]
        if name in not_read:
            return "unread"
        if name == "padding_idx":
            return "keep_none"
        return "keep"

    return {n: role(n) for n in sig.names + tuple(sorted(sig.known - set(sig.names)))}


def _binding(op: str, sig: Params, finite: bool) -> Any:
    """The native test's view of an op's parameters."""
    return binding(op, list(_roles(op, sig, finite).items()), len(sig.names), sig.required)


def _in_graph_roles(op: str, sig: Params, finite: bool) -> Dict[Any, str]:
    """By position and by name: "read" for the parameters whose values the check reads (a
    compiled call passes these tensors to `labelguard::check`, the others by their shapes),
    "drop" for those it never looks at."""
    roles = {n: {"keep": "read", "keep_none": "read", "drop": "drop", "legacy": "drop"}.get(r, "") for n, r in _roles(op, sig, finite).items()}
    return {**{i: roles[n] for i, n in enumerate(sig.names)}, **roles}


def _wrap(op: str, sig: Params, original: Callable, native: Any, is_compiling: Callable[[], bool], roles: Dict[Any, str], key: str) -> Callable:
    """The checked version of `original`. A valid call's path: one flag test, the compile test,
    one native call on the call's own argument tuple and keyword dict (`_native.valid_call`:
    binding, tensors read in place, the check; no dict, no report), the original. Any other
    call takes the general path (`judge`): the argument dict (`Params.bind`, `_arguments`),
    then `check_or_raise`. While dynamo traces the call, the check goes into the graph
    (`_compiled.in_graph`) and runs there, on the real tensors, through the same two steps;
    when AOTAutograd replays a node of dynamo's graph that calls this wrapper itself (dynamo
    recorded the call without tracing into it: `_compiled.replaying`), the check goes into
    AOTAutograd's graph; other tracers (export) call the original."""
    bind = sig.bind
    where = f" (labelguard, {original.__qualname__})"
    config, state, valid_call = _config, _state, _native.valid_call
    in_graph, tracing = _compiled.in_graph, _compiled.dynamo_test()
    replaying, replay = _compiled.replaying, _compiled.replay
    in_graphs = op not in _compiled.GRAPH_BREAKING

    def judge(args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: Any = None) -> None:
        bound = bind(args, kwargs)
        call = None if bound is None else _arguments(op, bound)  # None: PyTorch reports its own signature errors
        if call is not None:
            check_or_raise(op, call, where, traced)

    def in_compiled_graph(args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: Any) -> None:
        if not valid_call(native, args, kwargs):
            judge(args, kwargs, traced)

    _compiled.CHECKERS[key] = in_compiled_graph

    @functools.wraps(original)
    def labelguard_checked(*args: Any, **kwargs: Any) -> Any:
        if config["active"] and not state.depth:
            if is_compiling():
                if tracing():
                    if in_graphs:
                        args, kwargs = in_graph(key, roles, args, kwargs)
                elif replaying():
                    return replay(key, roles, original, args, kwargs)
            elif not valid_call(native, args, kwargs):
                judge(args, kwargs)
        return original(*args, **kwargs)

    labelguard_checked.__labelguard_original__ = original  # type: ignore[attr-defined]
    if not in_graphs:
        # Dynamo breaks the graph at the call and runs it eagerly (the wrapper checks it there),
        # as it would at the original op: the same one break, no graph made of the check.
        disabled = sys.modules["torch"].compiler.disable(labelguard_checked)
        disabled.__labelguard_original__ = original  # type: ignore[attr-defined]
        return disabled
    return labelguard_checked


# Modules whose forward is one wrapped op, by op. Their functional call is checked by the op's
# wrapper; their __call__ is wrapped only so that a TargetError raised there surfaces at the
# user's `criterion(x, y)` line, not inside torch's forward.
_MODULES: List[Tuple[str, str]] = [
    ("CrossEntropyLoss", "cross_entropy"),
    ("NLLLoss", "nll_loss"),
    ("BCELoss", "binary_cross_entropy"),
    ("BCEWithLogitsLoss", "binary_cross_entropy_with_logits"),
    ("Embedding", "embedding"),
    ("CTCLoss", "ctc_loss"),
]


def _wrap_module(cls: type, original_call: Callable) -> Callable:
    """The module's `__call__`, with the traceback of a TargetError raised by torch's own forward
    of `cls` cut at this call. A valid call's path is the original `__call__` inside a `try`
    (free until something is raised): the check itself is the functional wrapper's, so a module
    call costs one checked functional call and this frame. Dynamo traces the `try` (no graph
    break, `fullgraph=True` works: test_enable.py), so no compile test is needed here."""
    name = "nn." + cls.__name__

    def labelguard_module_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return original_call(self, *args, **kwargs)
        except TargetError as err:
            if err.raised_in != name:
                raise  # raised by a subclass's forward or a hook: its frames are the user's
            err.raised_in = None  # cut once: an enclosing module keeps the frames in between
            raise err.with_traceback(None) from None

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


def enable(mode: str = "raise", ops: Optional[Iterable[str]] = None, finite: bool = False) -> None:
    """Checks every wrapped PyTorch call before it runs.

    mode: 'raise' (TargetError at the caller's line) or 'warn' (TargetWarning, then the call
    runs). ops: op names to wrap (default: all: cross_entropy, nll_loss, binary_cross_entropy,
    binary_cross_entropy_with_logits, embedding, one_hot, ctc_loss, gather, scatter,
    scatter_add, index_select, multinomial, bincount). finite: also scan the logits of the
    losses (cross_entropy, nll_loss, binary_cross_entropy_with_logits, ctc_loss) for NaN and
    +inf (LG508, a warning). Off by default: the logits are usually many times the bytes of the
    targets, so the scan is most of a loss check's cost, for a verdict that is never a
    device-side assert (see BENCHMARKS.md, issue 13).

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
    unknown = (wanted or set()) - set(_SIGS) - set(_indexing.OPS)
    if unknown:
        raise ValueError(f"unknown ops {sorted(unknown)}; known: {sorted(set(_SIGS) | set(_indexing.OPS))}")
    disable()
    finite = bool(finite)
    is_compiling = compiling_test()
    _compiled.prepare()
    _compiled.hold_autograd_cache()
    natives: Dict[str, Any] = {}

    def native(op: str) -> Any:
        if op not in natives:
            natives[op] = _binding(op, _SIGS[op][1], finite)
        return natives[op]

    for path, attr, key in _TARGETS:
        if wanted is not None and key not in wanted:
            continue
        owner = _resolve(path)
        original = getattr(owner, attr, None)
        if original is None:
            continue
        _originals[(path, attr)] = original
        op, sig = _SIGS[key]
        _install(owner, path, attr, _wrap(op, sig, original, native(op), is_compiling, _in_graph_roles(op, sig, finite), f"{path}.{attr}"))
    for path, attr, op in _indexing.TARGETS:  # advanced indexing and its relatives
        if wanted is None or op in wanted:
            owner = _resolve(path)
            _originals[(path, attr)] = getattr(owner, attr)
            _install(owner, path, attr, _indexing.wrap(attr, op, getattr(owner, attr), is_compiling, f"{path}.{attr}"))
    nn = sys.modules["torch.nn"]
    for name, op in _MODULES:
        if wanted is not None and op not in wanted:
            continue
        cls = getattr(nn, name)
        _originals[("torch.nn." + name, "__call__")] = cls.__dict__.get("__call__", _INHERITED)
        module_forwards[cls.forward.__code__] = "nn." + name
        setattr(cls, "__call__", _wrap_module(cls, cls.__call__))
    _config.update(mode=mode, active=True, finite=finite)


_INHERITED = object()  # marks a module class that had no __call__ of its own


def disable() -> None:
    """Restores PyTorch's original functions."""
    for (path, attr), original in _originals.items():
        if original is _INHERITED:
            delattr(_resolve(path), attr)
        else:
            setattr(_resolve(path), attr, original)
    _originals.clear()
    module_forwards.clear()
    _compiled.release_autograd_cache()
    _config["active"] = False


def is_enabled() -> bool:
    return bool(_config["active"])


@contextlib.contextmanager
def enabled(mode: str = "raise", ops: Optional[Iterable[str]] = None, finite: bool = False) -> Iterator[None]:
    """``with labelguard.enabled(): ...`` checks the calls of the block, then restores the previous state."""
    previous = (dict(_config), [(k[0], k[1]) for k in _originals]) if _config["active"] else None
    enable(mode, ops, finite)
    try:
        yield
    finally:
        disable()
        if previous is not None:
            was, keys = previous
            enable(was["mode"], {_SIGS_KEY[(p, a)] for p, a in keys}, was["finite"])


_SIGS_KEY = {**{(p, a): k for p, a, k in _TARGETS + _indexing.TARGETS}, **{("torch.nn." + n, "__call__"): op for n, op in _MODULES}}
