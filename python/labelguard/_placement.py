"""Where inductor runs a compiled check: after AOTAutograd has split forward from backward, so
that the numbers are those of the same step without labelguard (issue 41).

Dynamo's graph holds the check as `_compiled.in_graph` put it: `labelguard::check`, whose 0-d
ones multiply each tensor it reads on its way to the guarded op. That edge keeps the check first
(AOTAutograd, `aot_eager`), but handed to inductor as it is, the check changes the graph that
AOTAutograd's min-cut partitioner splits: with the target consumed by the check, it saves other
intermediates for the backward (`exp` instead of `amax` and `log`), and the gradient kernels
round differently (an LM loss under `dynamic=True`: 7.5e-9). So for inductor:

1. `Strip`, the first joint-graph pass (`torch._inductor.config.joint_custom_pre_pass`, which
   runs before the partitioner and before inductor's own joint passes), takes every check and
   its multiplies out: what is partitioned is the graph without labelguard, node for node (the
   check takes a tensor it needs only the shape of as the tensor, `_compiled._slot`'s "v", so
   that no symbolic size is computed for it that other nodes would then reuse). Each check is
   kept aside (`_PENDING`): the names of the nodes it reads, its sizes by their expressions.
2. `Place`, the first post-grad pass (`post_grad_custom_pre_pass`), puts each kept check back
   into the forward graph that the partition made (the partitioner copies the joint graph's
   nodes under their names), right after the last node it reads; the checks that share a place
   are one call, and the sizes come from `sym_size` of the first tensor that has them. Inductor
   then runs the op before every kernel that reads what it guards, without one number of the
   graph changed (`_holding`): an input of the graph on the CPU (ids, labels) is an argument
   that `labelguard::check_through` declares it writes, so its later readers wait for the op
   and read the input itself, and each kernel is the one inductor generates without
   labelguard; a tensor the graph computes (only where the check reads no input), or an input
   on a GPU, reaches its later readers times the 0-d True that `labelguard::check_one` returns
   (`_feed`). A check of an op that raises for no values (BCE with logits' target) holds back
   no kernel: its op, which fx and inductor keep for its side effect, runs after the graph's
   kernels. The tensors the forward graph saves for the backward are left as they were.

A kept check that the forward graph proves passes (every tensor it reads by value built from
constants within the values that never change its verdict: a one-hot BCE target, `_settled`)
is decided once, here, and not placed. An index tensor that the forward graph proves within
the dim it indexes (the `arange` of `target.index_put_((torch.arange(n), labels), 1)`) is read
as zeros of its sizes instead (`_index_zeros`): the check still reads the labels, and inductor
does not write the `arange` to memory for it.

A kept check whose nodes the forward graph lacks is not dropped in silence: a `TargetWarning`
names the call that runs unguarded. The inductor cache keys on the kept checks (`Place.uuid`),
so a graph compiled without them is never served to a run with them.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import operator
import os
import sys
import warnings
from typing import Any, Dict, List, Optional

from ._report import TargetWarning

#: (in the passes' cache key: this file, `_compiled.py`, which runs what the passes place, and
#: `_ranges.py`, which proves what they leave out)
_SOURCE = "".join(open(os.path.join(os.path.dirname(__file__), f), encoding="utf-8").read() for f in ("_placement.py", "_compiled.py", "_ranges.py"))
#: (setting's name, its value as enable() found it, the value enable() gave it), while enabled.
_INSTALLED: List[Any] = []


def install() -> None:
    """Adds the two passes in front of inductor's configured ones (enable(), once dynamo is
    imported). By module name: dynamo may arrive while `torch._inductor` itself is still being
    imported (`torch.compile(backend="aot_eager")` imports inductor first, which imports dynamo),
    when the package has no `config` attribute yet."""
    if _INSTALLED:
        return
    config = importlib.import_module("torch._inductor.config")
    base = importlib.import_module("torch._inductor.custom_graph_pass").CustomGraphPass
    strip, place = _passes(base)
    for name, mine in (("joint_custom_pre_pass", strip), ("post_grad_custom_pre_pass", place)):
        found = getattr(config, name)
        others = () if found is None else tuple(found) if isinstance(found, (list, tuple)) else (found,)
        setting = (mine,) + others
        _INSTALLED.append((name, found, setting))
        setattr(config, name, setting)


def remove() -> None:
    """Gives each setting back as enable() found it, unless it was changed meanwhile: then only
    labelguard's pass is taken out of it (disable())."""
    config = importlib.import_module("torch._inductor.config") if _INSTALLED else None
    for name, found, setting in _INSTALLED:
        now = getattr(config, name)
        if now is setting:
            setattr(config, name, found)
        elif isinstance(now, (list, tuple)):
            setattr(config, name, type(now)(p for p in now if p is not setting[0]))
    _INSTALLED.clear()


