"""Checks inside `torch.compile`d code.

While dynamo traces a wrapped call, the wrapper puts one `labelguard::check` op into the graph
in front of the original op. At run time the op gets the real tensors and runs the check of an
eager call (`CHECKERS`, registered by `enable()`), so a bad call raises the same TargetError
(mode 'warn': a TargetWarning) before the kernel runs. The message names the user's line that
dynamo was tracing, captured at trace time as the op's constant `spec` string, never a file that
inductor generated. Nothing else happens in traced code: no warning, no value read, no guard, so
no graph break and no recompilation.

Why it stays in the graph and before the kernel: the op returns a 0-d one per tensor it reads,
and the wrapper passes each tensor it reads (an index, a target, BCE's probabilities) multiplied
by its one (exact) to the original op. The kernel that reads it then depends on the check: no
pass removes the check and no scheduler runs the kernel first. Tensors whose values the check does not read (logits, an indexed
table) are passed for their shapes only. Inductor never partitions or fuses this graph with the
check in it: `_placement.py` takes the checks out of the joint graph before AOTAutograd's
partitioner and puts them back into the forward graph after it (with their sizes instead of the
shape-only tensors) as `check_through`, which declares that it writes the graph's inputs it
checks (it never does), so that inductor orders the kernels that read them after it without
arithmetic, and fuses, saves and materialises what it would without labelguard (`check_one`
where a check reads no input). The ops are tagged `cudagraph_unsafe`: under
`mode="reduce-overhead"` inductor's graph partition runs it outside the CUDA graphs, every step
(torch 2.15, torch/_inductor/scheduler.py: a node for which `is_cudagraph_unsafe_op` holds is a
partition boundary, "CUDAGraph-unsafe custom ops"; with `graph_partition` off,
`get_first_incompatible_cudagraph_node` skips CUDA graphs for the graph), never inside a capture,
where the check's host synchronisation is not allowed and a replay would skip it.
"""

from __future__ import annotations

import json
import linecache
import os
import re
import sys
import warnings
from types import CodeType
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from . import _native
from ._callsite import module_of_file, owner
from ._guard import Probed, config, never, state
from ._tensors import shape_view
from ._userframe import function_name

#: wrapper key -> the eager check of one call: checker(args, kwargs, traced) raises or warns.
CHECKERS: Dict[str, Callable[[Tuple[Any, ...], Dict[str, Any], "Traced"], None]] = {}
#: wrapper key -> its op's native binding, where `_native.valid_call(binding, args, kwargs)`
#: passes a valid call as CHECKERS' checker would (the wrappers `enable()` builds from the table).
NATIVE: Dict[str, Any] = {}
#: Bumped by each `enable()` that builds wrappers, so the native paths built from NATIVE's
#: bindings before it are built again (`_Through.native`).
GENERATION = [0]
#: The keys of the ops that raise for no values of what their check reads (the table's
#: `raises_on_values`: BCE-with-logits, kl_div): a compiled step checks them without holding
#: back the kernels that read those tensors (`_placement._place`).
AFTER_KERNELS: set = set()
#: wrapper key -> its op's `within` by position and by name: the values of a tensor argument
#: that never change the verdict (`_placement._settled`).
WITHIN: Dict[str, Dict[Any, Tuple[float, float]]] = {}
#: wrapper key -> its op's lists of index tensors (the table's use "indices"), by position and
#: by name: the k-th tensor of such a list indexes dim k of the op's first argument, and any
#: integer index within that dim never changes the verdict (`_placement._index_zeros`).
INDEXES: Dict[str, FrozenSet[Any]] = {}


_OP: List[Any] = []  # the registered op and its library, once enable() has run
_SPECS: Dict[str, "_Plan"] = {}


#: The op's namespace: the package's name, `labelguard`, or another where a second build is
#: loaded beside this one under another name (bench/baseline.py): torch allows one library per
#: namespace in a process.
_NAMESPACE = __name__.split(".")[0]


