"""What every wrapper that `enable()` installs shares: the switch (`config`), the re-entry depth
(`state.depth`, non-zero while labelguard's own code calls torch), the wrapped modules' forwards
(`module_forwards`),
the native test of a valid call (`binding`), and `check_or_raise`, the general path that checks
one call's argument dict and raises or warns at the caller's line.

A leaf among the wrappers: `_enable` (losses, embedding, gather, ...) and `_indexing` (`x[idx]`
and its relatives) both import it; it imports neither.
"""

from __future__ import annotations

import itertools
import sys
import threading
from types import CodeType
from typing import Any, Dict

from . import _native, _training
from ._callsite import PLUMBING, call_site, first_outside, traced_call_site
from ._check import all_host_torch, check_call
from ._libraries import with_library
from ._ops import OPS
from ._report import TargetError, attach_call, report_or_raise
from ._tensors import plain_tensor_types, strided
from ._userframe import at_line, raise_at


class _State(threading.local):
    depth = 0
    #: Set while `_compiled` probes a traced call's shapes: a finding is handed back
    #: (`Probed`), never raised as a TargetError or warned.
    probing = False


class Probed(Exception):
    """The report of a probed call that is not valid (see `_State.probing`)."""

    def __init__(self, report: Any):
        super().__init__(report.op)
        self.report = report


state = _State()
config = {"mode": "raise", "active": False, "finite": False}
#: The forward of each wrapped nn module (by code object) and its name: a bad call made there
#: is reported as the module's (`nn.CrossEntropyLoss`), and its module wrapper cuts the traceback.
module_forwards: Dict[CodeType, str] = {}


_calls = itertools.count()
#: Counts one checked call (every wrapper's eager check path calls it; atomic under the GIL).
count_call = _calls.__next__


def checked() -> int:
    """How many calls the guards have checked in this process (`labelguard run`'s summary)."""
    return _next_value(_calls)


_refusals = itertools.count()
#: Counts one refused call (a TargetError raised by a check).
count_refusal = _refusals.__next__


def refused() -> int:
    """How many calls the guards have refused in this process: `labelguard run`'s summary names
    them, since a refusal that a process catches, or that ends a child whose parent goes on (a
    multiprocessing trainer), would not show in the command's exit code."""
    return _next_value(_refusals)


def _next_value(counter: Any) -> int:
    return int(repr(counter)[len("count(") : -1])  # itertools.count shows its next value


def never() -> bool:
    return False


def compiling_test() -> Any:
    """torch.compiler.is_compiling (a function dynamo reads as True while it traces), or `never`."""
    return getattr(getattr(sys.modules["torch"], "compiler", None), "is_compiling", never)


def binding(op: str, finite: bool) -> Any:
    """The native test of a valid call of `op` (see crates/labelguard-py/src/bound.rs): its
    parameters as the op table declares them; `finite`: whether the logits are read."""
    return _native.Binding(op, finite, plain_tensor_types(), strided())


def check_or_raise(op: str, call: Dict[str, Any], where: str, traced: Any = None) -> None:
    """The general path of a wrapped call: checks its argument dict; raises a TargetError (or
    warns, in mode 'warn') at the caller's line when PyTorch would fail or compute garbage.
    `traced` (a `_compiled.Traced`): the call runs inside a compiled graph, and its frames are
    the ones dynamo traced, not the live ones."""
    not_read = OPS[op].unread(config["finite"])
    # CPU tensors: described and checked without calling any torch function that is wrapped.
    report = all_host_torch(op, call, not_read)
    if report is None:
        state.depth += 1  # the general path calls torch (device reductions, copies)
        try:
            report = check_call(op, call, not_read)
        finally:
            state.depth -= 1
    if report.verdict != "ok" and state.probing:
        raise Probed(report)
    if report.verdict != "ok":
        rules = [f.code for f in report.findings]
        module = caller = None
        at = None
        if traced is not None:
            traced = traced.with_callers()
            report, site = with_library(report, traced_call_site(report.op, rules, traced.frames))
            context = "\n".join(t for t in (site.describe(), traced.describe()) if t)
            at, stacklevel = traced.user(), 1
        else:
            wrapper = sys._getframe(1)
            caller, _ = first_outside(wrapper, _LABELGUARD)  # the code that called the wrapped op
            module = module_forwards.get(caller.f_code) if caller is not None else None
            if module is not None:
                where = f" (labelguard, {module})"
            # A warning names the user's frame (else the first frame outside labelguard and
            # torch: not torch's forward); 3 is the wrapper's level from report_or_raise.
            site, steps = call_site(report.op, rules, wrapper)
            stacklevel = 3 + (steps if steps is not None else first_outside(wrapper, PLUMBING)[1])
            report, site = with_library(report, site)
            context = site.describe()
        context = _training.place_line(context)
        tensors = {k: v for k, v in call.items() if hasattr(v, "shape")}
        scalars = {k: v for k, v in call.items() if k not in tensors}
        try:
            report_or_raise(report, config["mode"], where=where, stacklevel=stacklevel, context=context, at=at and at[:2], site=site)
        except TargetError as err:
            err.call_site = site
            err.raised_in = module
            attach_call(err, op, tensors, scalars)
            _training.refused(err)
            count_refusal()
            if traced is not None:
                raise_at(err, traced.user()[:3] if traced.user() else None)
                raise err.with_traceback(None) from None
            live = _live_user(site)
            if live is not None:  # (inside a compiled function, after a graph break)
                raise_at(err, (live.f_code.co_filename, live.f_lineno, live.f_code.co_name))
            # The last frame is the user's line (else the first outside labelguard): `ending`.
            frame = live or caller
            raise (err.with_traceback(None) if frame is None else at_line(err, frame)) from None


_LABELGUARD = frozenset(("labelguard",))


def _live_user(site: Any) -> Any:
    """The user's live frame that `site` names (a refused eager call), or None."""
    user = getattr(site, "user", None)
    frame = sys._getframe(2)
    while user is not None and frame is not None:
        if frame.f_lineno == user[1] and frame.f_code.co_filename == user[0]:
            return frame
        frame = frame.f_back
    return None