#: The checks the last joint graph gave up, for the forward graph that its partition makes.
_PENDING: List[Dict[str, Any]] = []


def _passes(base: type) -> tuple:
    torch = sys.modules["torch"]
    check = _op("check")
    aten = torch.ops.aten
    passthrough = (aten.detach.default, aten.alias.default)

    class Strip(base):  # type: ignore[misc, valid-type]
        def __call__(self, graph: Any) -> None:
            _PENDING.clear()
            for node in [n for n in graph.nodes if n.target is check]:
                _PENDING.append(_kept(node, passthrough))
                _unhook(graph, node, passthrough)

        def uuid(self) -> Optional[str]:
            return "labelguard-strip-" + hashlib.sha256(_SOURCE.encode()).hexdigest()

    class Place(base):  # type: ignore[misc, valid-type]
        def __call__(self, graph: Any) -> None:
            if _PENDING and not any(n.op == "placeholder" and n.name.startswith("tangents") for n in graph.nodes):
                pending = list(_PENDING)
                _PENDING.clear()
                _place(graph, pending, _op("check_through"), _op("check_one"))

        def uuid(self) -> Optional[str]:
            from ._compiled import AFTER_KERNELS, INDEXES, WITHIN

            facts = sorted(AFTER_KERNELS) + sorted(map(repr, WITHIN.items())) + sorted(repr((k, sorted(map(str, v)))) for k, v in INDEXES.items())
            kept = repr([(r["spec"], r["tensors"], [str(d) for d in r["dims"]], [str(f) for f in r["floats"]]) for r in _PENDING] + facts)
            return "labelguard-place-" + hashlib.sha256((_SOURCE + kept).encode()).hexdigest()

    return Strip(), Place()


def _op(name: str) -> Any:
    from ._compiled import _NAMESPACE

    return getattr(getattr(sys.modules["torch"].ops, _NAMESPACE), name).default


def _source(node: Any, passthrough: tuple) -> Any:
    while getattr(node, "target", None) in passthrough:
        node = node.args[0]
    return node


def _kept(node: Any, passthrough: tuple) -> Dict[str, Any]:
    """A check node as names and expressions, which survive the partition's copy. A tensor the
    check takes for its shape only (a "v" slot) becomes its sizes (an "s" slot): the forward
    graph gets the sizes, never the tensor, which would have to be materialised for the check."""
    from ._compiled import dims_of

    tensors, dims, floats, spec = node.args
    d = json.loads(spec)
    slots, read, sizes, cursor = [], [], [], 0
    for slot in d["slots"]:
        if slot[0] == "t":
            read.append(_source(tensors[slot[1]], passthrough).name)
            slots.append(["t", len(read) - 1])
        elif slot[0] == "tl":
            slots.append(["tl", len(read), slot[2], slot[3]])
            read.extend(_source(t, passthrough).name for t in tensors[slot[1]:slot[1] + slot[2]])
        elif slot[0] == "v":
            shape = tensors[slot[1]].meta["val"].shape
            sizes.extend(shape)
            slots.append(["s", slot[2], len(shape)])
        else:
            taken = dims_of(slot)
            sizes.extend(dims[cursor:cursor + taken])
            cursor += taken
            slots.append(slot)
    d["slots"] = slots
    return {
        "spec": json.dumps(d),
        "tensors": read,
        "dims": [_value(v) for v in sizes],
        "floats": [_value(f) for f in floats],
    }


def _value(arg: Any) -> Any:
    """A number, or a symbolic one (a node, or a SymInt of a shape) by its expression."""
    val = arg.meta.get("val") if hasattr(arg, "meta") else arg
    return ("sym", val.node.expr) if hasattr(val, "node") else val


def _unhook(graph: Any, node: Any, passthrough: tuple) -> None:
    """Takes a check out: each `x * one` becomes `x` again, then the check and what only it read."""
    tensors = list(node.args[0])
    for item in list(node.users):
        for mul in list(item.users):
            other = mul.args[0] if mul.args[1] is item else mul.args[1]
            mul.replace_all_uses_with(other)
            graph.erase_node(mul)
        graph.erase_node(item)
    graph.erase_node(node)
    for t in tensors:
        while t.target in passthrough and not t.users:
            source = t.args[0]
            graph.erase_node(t)
            t = source