def register() -> None:
    """Registers `labelguard::check` once per process (enable() calls it; torch is imported).
    A plain `torch.library.Library` kernel: its call costs about 6 µs where `custom_op`'s
    wrapper costs 19 (the tensors it gets never require grad: the wrapper detaches them)."""
    if _OP:
        return
    torch = sys.modules["torch"]
    lib = torch.library.Library(_NAMESPACE, "DEF")
    for name, kernel, fake, schema in (
        ("check", _run, _fake, "Tensor[] tensors, SymInt[] dims, float[] floats, str spec) -> Tensor[]"),
        ("check_through", _run_through, _fake_through, "Tensor(a!)[] held, Tensor[] tensors, SymInt[] dims, float[] floats, str spec) -> ()"),
        ("check_one", _run_one, _fake_one, "Tensor[] tensors, SymInt[] dims, float[] floats, str spec) -> Tensor"),
    ):
        lib.define(f"{name}({schema}", tags=(torch.Tag.cudagraph_unsafe,))
        lib.impl(name, kernel, "CompositeExplicitAutograd")
        torch.library.register_fake(f"{_NAMESPACE}::{name}", fake, lib=lib)
    ops = getattr(torch.ops, _NAMESPACE)
    # A check op whose output nothing reads is kept (`check_through` returns nothing; the
    # multiplies of a `check_one` may be dead): fx's dead-code elimination and inductor's
    # scheduler keep a node whose target has a side effect (torch 2.15: fx/node.py
    # `has_side_effect`, _library/utils.py `is_impure`).
    torch.fx.node.has_side_effect(ops.check_through.default)
    torch.fx.node.has_side_effect(ops.check_one.default)
    for overload, kernel in ((ops.check.default, _run), (ops.check_through.default, _run_through), (ops.check_one.default, _run_one)):
        _call_directly(overload, kernel, torch)
    _OP.extend((ops.check.default, lib, _outside_dynamo(torch)))


def _call_directly(overload: Any, kernel: Callable, torch: Any) -> None:
    """Lets a call of the op with plain tensors, outside any mode or transform, run its kernel
    without torch's dispatcher. Inductor's code calls the op between two of its kernels, where
    the dispatcher's round trip (the arguments to IValues and back, the autograd fallback) cost
    a one-hot step about 30 µs per call, as much as the check itself; for such a call the
    dispatcher would reach this same kernel (CompositeExplicitAutograd, no autograd formula, no
    kernel of a device's own). With the profiler on, the call runs the kernel inside a
    `record_function` of the op's name, so a profile shows it (through the dispatcher,
    `check_through`'s declared write of an inference tensor, outside inference mode, raised
    "Inference tensors do not track version counter"). Any other call (fake or functional
    tensors while torch traces, a dispatch or torch-function mode, a functorch transform, an
    input that needs a gradient while grad mode is on) goes through the dispatcher as before.
    `OpOverload.__call__` calls the overload's `_op` (torch 2.0 to 2.15; torch 2.15 swaps it
    itself for its PyObject dispatch); where torch lacks a piece this needs, nothing changes."""
    C = torch._C
    dispatch = getattr(overload, "_op", None)
    modes = getattr(C, "_len_torch_dispatch_stack", None)
    function_modes = getattr(C, "_is_torch_function_mode_enabled", None)
    transforms = getattr(getattr(C, "_functorch", None), "peek_interpreter_stack", None)
    profiler = sys.modules.get("torch.autograd.profiler")
    record = getattr(profiler, "record_function", None)
    if None in (dispatch, modes, function_modes, transforms, record) or not hasattr(profiler, "_is_profiler_enabled"):
        return
    grad_enabled, plain, name = C.is_grad_enabled, torch.Tensor, overload.name()

    def call(*args: Any) -> Any:
        if modes() or function_modes() or transforms() is not None:
            return dispatch(*args)
        grad = grad_enabled()
        for listed in args[:-3]:
            for t in listed:
                if type(t) is not plain or (grad and t.requires_grad):
                    return dispatch(*args)
        if profiler._is_profiler_enabled:
            with record(name):
                return kernel(*args)
        return kernel(*args)

    overload._op = call


def _fake(tensors: Sequence[Any], dims: Sequence[Any], floats: Sequence[Any], spec: str) -> List[Any]:
    if _refused(tensors, dims, floats, spec):
        # Dynamo treats this as an op whose output shape depends on the data: it breaks the
        # graph before the call, which then runs eagerly, where its wrapper's check raises.
        raise sys.modules["torch"]._subclasses.fake_tensor.DynamicOutputShapeException(_OP[0])
    return [t.new_empty(()) for t in tensors]


def _fake_through(held: Sequence[Any], tensors: Sequence[Any], dims: Sequence[Any], floats: Sequence[Any], spec: str) -> None:
    return None


def _fake_one(tensors: Sequence[Any], dims: Sequence[Any], floats: Sequence[Any], spec: str) -> Any:
    return _one(tensors)


