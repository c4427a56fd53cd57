"""What a compiled graph proves about the values of a tensor it computes: an interval that holds
every value, none of them NaN, or nothing (issue 41).

A one-hot target built inside the step (`zeros`, then `index_put_` or `scatter_` of ones, or
`F.one_hot(...).float()`, label smoothing's `t * 0.9 + 0.1 / C`) lies in [0, 1] by
construction; `_placement._settled` then decides BCE's target check once, at compile time,
instead of running it on every step. The proof follows the forward graph's ATen ops back to
constants (`full`, `iota`, `scalar_tensor`) through a short list of ops whose values it can
bound; anything else (an input of the graph, a matmul, a random op) proves nothing, and the
check runs as before.

Floating-point rounding is allowed for. Each op rounds its exact result to nearest, which is
monotone, so the values of an op on operands within intervals lie between the op of the bounds,
rounded: computed here in float64, each bound by one IEEE operation as the tensor's own, a bound
that the dtype holds exactly (0, 1, 0.05 as the float32 it is) is the bound; any other is
widened by 4 units of the dtype's roundoff. A Python number in arithmetic counts as itself and
as float32 and the dtype round it (PyTorch and inductor compute a float16 or bfloat16 op in
float32). An integer result must stay within int32, far from overflow.
"""

from __future__ import annotations

import math
import struct
import sys
from typing import Any, Callable, Dict, Optional, Tuple

Interval = Tuple[float, float]

#: Unit roundoff of the floating dtypes, by name.
_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}
_INT32 = 2.0**31


def proven(node: Any) -> Optional[Interval]:
    """The interval of every value of `node`'s tensor, if the graph proves one."""
    return _Prover().interval(node)


class _Prover:
    def __init__(self) -> None:
        self.seen: Dict[Any, Optional[Interval]] = {}
        aten = sys.modules["torch"].ops.aten
        prims = sys.modules["torch"].ops.prims
        same = (aten.view.default, aten.reshape.default, aten._unsafe_view.default, aten.expand.default, aten.permute.default,
                aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.dims, aten.squeeze.default, aten.clone.default,
                aten.alias.default, aten.detach.default, aten.t.default, aten.transpose.int, aten.slice.Tensor,
                aten.select.int)
        compare = (aten.eq.Tensor, aten.eq.Scalar, aten.ne.Tensor, aten.ne.Scalar, aten.lt.Tensor, aten.lt.Scalar,
                   aten.le.Tensor, aten.le.Scalar, aten.gt.Tensor, aten.gt.Scalar, aten.ge.Tensor, aten.ge.Scalar,
                   aten.logical_not.default, aten.logical_and.default, aten.logical_or.default, aten.logical_xor.default)
        self.rules: Dict[Any, Callable[[Any], Optional[Interval]]] = {}
        for op in same:
            self.rules[op] = lambda n: self.of(n.args[0])
        for op in compare:
            self.rules[op] = lambda n: (0.0, 1.0)
        self.rules.update({
            aten.full.default: lambda n: self.stored(n, self.number(n.args[1])),
            aten.scalar_tensor.default: lambda n: self.stored(n, self.number(n.args[0])),
            aten.zeros.default: lambda n: (0.0, 0.0),
            aten.ones.default: lambda n: (1.0, 1.0),
            prims.iota.default: self.iota,
            aten.index_put.default: lambda n: None if _arg(n, 3, "accumulate", False) else _union(self.of(n.args[0]), self.of(n.args[2])),
            aten.scatter.value: lambda n: _union(self.of(n.args[0]), self.stored(n, self.number(n.args[3]))),
            aten.scatter.src: lambda n: _union(self.of(n.args[0]), self.of(n.args[3])),
            aten.where.self: lambda n: _union(self.of(n.args[1]), self.of(n.args[2])),
            prims.convert_element_type.default: lambda n: self.stored(n, self.of(n.args[0])),
            aten._to_copy.default: lambda n: self.stored(n, self.of(n.args[0])),
            aten.copy.default: lambda n: self.stored(n, self.of(n.args[1])),
            aten.mul.Tensor: lambda n: self.arithmetic(n, _times),
            aten.add.Tensor: lambda n: self.arithmetic(n, _plus) if n.kwargs.get("alpha", 1) == 1 else None,
            aten.sub.Tensor: lambda n: self.arithmetic(n, _minus) if n.kwargs.get("alpha", 1) == 1 else None,
            aten.div.Tensor: lambda n: self.arithmetic(n, _over) if not n.kwargs.get("rounding_mode") else None,
            aten.neg.default: lambda n: _negated(self.of(n.args[0])),
            aten.minimum.default: lambda n: _pairwise(min, self.of(n.args[0]), self.of(n.args[1])),
            aten.maximum.default: lambda n: _pairwise(max, self.of(n.args[0]), self.of(n.args[1])),
            # (a bound of clamp is converted to the dtype first: `stored` rounds it as that does)
            aten.clamp.default: lambda n: self.stored(n, _clamped(self.of(n.args[0]), _arg(n, 1, "min", None), _arg(n, 2, "max", None))),
            aten.clamp_min.default: lambda n: self.stored(n, _clamped(self.of(n.args[0]), n.args[1], None)),
            aten.clamp_max.default: lambda n: self.stored(n, _clamped(self.of(n.args[0]), None, n.args[1])),
            aten.sigmoid.default: lambda n: (0.0, 1.0) if self.of(n.args[0]) else None,
            aten._softmax.default: lambda n: (0.0, 1.0) if self.of(n.args[0]) else None,
        })

    def interval(self, node: Any) -> Optional[Interval]:
        try:
            return self.of(node)
        except (TypeError, ValueError, IndexError, AttributeError, OverflowError, ZeroDivisionError):
            return None  # (an argument of a form the rules do not expect: nothing proven)

    def of(self, value: Any) -> Optional[Interval]:
        """A node's interval (memoised), or a number's own."""
        if not hasattr(value, "op"):
            return self.number(value)
        if value in self.seen:
            return self.seen[value]
        self.seen[value] = None  # (a cycle proves nothing)
        rule = self.rules.get(value.target) if value.op == "call_function" else None
        found = rule(value) if rule is not None else None
        if found is not None and not (math.isfinite(found[0]) and math.isfinite(found[1]) and found[0] <= found[1]):
            found = None
        self.seen[value] = found
        return found

    @staticmethod
    def number(value: Any) -> Optional[Interval]:
        if type(value) in (int, float, bool) and math.isfinite(value):
            return (float(value), float(value))
        return None

    def stored(self, node: Any, interval: Optional[Interval]) -> Optional[Interval]:
        """`interval` as the node's dtype holds it: rounded in a floating dtype, whole numbers
        (within int32) in an integer one, 0 and 1 in bool."""
        if interval is None:
            return None
        dtype = _dtype(node)
        if dtype == "bool":
            lo, hi = interval
            return (0.0 if lo <= 0 <= hi else 1.0, 0.0 if lo == hi == 0 else 1.0)
        if dtype in _ROUNDOFF:
            return (_bound(interval[0], dtype, -1.0), _bound(interval[1], dtype, 1.0))
        if dtype is None or abs(interval[0]) >= _INT32 or abs(interval[1]) >= _INT32:
            return None
        return (float(math.floor(interval[0])), float(math.ceil(interval[1])))

    def arithmetic(self, node: Any, combine: Callable[[Interval, Interval], Optional[Interval]]) -> Optional[Interval]:
        left, right = (self.operand(node, a) for a in node.args[:2])
        if left is None or right is None:
            return None
        return self.stored(node, combine(left, right))

    def operand(self, node: Any, value: Any) -> Optional[Interval]:
        """An operand's interval; a Python number's spans itself as given, as float32 and as the
        result's dtype round it."""
        if hasattr(value, "op"):
            return self.of(value)
        exact = self.number(value)
        dtype = _dtype(node)
        if exact is None or dtype not in _ROUNDOFF:
            return exact
        torch = sys.modules["torch"]
        rounded = [torch.tensor(exact[0], dtype=getattr(torch, d)).item() for d in {"float32", dtype}]
        return (min(exact[0], *rounded), max(exact[0], *rounded))

    def iota(self, node: Any) -> Optional[Interval]:
        length = node.args[0]
        start, step = node.kwargs.get("start", 0), node.kwargs.get("step", 1)
        if not all(type(v) is int for v in (length, start, step)):
            return None
        last = start + step * max(length - 1, 0)
        return self.stored(node, (float(min(start, last)), float(max(start, last))))