def _place(graph: Any, pending: List[Dict[str, Any]], held_op: Any, one_op: Any) -> None:
    """Puts each kept check into the forward graph, right after the last node it reads (a
    symbolic size: the first SymInt node or tensor of the graph that has it). The checks that
    share that place and the way they hold back kernels (`_holding`) are one op call
    (`_compiled._judge`'s parts): most read only the graph's inputs, and each call into the
    op's Python kernel costs a step about 10 µs. The checks that hold back no kernel go last,
    before the graph's output."""
    from ._compiled import AFTER_KERNELS, _plan_of, wired

    nodes = list(graph.nodes)
    named = {n.name: n for n in nodes}
    order = {n: i for i, n in enumerate(nodes)}
    places: Dict[Any, List[tuple]] = {}
    for record in pending:
        tensors = [named.get(name) for name in record["tensors"]]
        if all(t is not None for t in tensors):
            record, tensors = _index_zeros(record, tensors)
        dims = [_symbol(d, nodes) for d in record["dims"]]
        floats = [_symbol(f, nodes) for f in record["floats"]]
        if any(t is None for t in tensors) or any(v is _MISSING for v in dims + floats):
            _unplaced(record)
            continue
        if _settled(record, tensors):
            continue
        read = tensors + [v[0] for v in dims + floats if isinstance(v, tuple)]
        last = max(read, key=order.__getitem__) if read else nodes[0]
        if last.op == "placeholder":
            last = [n for n in nodes if n.op == "placeholder"][-1]
        holding = "after" if _plan_of(record["spec"]).key in AFTER_KERNELS else _holding(tensors)
        if holding == "after":
            # Last (see below), but before a node that writes what it reads (an input the step
            # mutates in place, written back at the graph's end): the check judges the values
            # the op read.
            last = next((n for n in nodes if any(_writes(n, t) for t in tensors)), nodes[-1])
        places.setdefault((last, holding), []).append((record["spec"], tensors, dims, floats))
    for (last, holding), checks in places.items():
        unique = list(dict.fromkeys(t for _, tensors, _, _ in checks for t in tensors))
        if holding == "after":
            # The checks that hold back no kernel run after every kernel of the graph (before
            # `last`): an op between two kernels keeps inductor from fusing them (the one-hot
            # target's scatter and the loss that reads it), and the kernels of the graph's
            # outputs are made as inductor reaches the output, after any node before it, unless
            # the op takes them too (it reads none of them).
            torch, outputs = sys.modules["torch"], []
            torch.fx.node.map_arg(nodes[-1].args, outputs.append)  # (each node the output holds)
            computed = (t for t in dict.fromkeys(outputs) if isinstance(t.meta.get("val"), torch.Tensor))
            unique += [t for t in computed if t.op != "placeholder" and order[t] < order[last] and t not in unique]
            last = last.prev
            held: List[Any] = []
        else:
            # What the op holds back: the kernels that read each graph input a check reads (the
            # op's own kernel reads every tensor its check reads, so its inputs are enough), or,
            # where a check reads none, those that read each tensor it reads.
            held = list(dict.fromkeys(t for _, tensors, _, _ in checks for t in ([i for i in tensors if i.op == "placeholder"] or tensors)))
        parts, sizes, numbers = [], [], []
        with graph.inserting_after(last):
            if holding == "one":
                op_args: tuple = (unique,)
            else:
                unique = held + [t for t in unique if t not in held]
                op_args = (unique[:len(held)], unique[len(held):])
            for spec, tensors, dims, floats in checks:
                parts.append([spec, [unique.index(t) for t in tensors], len(dims), len(floats)])
                sizes += [_size_node(graph, v) for v in dims]
                numbers += [_size_node(graph, v) for v in floats]
            node = graph.call_function(one_op if holding == "one" else held_op, op_args + (sizes, numbers, wired(json.dumps({"checks": parts}))))
            node.meta["val"] = _fake_output(holding, [t.meta["val"] for t in unique])
            if holding == "one":
                _feed(graph, node, held)