def _one(tensors: Sequence[Any]) -> Any:
    """`check_one`'s output: a new 0-d True (a buffer inductor owns, and may reuse) on the
    device of the tensors it reads; times True keeps every dtype, bool included."""
    torch = sys.modules["torch"]
    return tensors[0].new_ones((), dtype=torch.bool) if tensors else torch.ones((), dtype=torch.bool)


def _run(tensors: Sequence[Any], dims: Sequence[int], floats: Sequence[float], spec: str) -> List[Any]:
    """`check`, in dynamo's graph: the check, then a 0-d one per tensor (`in_graph`)."""
    ones = [t.new_ones(()) for t in tensors]
    _check(tensors, dims, floats, spec)
    return ones


def _run_through(held: Sequence[Any], tensors: Sequence[Any], dims: Sequence[int], floats: Sequence[float], spec: str) -> None:
    """`check_through`: the checks of one place in the forward graph inductor compiles
    (`_placement.py`), on the op's `held` tensors, then its `tensors`. The op returns nothing:
    its schema says it writes `held` (it never does), so inductor runs the kernels that read
    them after it, and each kernel is the one inductor generates without labelguard. (A
    multiply by a 0-d one inlined into every load cost a 15 ms embedding step 5%; a copy of
    the input, which this replaces, cost each call a buffer, about 15 µs between kernels.)"""
    _judge([*held, *tensors] if held else tensors, dims, floats, spec)


def _run_one(tensors: Sequence[Any], dims: Sequence[int], floats: Sequence[float], spec: str) -> Any:
    """`check_one`: the checks of one place that read no input of the graph, then a 0-d True
    that the later readers of what they read are multiplied by (`_placement._feed`)."""
    _judge(tensors, dims, floats, spec)
    return _one(tensors)


def _judge(tensors: Sequence[Any], dims: Sequence[int], floats: Sequence[float], spec: str) -> None:
    """A valid call's path is one native test of all the checks of one place (`_native.Through`:
    each as `_native.valid_call` tests an eager call); any other call takes the eager
    checkers' path."""
    if config["active"] and not state.depth:
        through = _through_of(spec)
        native = through.native()
        if native is None or not native.valid(tensors, dims, floats):
            for plan, read, dim, dim_end, number, number_end in through.checks:
                _check_plan(plan, [tensors[i] for i in read], dims[dim:dim_end], floats[number:number_end])


class _Through:
    """`check_through`'s spec, parsed: per check its plan, the positions of the tensors it reads
    (among the op's `held`, then its `tensors`) and its slices of the op's dims and floats."""

    __slots__ = ("checks", "_native")

    def __init__(self, spec: str):
        d = json.loads(unwired(spec))
        self.checks = []
        dim, number = 0, 0
        for part, read, ndims, nfloats in d["checks"]:
            self.checks.append((_plan_of(part), read, dim, dim + ndims, number, number + nfloats))
            dim, number = dim + ndims, number + nfloats
        self._native: Tuple[int, Any] = (-1, None)

    def native(self) -> Any:
        """The checks' native valid path for the wrappers `enable()` built last (their bindings
        hold its `finite`); None where a check has none (an indexing key, an argument it does
        not rebuild)."""
        generation, native = self._native
        if generation != GENERATION[0]:
            bindings = [NATIVE.get(plan.key) for plan, *_ in self.checks]
            native = None
            if all(b is not None for b in bindings):
                try:
                    native = _native.Through(
                        [(b, json.dumps(plan.slots), list(plan.names), read, dim, number) for b, (plan, read, dim, _, number, _) in zip(bindings, self.checks)]
                    )
                except ValueError:
                    native = None
            self._native = (GENERATION[0], native)
        return native


_THROUGH: Dict[str, _Through] = {}
_WIRED = {"%": "%25", '"': "%22", "\\": "%5C"}
_UNWIRED = {v: k for k, v in _WIRED.items()}


def wired(spec: str) -> str:
    """A placed op's spec in characters that every wrapper inductor writes keeps as they are:
    the C++ wrapper (`torch._inductor.config.cpp_wrapper`) writes a string argument into a C++
    literal unescaped (torch 2.15: `PyUnicode_FromString("...")`), where a quote or a backslash
    of the JSON failed the step's compile. So `%`, `"` and `\\` are written %25, %22, %5C."""
    return re.sub(r'[%"\\]', lambda m: _WIRED[m.group()], spec)