def _arg(node: Any, position: int, name: str, default: Any) -> Any:
    return node.args[position] if len(node.args) > position else node.kwargs.get(name, default)


def _dtype(node: Any) -> Optional[str]:
    val = node.meta.get("val")
    dtype = getattr(val, "dtype", None)
    return None if dtype is None else str(dtype).replace("torch.", "")


def _bound(value: float, dtype: str, outward: float) -> float:
    """A bound as the dtype rounds it: itself where the dtype holds it exactly, else moved
    outward by 4 units of roundoff."""
    return value if _holds(value, dtype) else value + outward * abs(value) * 4 * _ROUNDOFF[dtype]


def _holds(value: float, dtype: str) -> bool:
    """Whether the floating dtype holds `value` exactly (float64: every bound computed here)."""
    if dtype == "float64":
        return True
    try:
        if dtype == "float16":
            return struct.unpack("e", struct.pack("e", value))[0] == value
        single = struct.unpack("f", struct.pack("f", value))[0]
    except (OverflowError, struct.error):
        return False
    if dtype == "bfloat16":  # (float32's upper 16 bits)
        return single == value and struct.unpack("I", struct.pack("f", single))[0] & 0xFFFF == 0
    return single == value


def _union(a: Optional[Interval], b: Optional[Interval]) -> Optional[Interval]:
    return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))


def _times(a: Interval, b: Interval) -> Interval:
    products = [x * y for x in a for y in b]
    return (min(products), max(products))


def _plus(a: Interval, b: Interval) -> Interval:
    return (a[0] + b[0], a[1] + b[1])


def _minus(a: Interval, b: Interval) -> Interval:
    return (a[0] - b[1], a[1] - b[0])


def _over(a: Interval, b: Interval) -> Optional[Interval]:
    if b[0] <= 0 <= b[1]:
        return None
    quotients = [x / y for x in a for y in b]
    return (min(quotients), max(quotients))


def _negated(a: Optional[Interval]) -> Optional[Interval]:
    return None if a is None else (-a[1], -a[0])


def _pairwise(pick: Callable[[float, float], float], a: Optional[Interval], b: Optional[Interval]) -> Optional[Interval]:
    return None if a is None or b is None else (pick(a[0], b[0]), pick(a[1], b[1]))


def _clamped(a: Optional[Interval], low: Any, high: Any) -> Optional[Interval]:
    """clamp is monotone: each bound clamped (min then max, as PyTorch applies them)."""
    if a is None or any(v is not None and (type(v) not in (int, float) or not math.isfinite(v)) for v in (low, high)):
        return None

    def clamp(v: float) -> float:
        v = v if low is None else max(v, float(low))
        return v if high is None else min(v, float(high))

    return (clamp(a[0]), clamp(a[1]))