def _holding(tensors: List[Any]) -> str:
    """How a check that guards a kernel holds it back. "held" where it reads an input of the
    graph on the CPU: `check_through` declares that it writes that input (it never does), so
    inductor runs every later reader of it after the op, and each kernel is the one inductor
    generates without labelguard. Otherwise "one": `check_one` returns a 0-d True, and the
    later readers of what the check reads read it times that (`_feed`). An input on a GPU is
    not declared written: inductor would run each CUDA graph that reads it without a graph
    (torch 2.15, cudagraph_utils.py `get_partition_cudagraph_metadata`) and copy it when it is
    misaligned, then write the copy back into the caller's tensor (output_code.py
    `maybe_realign_inputs`)."""
    inputs = [t for t in tensors if t.op == "placeholder"]
    return "held" if inputs and all(t.meta["val"].device.type == "cpu" for t in inputs) else "one"


def _fake_output(holding: str, vals: List[Any]) -> Any:
    from ._compiled import _one

    return _one(vals) if holding == "one" else None


def _settled(record: Dict[str, Any], tensors: List[Any]) -> bool:
    """Whether a check is decided here, once, and so left out of the graph: every tensor it
    reads by value is one the graph computes and proves within the values that never change
    its verdict (`_ranges.proven`, the table's `within`: a one-hot target of BCE in [0, 1]),
    and every size and number it takes is a constant. The check is then the same on every step
    whatever the values: the native test judges it on zeros of those shapes (within the same
    bounds, so judged alike). Only a pass leaves the check out; a call it refuses stays in the
    graph and is refused at run time, on the step's own tensors."""
    from ._compiled import WITHIN, _plan_of, _Through, dims_of, wired
    from ._ranges import proven

    plan = _plan_of(record["spec"])
    within = WITHIN.get(plan.key)
    if not within or any(isinstance(v, tuple) for v in record["dims"] + record["floats"]):
        return False
    positional = len(plan.slots) - len(plan.names)
    slots, dims, cursor = [], [], 0
    for i, slot in enumerate(plan.slots):
        if slot[0] == "tl":
            return False
        if slot[0] == "t":
            bounds, node = within.get(plan.names[i - positional] if i >= positional else i), tensors[slot[1]]
            interval = proven(node) if bounds is not None else None
            if interval is None or not bounds[0] <= interval[0] <= interval[1] <= bounds[1]:
                return False
            val = node.meta["val"]
            if not all(type(n) is int for n in val.shape):
                return False  # (a symbolic size: reading it as a number would guard on it)
            slots.append(["s", str(val.dtype).replace("torch.", ""), val.dim()])
            dims.extend(val.shape)
            continue
        taken = dims_of(slot)
        dims.extend(record["dims"][cursor:cursor + taken])
        cursor += taken
        slots.append(slot)
    d = json.loads(record["spec"])
    d["slots"] = slots
    # (a `_Through` of its own: the op never runs this spec, so `_through_of`'s cache keeps none)
    native = _Through(wired(json.dumps({"checks": [[json.dumps(d), [], len(dims), len(record["floats"])]]}))).native()
    return native is not None and bool(native.valid([], dims, record["floats"]))


def _index_zeros(record: Dict[str, Any], tensors: List[Any]) -> tuple:
    """The check with each index tensor that the forward graph proves within the dim it
    indexes (`_ranges.proven`: the `arange` beside a one-hot's labels in
    `target.index_put_((torch.arange(n), labels), 1)`) read as zeros of its sizes instead: any
    such index gives the verdict that zero gives (the table's use "indices", `INDEXES`), and a
    tensor the check does not read is one inductor need not write to memory for it (the
    `arange` stays inside the kernel that writes the one-hot). Only where every index of the
    list is an integer tensor (a mask's values decide the shape of the result), its shape and
    the indexed input's sizes are constants."""
    from ._compiled import INDEXES, _plan_of, dims_of

    plan = _plan_of(record["spec"])
    lists = INDEXES.get(plan.key)
    if not lists or not plan.slots or plan.slots[0][0] != "s":
        return record, tensors
    sizes = record["dims"][:plan.slots[0][2]]  # (the indexed input's, its first argument's)
    if not all(type(n) is int for n in sizes):
        return record, tensors
    positional = len(plan.slots) - len(plan.names)
    slots, read, dims, cursor = [], [], [], 0
    for i, slot in enumerate(plan.slots):
        taken = dims_of(slot)
        dims.extend(record["dims"][cursor:cursor + taken])
        cursor += taken
        if slot[0] == "t":
            slots.append(["t", len(read)])
            read.append(tensors[slot[1]])
        elif slot[0] == "tl" and len(slot) == 4 and (plan.names[i - positional] if i >= positional else i) in lists:
            items = tensors[slot[1]:slot[1] + slot[2]]
            zeros = _proven_indices(items, sizes)
            kept = [t for t, z in zip(items, zeros) if z is None]
            slots.append(["tl", len(read), len(kept), slot[3]] + ([zeros] if len(kept) < len(items) else []))
            dims.extend(n for t, z in zip(items, zeros) if z is not None for n in t.meta["val"].shape)
            read.extend(kept)
        elif slot[0] == "tl":
            slots.append(["tl", len(read)] + slot[2:])
            read.extend(tensors[slot[1]:slot[1] + slot[2]])
        else:
            slots.append(slot)
    if len(read) == len(tensors):
        return record, tensors
    d = json.loads(record["spec"])
    d["slots"] = slots
    return dict(record, spec=json.dumps(d), tensors=[t.name for t in read], dims=dims), read