def unwired(spec: str) -> str:
    return re.sub(r"%(25|22|5C)", lambda m: _UNWIRED[m.group()], spec)


def _through_of(spec: str) -> _Through:
    """`check_through`'s spec, parsed once."""
    through = _THROUGH.get(spec)
    if through is None:
        through = _THROUGH[spec] = _Through(spec)
    return through


def _check(tensors: Sequence[Any], dims: Sequence[int], floats: Sequence[float], spec: str) -> None:
    if config["active"] and not state.depth:
        _check_plan(_plan_of(spec), tensors, dims, floats)


def _check_plan(plan: "_Plan", tensors: Sequence[Any], dims: Sequence[int], floats: Sequence[float]) -> None:
    """The eager checker of the call, on the call rebuilt from the op's inputs."""
    checker = CHECKERS.get(plan.key)
    if checker is not None:
        args, kwargs = plan.call(tensors, dims, floats)
        _OP[2](checker, args, kwargs, plan.traced)


def _plan_of(spec: str) -> "_Plan":
    """The parsed spec, parsed once per spec (at run time, and by the trace-time probe)."""
    plan = _SPECS.get(spec)
    if plan is None:
        plan = _SPECS[spec] = _Plan(spec)
    return plan


def _call(checker: Callable, args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: "Traced") -> None:
    """A checker's call, with dynamo's frame hook off (`_outside_dynamo`): when the op runs
    eagerly after a graph break (`_refused`), dynamo would otherwise try to compile the
    checker's frames."""
    checker(args, kwargs, traced)


def _outside_dynamo(torch: Any) -> Callable:
    """`_call` with dynamo's frame hook off while it runs: the hook's own switch, set to None
    and back (torch 2.15, torch/_dynamo/eval_frame.py: what `compiler.disable`'s wrapper does
    first, before its stance and export handling; inside the op that handling cost each check
    about 11 µs of 140 on a machine at load 12, paired medians). Where torch lacks the switch:
    `compiler.disable`."""
    set_frame = getattr(getattr(getattr(torch._C, "_dynamo", None), "eval_frame", None), "set_eval_frame", None)
    if set_frame is None:
        return torch.compiler.disable(_call)

    def call(checker: Callable, args: Tuple[Any, ...], kwargs: Dict[str, Any], traced: "Traced") -> None:
        prior = set_frame(None)
        try:
            checker(args, kwargs, traced)
        finally:
            set_frame(prior)

    return call


class Traced:
    """Where dynamo was tracing the call: frames innermost first, each (module, file, line,
    function, source line), ending at the user's frame when dynamo traced one."""

    __slots__ = ("frames",)

    def __init__(self, frames: Sequence[Sequence[Any]]):
        self.frames = [tuple(f) for f in frames]

    def user(self) -> Optional[Tuple[str, int, str, str]]:
        last = self.frames[-1] if self.frames else None
        return None if last is None or last[0] else (last[1], last[2], last[3], last[4])

    def with_callers(self) -> "Traced":
        """When dynamo's frame began inside a library (a graph break resumed there), the user's
        frame is among the live callers of the compiled code: the frames outside the outermost
        traced one are added (only when a check has failed)."""
        if self.user() is not None or not self.frames:
            return self
        outermost = self.frames[-1][1]
        live = sys._getframe(1)
        while live is not None and live.f_code.co_filename != outermost:
            live = live.f_back
        callers = []
        while live is not None and live.f_back is not None:
            live = live.f_back
            code = live.f_code
            top = owner(live.f_globals.get("__name__"), code.co_filename)
            callers.append((top, code.co_filename, live.f_lineno, getattr(code, "co_qualname", code.co_name), linecache.getline(code.co_filename, live.f_lineno).strip()))
            if not top:
                break
        return Traced(self.frames + callers)

    def describe(self) -> str:
        """The user's line inside the compiled code, for the end of the message."""
        user = self.user()
        if user is None:
            return "in torch.compile'd code (no frame of your own code was traced)"
        file, line, function, code = user
        function = function_name(function.rsplit("<locals>.", 1)[-1])
        return f"in torch.compile'd code at {file}:{line}, in {function}" + (f"\n    {code}" if code else "")


def dims_of(slot: Sequence[Any]) -> int:
    """How many of the op's `dims` a slot of the spec takes."""
    kind = slot[0]
    if kind == "tl":
        return sum(z[1] for z in slot[4] if z) if len(slot) > 4 else 0
    return slot[2] if kind == "s" else 1 if kind == "i" else slot[1] if kind == "l" else sum(slot[1]) if kind == "sl" else 0


class _Plan:
    """A parsed spec: how to rebuild the call's (args, kwargs) from the op's run-time inputs."""

    def __init__(self, spec: str):
        d = json.loads(spec)
        self.key: str = d["key"]
        self.slots: List[list] = d["slots"]
        self.names: List[str] = d["names"]
        self.traced = Traced(d["frames"])

    def call(self, tensors: Sequence[Any], dims: Sequence[int], floats: Sequence[float]) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
        """The call's (args, kwargs) from the values the op got (`in_graph`)."""
        torch = sys.modules["torch"]
        values: List[Any] = []
        cursor = 0
        for slot in self.slots:
            kind = slot[0]
            if kind == "t":
                values.append(tensors[slot[1]])
            elif kind == "s":
                ndim = slot[2]
                values.append(shape_view(getattr(torch, slot[1]), tuple(dims[cursor:cursor + ndim])))
                cursor += ndim
            elif kind == "v":
                values.append(shape_view(getattr(torch, slot[2]), tuple(tensors[slot[1]].shape)))
            elif kind == "i":
                values.append(int(dims[cursor]))
                cursor += 1
            elif kind == "l":
                values.append([int(d) for d in dims[cursor:cursor + slot[1]]])
                cursor += slot[1]
            elif kind == "f":
                values.append(float(floats[slot[1]]))
            elif kind == "e":
                values.append(Ellipsis)
            elif kind == "tl":
                values.append(_tensor_list(slot, tensors, dims[cursor:cursor + dims_of(slot)]))
                cursor += dims_of(slot)
            elif kind == "sl":
                bounds = []
                for present in slot[1]:
                    bounds.append(int(dims[cursor]) if present else None)
                    cursor += present
                values.append(slice(*bounds))
            else:
                values.append(slot[1])
        npos = len(values) - len(self.names)
        return tuple(values[:npos]), dict(zip(self.names, values[npos:]))


# ------------------------------------------------------------------------------------------------
# Trace time: what dynamo runs in the wrapper. Plain loops over the call's arguments and one
# constant function (`_spec`), so that dynamo traces it without a break.
# ------------------------------------------------------------------------------------------------

_CONSTANTS = (bool, str, type(None))


def _slot(key: Any, value: Any, roles: Dict[Any, str], torch: Any, tensors: List[Any], dims: List[Any], floats: List[Any]) -> Tuple[Any, ...]:
    role = roles.get(key)
    if role == "drop":
        return ("c", None)  # never read by the check (max_norm, sparse, ...): whatever it is
    if isinstance(value, torch.Tensor):
        if role == "read":
            tensors.append(value.detach())
            return ("t", len(tensors) - 1)
        # Passed as the tensor, for its shape only (inductor's graph gets its sizes instead,
        # `_placement.py`): its sizes as arguments of their own would be symbolic expressions
        # under dynamic=True that AOTAutograd then reuses in other nodes of the graph.
        tensors.append(value.detach())
        return ("v", len(tensors) - 1, value.dtype)
    # Numbers go to the op as numbers, constant or not: under dynamic=True dynamo may hold a
    # module's int or float attribute (ignore_index, label_smoothing) as a symbol.
    if type(value) is int or isinstance(value, torch.SymInt):
        dims.append(value)
        return ("i",)
    if type(value) is float or isinstance(value, torch.SymFloat):
        floats.append(value)
        return ("f", len(floats) - 1)
    if type(value) in _CONSTANTS:
        return ("c", value)
    if value is Ellipsis:
        return ("e",)
    if type(value) is slice:
        # A slice of an indexing key: each bound None or a number (a SymInt under dynamic=True).
        bounds = (value.start, value.stop, value.step)
        if not all(b is None or type(b) is int or isinstance(b, torch.SymInt) for b in bounds):
            return ("x",)
        dims.extend(b for b in bounds if b is not None)
        return ("sl", [b is not None for b in bounds])
    if type(value) in (list, tuple) and all(type(v) is int or isinstance(v, torch.SymInt) for v in value):
        dims.extend(value)  # (ctc_loss's lengths)
        return ("l", len(value))
    if role == "read" and type(value) in (list, tuple) and all(isinstance(v, torch.Tensor) for v in value):
        # A list of tensors (index_put's indices): each one read, at the op's tensors from
        # position slot[1] on. (PyTorch takes no None in them from Python: a TypeError of its own.)
        tensors.extend(v.detach() for v in value)
        return ("tl", len(tensors) - len(value), len(value), type(value) is tuple)
    return ("x",)  # anything else (a generator, a complex number): the call is not judged in the graph