def _proven_indices(items: List[Any], sizes: List[int]) -> List[Any]:
    """Per index tensor of a list: [dtype, ndim] where the graph proves it within the dim of
    `sizes` that it indexes, else None."""
    torch = sys.modules["torch"]
    from ._ranges import proven

    vals = [t.meta["val"] for t in items]
    if len(items) > len(sizes) or any(v.dtype in (torch.bool, torch.uint8) or v.is_floating_point() or v.is_complex() for v in vals):
        return [None] * len(items)
    out: List[Any] = []
    for t, v, n in zip(items, vals, sizes):
        interval = proven(t) if all(type(k) is int for k in v.shape) else None
        within = interval is not None and -n <= interval[0] and interval[1] <= n - 1
        out.append([str(v.dtype).replace("torch.", ""), v.dim()] if within else None)
    return out


def _feed(graph: Any, node: Any, held: List[Any]) -> None:
    """The readers of each tensor in `held` after `check_one` read it times the 0-d True the op
    returns (exact, and of the tensor's dtype), so every kernel that reads it runs after the
    check. The forward graph's outputs (what it saves for the backward) keep the tensor
    itself."""
    torch = sys.modules["torch"]
    order = {n: i for i, n in enumerate(graph.nodes)}
    position = order[node]
    last = node
    for t in held:
        with graph.inserting_after(last):
            last = graph.call_function(torch.ops.aten.mul.Tensor, (t, node))
            last.meta["val"] = t.meta["val"]
        for user in list(t.users):
            if user.op != "output" and user is not last and user is not node and order.get(user, position + 1) > position and not _writes(user, t):
                user.replace_input_with(t, last)


def _writes(node: Any, t: Any) -> bool:
    """Whether `node` writes `t` in place (the `copy_` that writes back an input the step
    mutates): such a node keeps the tensor itself, or the mutation would go to `t` times a
    one and the caller's tensor would never see it."""
    schema = getattr(node.target, "_schema", None)
    if node.op != "call_function" or schema is None or not schema.is_mutable:
        return False
    written = [a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write]
    given = dict(zip([a.name for a in schema.arguments], node.args), **node.kwargs)
    return any(given.get(name) is t for name in written)


_MISSING = object()


def _symbol(value: Any, nodes: List[Any]) -> Any:
    """A kept number as it is; a symbolic one as (node, None) for a node whose value it is, or
    (tensor node, dim) for the first tensor with it as a size; `_MISSING` where none has it."""
    if not (isinstance(value, tuple) and value and value[0] == "sym"):
        return value
    expr = value[1]
    for node in nodes:
        val = node.meta.get("val")
        if hasattr(val, "node") and val.node.expr == expr:
            return (node, None)
        for i, size in enumerate(getattr(val, "shape", ())):
            if hasattr(size, "node") and size.node.expr == expr:
                return (node, i)
    return _MISSING


def _size_node(graph: Any, value: Any) -> Any:
    if not isinstance(value, tuple):
        return value
    node, dim = value
    if dim is None:
        return node
    size = graph.call_function(sys.modules["torch"].ops.aten.sym_size.int, (node, dim))
    size.meta["val"] = node.meta["val"].shape[dim]
    return size


def _unplaced(record: Dict[str, Any]) -> None:
    from ._compiled import _plan_of

    warnings.warn(
        f"labelguard could not place its check of {_plan_of(record['spec']).key} in a graph compiled by inductor "
        f"({_plan_of(record['spec']).traced.describe()}): that call runs unguarded",
        TargetWarning,
        stacklevel=2,
    )