def in_graph(key: str, roles: Dict[Any, str], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
    """Called by a wrapper while dynamo traces it: puts the check into the graph and returns the
    arguments to pass to the original op (the tensors the check reads, times its ones).
    `roles`: by position and by name, "read" for the tensors whose values the check reads (the
    others go by shape), "drop" for the arguments it never looks at."""
    torch = _TORCH[0]
    tensors: List[Any] = []
    dims: List[Any] = []
    floats: List[Any] = []
    slots = [_slot(i, v, roles, torch, tensors, dims, floats) for i, v in enumerate(args)]
    names = tuple(kwargs)
    slots += [_slot(k, kwargs[k], roles, torch, tensors, dims, floats) for k in names]
    spec = _spec(key, tuple(slots), names)
    if not spec:
        return args, kwargs
    ones = _OP[0](tensors, dims, floats, spec)
    out = list(args) + [kwargs[k] for k in names]
    for i, slot in enumerate(slots):
        # Integer, bool and float tensors alike: times one is exact for each (NaN, inf and -0.0
        # included), and a float tensor the check reads (BCE's probabilities and targets) must
        # feed the kernel too, or nothing uses the op's output and it is removed as dead code.
        if slot[0] == "t" and not out[i].is_complex():
            out[i] = out[i] * ones[slot[1]]
        elif slot[0] == "tl":
            out[i] = _times_ones(out[i], ones, slot[1])
    return tuple(out[: len(args)]), dict(zip(names, out[len(args):]))


def _times_ones(listed: Any, ones: Sequence[Any], first: int) -> Any:
    """A list (or tuple) of tensors as `in_graph` passes it on: each tensor times its one."""
    items = [t if t.is_complex() else t * ones[first + k] for k, t in enumerate(listed)]
    return tuple(items) if type(listed) is tuple else items


def _tensor_list(slot: Sequence[Any], tensors: Sequence[Any], dims: Sequence[int]) -> Any:
    """A "tl" slot's list (or tuple) of tensors, from the op's `tensors` (`count` from `first`).
    A placed check's slot may have a fifth item, per tensor of the list None (the next of those
    read) or [dtype, ndim]: an index that the graph proved in range, as zeros of its sizes,
    which come from `dims` (`_placement._index_zeros`)."""
    first, count, is_tuple = slot[1], slot[2], slot[3]
    read = iter(tensors[first:first + count])
    items, cursor = [], 0
    for zeros in slot[4] if len(slot) > 4 else [None] * count:
        if zeros is None:
            items.append(next(read))
        else:
            items.append(shape_view(getattr(sys.modules["torch"], zeros[0]), tuple(int(n) for n in dims[cursor:cursor + zeros[1]])))
            cursor += zeros[1]
    return tuple(items) if is_tuple else items


_TORCH: List[Any] = []


def dynamo_test() -> Callable[[], bool]:
    """torch.compiler.is_dynamo_compiling (True only while dynamo traces), or `never`."""
    return getattr(getattr(sys.modules["torch"], "compiler", None), "is_dynamo_compiling", never)


def replaying() -> bool:
    """True when AOTAutograd replays a node of dynamo's graph that calls a wrapper itself.
    Dynamo records some calls without tracing into them, so no wrapper ran while it traced:
    `nn.CrossEntropyLoss()` built inside `forward` (transformers' heads) becomes a node that
    calls `torch.nn.functional.cross_entropy`, the wrapper; a method of a tensor computed inside
    the compiled code becomes a `call_method` node. Such a node's stack ends in the user's code
    (or a library's); a node that a wrapper made, after the check it put in, ends in labelguard's
    own frame and is not checked again. Only a call the node makes itself is checked (its
    caller is fx's Interpreter): torch's own decompositions that AOTAutograd runs while it
    replays a node (max_pool2d's backward calls `scatter_add`) are torch's business, and
    checking them would cost steps milliseconds."""
    if _replayed_node() is None:  # (first: dynamo, tracing a wrapper, must not meet _getframe)
        return False
    return sys._getframe(2).f_code.co_filename.endswith(_INTERPRETER)  # 0: here, 1: the wrapper


_INTERPRETER = (f"fx{os.sep}interpreter.py", "fx/interpreter.py")


def _replayed_node() -> Optional[str]:
    """The stack trace of the node AOTAutograd is replaying, unless a wrapper made the node."""
    fx_traceback = getattr(getattr(sys.modules["torch"], "fx", None), "traceback", None)
    if fx_traceback is None or not fx_traceback.has_preserved_node_meta():
        return None
    trace = (fx_traceback.get_current_meta() or {}).get("stack_trace")
    frames = _FRAME.findall(trace) if trace else []
    if not frames or module_of_file(frames[-1][0]) == "labelguard":
        return None
    return trace


def replay(key: str, roles: Dict[Any, str], original: Callable, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """A wrapper's call while AOTAutograd replays its node (`replaying`): the check goes into
    the graph AOTAutograd records, then the original op runs once, with the wrappers it reaches
    again (a tensor method's own dispatch) passed through."""
    args, kwargs = in_graph(key, roles, args, kwargs)
    state.depth += 1
    try:
        return original(*args, **kwargs)
    finally:
        state.depth -= 1


def prepare() -> None:
    """What trace time needs, once: torch, the op, and `_spec` as a function that dynamo calls
    while it traces and whose result it keeps as a constant (enable() calls it)."""
    global _spec, _MASKS
    if _TORCH:
        return
    torch = sys.modules["torch"]
    _MASKS = (torch.bool, torch.uint8)
    register()
    _spec = torch._dynamo.assume_constant_result(_spec_impl)
    _TORCH.append(torch)


def skip_top_level(factories: Sequence[Callable]) -> None:
    """Dynamo never starts a frame at a wrapper (the `labelguard_*` functions that `factories`
    define). Where a compiled function runs eagerly (after a graph break, or a frame dynamo gave
    up on), dynamo's frame hook would otherwise compile each wrapped call as a frame of its own:
    `x[s]` compiled as `labelguard_getitem`, guarded on `key == 0` and recompiled for the next key,
    the checker's own calls counted as graph breaks; none of that happens without labelguard.
    A skipped code is still inlined wherever dynamo traces a call to it (torch 2.15,
    torch/_dynamo/eval_frame.py `skip_code`: the frame's own action SKIP, its callees' DEFAULT,
    so a user's `forward` that a wrapped module call reaches is compiled as it is without
    labelguard)."""
    skip = getattr(getattr(sys.modules["torch"]._dynamo, "eval_frame", None), "skip_code", None)
    if skip is None:
        return
    for factory in factories:
        for code in factory.__code__.co_consts:
            if isinstance(code, CodeType) and code.co_name.startswith("labelguard_"):
                skip(code)


_CACHE_SETTING: List[Any] = []  # AOTAutograd's cache switch as enable() found it


def hold_autograd_cache() -> None:
    """Switches AOTAutograd's cache off while labelguard is on. Its key is dynamo's graph, and the
    checks put in while AOTAutograd replays that graph (`replaying`) leave dynamo's graph as it
    was: an artifact compiled without labelguard would be served to a run with it (no check), and
    one with the checks to a run without it. Inductor's own cache keys on AOTAutograd's output,
    which holds the checks, and stays on."""
    config = getattr(getattr(sys.modules["torch"], "_functorch", None), "config", None)
    if config is None or not hasattr(config, "enable_autograd_cache") or _CACHE_SETTING:
        return
    _CACHE_SETTING.append(config.enable_autograd_cache)
    config.enable_autograd_cache = False


def release_autograd_cache() -> None:
    """Restores AOTAutograd's cache switch (disable())."""
    if _CACHE_SETTING:
        sys.modules["torch"]._functorch.config.enable_autograd_cache = _CACHE_SETTING.pop()


def _refused(tensors: Sequence[Any], dims: Sequence[Any], floats: Sequence[Any], spec: str) -> bool:
    """Whether dynamo, tracing a call, should leave it to eager code: the call breaks a rule
    decided by metadata alone (a class-weight or pos_weight of the wrong length, a float target,
    a bad dim), which PyTorch refuses whatever the values, so dynamo's own trace of the op would
    fail with its TorchRuntimeError. Its check runs here on zero tensors of the call's shapes and
    dtypes (a symbolic size by its example value: no guard is added). Never under fullgraph (or
    error_on_graph_break), where the graph break is not allowed: dynamo's error stands there."""
    torch = sys.modules["torch"]
    convert = torch._dynamo.symbolic_convert
    tx = getattr(convert.tls, "current_tx", None)
    if tx is None or getattr(tx, "one_graph", True) or getattr(convert, "_get_error_on_graph_break", never)() or not config["active"]:
        return False
    if any(t.dtype in _MASKS for t in tensors):
        return False  # a mask's count of True values shapes the call: zeros would misjudge it
    plan = _plan_of(spec)
    checker = CHECKERS.get(plan.key)
    hint = lambda v: v.node.hint if hasattr(v, "node") else v  # noqa: E731 - a SymInt's example value
    sizes = [hint(d) for d in dims] + [hint(d) for t in tensors for d in t.shape]
    if checker is None or any(v is None for v in sizes) or any(hint(f) is None for f in floats):
        return False
    with torch._subclasses.fake_tensor.unset_fake_temporarily():
        start = len(dims)
        zeros = []
        for t in tensors:
            zeros.append(torch.zeros((), dtype=t.dtype).expand(sizes[start:start + t.dim()]))
            start += t.dim()
        args, kwargs = plan.call(zeros, sizes[: len(dims)], [hint(f) for f in floats])
        state.probing = True
        try:
            checker(args, kwargs, plan.traced)
        except Probed as probed:
            return any(f.code in _METADATA_RULES for f in probed.report.findings)
        except Exception:  # noqa: BLE001 - a probe that cannot run decides nothing
            return False
        finally:
            state.probing = False
    return False


_METADATA_RULES = frozenset(_native.metadata_rules())
_MASKS: Tuple[Any, ...] = ()  # (torch.bool, torch.uint8), set by prepare()


def _spec_impl(key: str, slots: Tuple[Tuple[Any, ...], ...], names: Tuple[str, ...]) -> str:
    """The op's constant argument: the call's layout and the frames dynamo was tracing. Empty
    when the call holds an argument that cannot be rebuilt at run time."""
    if any(s[0] == "x" for s in slots):
        _unchecked(key)
        return ""
    plain = [["v", s[1], str(s[2]).removeprefix("torch.")] if s[0] == "v" else list(s) for s in slots]
    return json.dumps({"key": key, "slots": plain, "names": list(names), "frames": traced_frames()})


_SAID_UNCHECKED: set = set()


def _unchecked(key: str) -> None:
    """Never silent: a call whose arguments the graph cannot carry to the check (a complex
    number, for one: `z.scatter(1, idx, 1j)`; the op takes tensors, lists of tensors, ints and
    floats) runs unchecked inside the compiled code, and the user is told so once per call site,
    at trace time (this runs outside the graph)."""
    where = Traced(traced_frames()).describe()
    if (key, where) in _SAID_UNCHECKED:
        return
    _SAID_UNCHECKED.add((key, where))
    from ._report import TargetWarning

    warnings.warn(
        f"labelguard does not check this {key} call {where}: one of its arguments (a complex number, "
        "or another value the compiled graph cannot pass to the check) cannot be checked inside torch.compile; "
        "the call runs unguarded there",
        TargetWarning,
        stacklevel=2,
    )


def traced_frames() -> List[list]:
    """The frames dynamo is tracing, innermost first, up to the first one of the user's code:
    dynamo's translators of the inlined calls (each knows its code and module), or, where that
    internal API is missing, the stack dynamo reports (files only)."""
    torch = _TORCH[0]
    frames: List[list] = []
    replayed = None if dynamo_test()() else _replayed_node()
    try:
        if replayed is not None:  # the node's own stack, as dynamo recorded it (outermost first)
            chain = [(None, f, int(n), name) for f, n, name in reversed(_FRAME.findall(replayed))]
        else:
            tx = torch._dynamo.symbolic_convert.InstructionTranslator.current_tx().output.current_tx
            chain = []
            while tx is not None:
                code = tx.f_code
                chain.append((tx.f_globals.get("__name__"), code.co_filename, tx.lineno, getattr(code, "co_qualname", code.co_name)))
                tx = tx.parent
    except AttributeError:
        chain = [(None, f.filename, f.lineno, f.name) for f in reversed(torch._guards.TracingContext.extract_stack())]
    for module, file, lineno, name in chain:
        top = owner(module, file)  # whose code: the user's (''), plumbing or a library's
        frames.append([top, file, lineno, name, linecache.getline(file, lineno or 0).strip()])
        if not top:
            break
    return frames


#: One frame of an FX node's `stack_trace` (the text of `traceback.format_list`).
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')

_spec: Callable[..., str] = _spec_impl  # the dynamo-constant version after prepare()
