"""Random PyTorch calls for the differential test: each case is an op, named tensors and scalar
arguments, run through torch's CPU path to see whether it raises.

The generator aims at the boundaries of every contract: class ids at -100, -1, 0, C-1, C, 255,
the ignore value; every dtype; ranks 0 to 5; empty tensors; wrong weight lengths and shapes;
label_smoothing at and beyond [0, 1]; probabilities at and beyond [0, 1], NaN and inf.
"""

from __future__ import annotations

import dataclasses
import math
import random
import warnings

import torch
import torch.nn.functional as F

FLOATS = [torch.float32, torch.float32, torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTS = [torch.int64, torch.int64, torch.int64, torch.uint8, torch.int32, torch.int16, torch.int8, torch.bool, torch.uint16]
ALL = FLOATS + INTS


@dataclasses.dataclass
class Case:
    op: str
    tensors: dict  # name -> torch.Tensor (saved to the file)
    args: dict  # name -> python value (passed as --arg)
    call: object  # () -> result, the torch reference call
    # The verdict class on CUDA where its kernel checks what the CPU's does not (or the other
    # way round), set by generators that know it; None: the CPU's verdict holds.
    cuda: object = None

    def run_torch(self):
        """(raised, message) of the CPU reference call."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.call()
            return False, ""
        except Exception as e:  # noqa: BLE001 - any exception is "PyTorch raised"
            return True, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def shape(r: random.Random, rank: int, lo: int = 1, hi: int = 4) -> list[int]:
    return [r.randint(lo, hi) for _ in range(rank)]


def pick_ids(r: random.Random, n: int, c: int, ignore: int) -> list[int]:
    """Class ids: mostly valid, with boundary values mixed in by a random profile."""
    profile = r.choice(["valid", "valid", "valid", "edge", "void", "onebased", "labelids", "pad", "wide", "ignored"])
    out = []
    for _ in range(n):
        if profile == "valid" or c == 0:
            v = r.randint(0, max(c - 1, 0)) if c > 0 else r.choice([0, ignore])
        elif profile == "edge":
            v = r.choice([0, c - 1, c, c + 1, -1, -100, ignore, r.randint(0, c - 1)])
        elif profile == "void":
            v = r.choice([255, r.randint(0, c - 1), r.randint(0, c - 1)])
        elif profile == "onebased":
            v = r.randint(1, c)
        elif profile == "labelids":
            v = r.randint(0, 33)
        elif profile == "pad":
            v = r.choice([-1, r.randint(0, c - 1), -100])
        elif profile == "wide":
            v = r.randint(-300, 300)
        else:
            v = r.choice([ignore, ignore, r.randint(0, c - 1)])
        out.append(v)
    if r.random() < 0.1 and n > 0:
        out = [ignore] * n
    return out


def int_tensor(values: list[int], shp: list[int], dtype) -> torch.Tensor:
    t = torch.tensor(values, dtype=torch.int64).reshape(shp) if values else torch.zeros(shp, dtype=torch.int64)
    if dtype == torch.bool:
        return t != 0
    if dtype == torch.uint16:
        return (t % 65536).to(torch.int32).to(torch.uint16)
    return t.to(dtype)


def floats(r: random.Random, shp, lo=-3.0, hi=3.0, specials=0.05):
    t = torch.empty(shp, dtype=torch.float64).uniform_(lo, hi) if math.prod(shp) else torch.zeros(shp, dtype=torch.float64)
    flat = t.view(-1)
    for i in range(flat.numel()):
        if r.random() < specials:
            flat[i] = r.choice([float("nan"), float("inf"), float("-inf"), 0.0, 1.0, -0.0, 1.0000001, -1e-9])
    return t


def reduction(r):
    return r.choice(["mean"] * 6 + ["sum", "none", "none", "avg"])


def class_target_shape(r, input_shape):
    """The class-index target shape for an input shape, sometimes perturbed."""
    if len(input_shape) == 0:
        exp = []
    elif len(input_shape) == 1:
        exp = [] if r.random() < 0.7 else [1]
    else:
        exp = [input_shape[0]] + list(input_shape[2:])
    k = r.random()
    if k < 0.75:
        return exp
    if k < 0.82:
        return exp + [1]
    if k < 0.87 and exp:
        return exp[:1] + [1] + exp[1:]
    if k < 0.92:
        return list(input_shape)
    if k < 0.96 and exp:
        e = list(exp)
        e[r.randrange(len(e))] += 1
        return e
    return shape(r, r.randint(0, 4))


def gen_class_loss(r: random.Random, op: str) -> Case:
    rank = r.choice([1, 2, 2, 2, 3, 4, 4, 4, 5, 0]) if r.random() > 0.02 else 0
    c = r.choice([1, 2, 3, 4, 5, 19, 19, 0])
    input_shape = shape(r, rank, lo=0 if r.random() < 0.05 else 1, hi=3)
    if rank >= 1:
        input_shape[0 if rank == 1 else 1] = c
    in_dtype = r.choice(FLOATS) if r.random() > 0.05 else r.choice(INTS)
    x = floats(r, input_shape, specials=0.01).to(in_dtype) if in_dtype.is_floating_point else torch.zeros(input_shape, dtype=in_dtype)
    ignore = r.choice([-100, -100, -100, 255, -1, 0, 1, 3])
    prob = op == "cross_entropy" and r.random() < 0.15
    if prob:
        t_shape = list(input_shape)
        t_dtype = r.choice(FLOATS + [torch.int64, torch.bool])
        if t_dtype.is_floating_point:
            t = torch.rand(t_shape, dtype=torch.float64)
            if r.random() < 0.5 and rank >= 1:
                t = t / t.sum(dim=0 if rank == 1 else 1, keepdim=True).clamp_min(1e-9)
            if r.random() < 0.2:
                t = t * 3 - 1
            t = t.to(t_dtype)
        else:
            t = (torch.rand(t_shape) > 0.5).to(t_dtype)
    else:
        t_shape = class_target_shape(r, input_shape)
        t_dtype = r.choice(INTS[:7] + [torch.float32]) if r.random() < 0.25 else torch.int64
        t = int_tensor(pick_ids(r, math.prod(t_shape), max(c, 1), ignore), t_shape, t_dtype) if t_dtype != torch.float32 else torch.tensor(pick_ids(r, math.prod(t_shape), max(c, 1), ignore), dtype=torch.float32).reshape(t_shape)
    tensors = {"input": x, "target": t}
    k = r.random()
    weight = None
    if k < 0.35:
        wl = r.choice([c, c, c, c + 1, max(c - 1, 0)])
        wshape = [wl] if r.random() < 0.85 else r.choice([[1, wl], [wl, 1]])
        wdtype = in_dtype if r.random() < 0.85 or not in_dtype.is_floating_point else r.choice(FLOATS + [torch.int64])
        weight = torch.rand(wshape, dtype=torch.float64)
        if r.random() < 0.15 and weight.numel():
            weight.view(-1)[0] = r.choice([0.0, -1.0, float("nan")])
        if r.random() < 0.05:
            weight.zero_()
        weight = weight.to(wdtype)
        tensors["weight"] = weight
    red = reduction(r)
    args = {"ignore_index": ignore, "reduction": red}
    if op == "cross_entropy":
        ls = r.choice([0.0] * 6 + [0.1, 0.5, 1.0, 1.5, -0.5])
        args["label_smoothing"] = ls
        call = lambda: F.cross_entropy(x, t, weight=weight, ignore_index=ignore, reduction=red, label_smoothing=ls)
    else:
        if in_dtype.is_floating_point:
            x2 = torch.log_softmax(x.float(), dim=0 if rank == 1 else 1).to(in_dtype) if rank >= 1 and x.numel() else x
            tensors["input"] = x2
        else:
            x2 = x
        call = lambda: F.nll_loss(x2, t, weight=weight, ignore_index=ignore, reduction=red)
    return Case(op, tensors, args, call)


def gen_bce(r: random.Random, op: str) -> Case:
    rank = r.randint(0, 3)
    shp = shape(r, rank, lo=0 if r.random() < 0.05 else 1)
    in_dtype = r.choice(FLOATS) if r.random() > 0.08 else r.choice(INTS)
    if op == "binary_cross_entropy":
        x = floats(r, shp, 0, 1, specials=0.03) if r.random() < 0.8 else floats(r, shp, -2, 2)
    else:
        x = floats(r, shp, -5, 5, specials=0.02)
    x = x.to(in_dtype) if in_dtype.is_floating_point else (x > 0.5).to(in_dtype)
    t_dtype = in_dtype if r.random() < 0.75 else r.choice(ALL)
    tv = torch.rand(shp, dtype=torch.float64)
    k = r.random()
    if k < 0.1:
        tv = tv * 255
    elif k < 0.2:
        tv = tv * 2 - 0.5
    elif k < 0.3:
        tv = (tv > 0.5).double()
    t = tv.to(t_dtype) if t_dtype.is_floating_point else (tv > 0.5).to(t_dtype)
    t_shape_perturb = r.random()
    if t_shape_perturb < 0.08:
        t = t.reshape(list(shp) + [1])
    elif t_shape_perturb < 0.12 and rank > 0:
        t = t.flatten()[:-1] if t.numel() else t
    tensors = {"input": x, "target": t}
    weight = pos_weight = None
    if r.random() < 0.3:
        wshape = r.choice([shp, shp[-1:], [1], [], shp + [1], [2] + shp[1:], [3]])
        weight = torch.rand(wshape, dtype=torch.float64) * r.choice([1, 1, 1, -1])
        weight = weight.to(r.choice([torch.float32, torch.float64, torch.int64, torch.bool, in_dtype if in_dtype.is_floating_point else torch.float32]))
        tensors["weight"] = weight
    if op != "binary_cross_entropy" and r.random() < 0.3:
        pshape = r.choice([shp[-1:], shp[-1:], [1], [], shp, [3], [1] + shp])
        pos_weight = (torch.rand(pshape, dtype=torch.float64) * 3 * r.choice([1, 1, 1, -1])).to(r.choice([torch.float32, torch.float64, torch.int64, torch.bool, torch.uint16]))
        tensors["pos_weight"] = pos_weight
    red = reduction(r)
    if op == "binary_cross_entropy":
        call = lambda: F.binary_cross_entropy(x, t, weight=weight, reduction=red)
    else:
        call = lambda: F.binary_cross_entropy_with_logits(x, t, weight=weight, reduction=red, pos_weight=pos_weight)
    return Case(op, tensors, {"reduction": red}, call)


def gen_embedding(r: random.Random) -> Case:
    n = r.choice([0, 1, 5, 10, 30522])
    rank_w = 2 if r.random() < 0.93 else r.choice([1, 3])
    wshape = [n, 2] if rank_w == 2 else ([n] if rank_w == 1 else [n, 1, 2])
    w = torch.randn(wshape)
    ishape = shape(r, r.randint(0, 3), lo=0 if r.random() < 0.05 else 1)
    vals = [r.choice([0, max(n - 1, 0), n, n + 1, -1, -100, r.randint(0, max(n - 1, 0)), r.randint(0, max(n - 1, 0))]) if r.random() < 0.15 else r.randint(0, max(n - 1, 0)) for _ in range(math.prod(ishape))]
    idx = int_tensor(vals, ishape, torch.int64 if r.random() < 0.8 else r.choice(ALL))
    pad = r.choice([None, None, None, 0, 1, n - 1, n, -1, -n, -n - 1])
    args = {}
    tensors = {"input": idx}
    if r.random() < 0.3 and rank_w == 2:
        args["num_embeddings"] = n
    else:
        tensors["weight"] = w
    if pad is not None:
        args["padding_idx"] = pad
    return Case("embedding", tensors, args, lambda: F.embedding(idx, w, padding_idx=pad))


def index_values(r, n, size):
    return [r.choice([0, size - 1, size, size + 1, -1, r.randint(0, max(size - 1, 0))]) if r.random() < 0.1 else r.randint(0, max(size - 1, 0)) for _ in range(n)]


def gen_gather_scatter(r: random.Random, op: str) -> Case:
    rank = r.choice([0, 1, 2, 2, 3])
    shp = shape(r, rank, lo=0 if r.random() < 0.05 else 1)
    dtype = r.choice(FLOATS[:2] + [torch.int64])
    x = torch.randn(shp).to(dtype)
    dim = r.randint(-max(rank, 1) - 1, max(rank, 1))
    wd = dim + max(rank, 1) if dim < 0 else dim
    ishp = list(shp) if rank else []
    if rank:
        for d in range(rank):
            if r.random() < 0.4:
                ishp[d] = r.randint(0, shp[d] + (1 if r.random() < 0.3 else 0))
    if r.random() < 0.08:
        ishp = ishp + [1] if r.random() < 0.5 else ishp[:-1]
    size = (shp[wd] if rank and 0 <= wd < rank else 1)
    idx = int_tensor(index_values(r, math.prod(ishp), size), ishp, torch.int64 if r.random() < 0.85 else r.choice(ALL))
    tensors = {"input": x, "index": idx}
    args = {"dim": dim}
    if op == "gather":
        call = lambda: torch.gather(x, dim, idx)
    elif op == "index_select":
        idx = idx.flatten() if r.random() < 0.85 else idx
        if r.random() < 0.1:
            idx = idx.reshape([]) if idx.numel() == 1 else idx
        tensors["index"] = idx
        call = lambda: torch.index_select(x, dim, idx)
    else:
        sshp = list(ishp)
        if r.random() < 0.2 and sshp:
            sshp[r.randrange(len(sshp))] += r.choice([-1, 1, 2])
            sshp = [max(s, 0) for s in sshp]
        if r.random() < 0.05:
            sshp = sshp + [1]
        src = torch.randn(sshp).to(dtype if r.random() < 0.9 else r.choice(FLOATS))
        if op == "scatter" and r.random() < 0.3:
            v = r.choice([1.0, 0.5, -2.0])
            args["value"] = v
            call = lambda: torch.scatter(x, dim, idx, value=v)
        else:
            tensors["src"] = src
            fn = torch.scatter if op == "scatter" else torch.scatter_add
            call = lambda: fn(x, dim, idx, src)
    return Case(op, tensors, args, call)


def gen_one_hot(r: random.Random) -> Case:
    shp = shape(r, r.randint(0, 3), lo=0 if r.random() < 0.1 else 1)
    nc = r.choice([-1, -1, 3, 5, 0, -2, 1, 19])
    top = nc if nc > 0 else 5
    vals = [r.choice([0, top - 1, top, -1, 255, r.randint(0, top - 1)]) if r.random() < 0.15 else r.randint(0, top - 1) for _ in range(math.prod(shp))]
    t = int_tensor(vals, shp, torch.int64 if r.random() < 0.85 else r.choice(ALL))
    return Case("one_hot", {"tensor": t}, {"num_classes": nc}, lambda: F.one_hot(t, nc))


def gen_multinomial(r: random.Random) -> Case:
    rank = r.choice([1, 2, 2, 0, 3]) if r.random() < 0.1 else r.choice([1, 2])
    shp = shape(r, rank, lo=0 if r.random() < 0.1 else 1, hi=5)
    p = torch.rand(shp, dtype=torch.float64)
    k = r.random()
    if k < 0.15:
        p = p * 2 - 0.5
    elif k < 0.25 and p.numel():
        p.view(-1)[r.randrange(p.numel())] = r.choice([float("nan"), float("inf"), -1.0])
    elif k < 0.4 and rank >= 1:
        p[..., : r.randint(0, shp[-1])] = 0
    elif k < 0.45:
        p.zero_()
    dtype = r.choice(FLOATS) if r.random() > 0.05 else r.choice(INTS)
    p = p.to(dtype) if dtype.is_floating_point else (p > 0.5).to(dtype)
    n = r.choice([1, 1, 2, 3, 5, 0, -1, 8])
    rep = r.random() < 0.5
    return Case("multinomial", {"input": p}, {"num_samples": n, "replacement": rep}, lambda: torch.multinomial(p, n, rep))


def gen_ctc(r: random.Random) -> Case:
    T, N, C = r.randint(1, 8), r.randint(1, 3), r.randint(1, 6)
    unbatched = r.random() < 0.15
    lp = torch.randn(T, N, C).log_softmax(2)
    if r.random() < 0.05:
        lp[0, 0, 0] = float("nan")
    if unbatched:
        N = 1
        lp = lp[:, 0]
    if r.random() < 0.05:
        lp = lp.unsqueeze(-1)
    lp = lp.to(r.choice([torch.float32, torch.float32, torch.float64, torch.float16]))
    blank = r.choice([0, 0, 0, C - 1, C, -1])
    tl = [r.randint(0, 4) for _ in range(N)]
    if r.random() < 0.05:
        tl[0] = -1
    labels = [[r.choice([r.randint(1, max(C - 1, 1)), r.randint(0, C + 1)]) if r.random() < 0.2 else r.randint(1, max(C - 1, 1)) for _ in range(max(l, 0))] for l in tl]
    if r.random() < 0.5:
        S = max([max(l, 0) for l in tl] + [0]) + r.choice([0, 0, 1, -1])
        targets = torch.zeros(N, max(S, 0), dtype=torch.int64)
        for b, lab in enumerate(labels):
            for i, v in enumerate(lab[: max(S, 0)]):
                targets[b, i] = v
        if unbatched and r.random() < 0.5:
            targets = targets[0]
    else:
        flat = [v for lab in labels for v in lab]
        if r.random() < 0.1:
            flat = flat + [1]
        targets = torch.tensor(flat, dtype=torch.int64)
    targets = targets.to(r.choice([torch.int64] * 6 + [torch.int32, torch.float32, torch.uint8]))
    il = [r.choice([T, T, T, max(T - 1, 0), T + 1, 0, -1]) for _ in range(N)]
    if r.random() < 0.05:
        il = il + [T]
    tensors = {"log_probs": lp, "targets": targets}
    args = {"blank": blank, "reduction": reduction(r), "zero_infinity": r.random() < 0.2}
    if r.random() < 0.6:
        il_t = torch.tensor(il, dtype=r.choice([torch.int64, torch.int64, torch.int32, torch.float32]))
        tl_t = torch.tensor(tl, dtype=torch.int64)
        if unbatched and r.random() < 0.5 and len(il) == 1:
            il_t, tl_t = il_t.reshape([]), tl_t.reshape([])
        tensors["input_lengths"], tensors["target_lengths"] = il_t, tl_t
        il_arg, tl_arg = il_t, tl_t
    else:
        args["input_lengths"], args["target_lengths"] = il, tl
        il_arg, tl_arg = il, tl
    red, zi = args["reduction"], args["zero_infinity"]
    return Case("ctc_loss", tensors, args, lambda: F.ctc_loss(lp, targets, il_arg, tl_arg, blank=blank, reduction=red, zero_infinity=zi))


def gen_bincount(r: random.Random) -> Case:
    shp = shape(r, r.choice([1, 1, 1, 1, 0, 2]), lo=0 if r.random() < 0.1 else 1, hi=6)
    vals = [r.choice([0, 3, 7, -1, r.randint(0, 9)]) if r.random() < 0.1 else r.randint(0, 9) for _ in range(math.prod(shp))]
    t = int_tensor(vals, shp, torch.int64 if r.random() < 0.7 else r.choice(ALL))
    if r.random() < 0.05:
        t = t.float()
    tensors = {"input": t}
    weights = None
    if r.random() < 0.3:
        wn = t.shape[0] if t.dim() else 1
        weights = torch.rand(r.choice([[wn], [wn], [wn + 1], [wn, 1]])).to(r.choice([torch.float32, torch.float64, torch.int64]))
        tensors["weights"] = weights
    ml = r.choice([0, 0, 0, 5, 20, -1])
    return Case("bincount", tensors, {"minlength": ml}, lambda: torch.bincount(t, weights=weights, minlength=ml))


GENERATORS = {
    "cross_entropy": lambda r: gen_class_loss(r, "cross_entropy"),
    "nll_loss": lambda r: gen_class_loss(r, "nll_loss"),
    "binary_cross_entropy": lambda r: gen_bce(r, "binary_cross_entropy"),
    "binary_cross_entropy_with_logits": lambda r: gen_bce(r, "binary_cross_entropy_with_logits"),
    "embedding": gen_embedding,
    "gather": lambda r: gen_gather_scatter(r, "gather"),
    "scatter": lambda r: gen_gather_scatter(r, "scatter"),
    "scatter_add": lambda r: gen_gather_scatter(r, "scatter_add"),
    "index_select": lambda r: gen_gather_scatter(r, "index_select"),
    "one_hot": gen_one_hot,
    "multinomial": gen_multinomial,
    "ctc_loss": gen_ctc,
    "bincount": gen_bincount,
}

# Cases per op: the losses and indexing ops have the largest input spaces.
WEIGHTS = {"cross_entropy": 3, "nll_loss": 2, "binary_cross_entropy": 1, "binary_cross_entropy_with_logits": 1}


def cases(n: int, seed: int):
    from differential_indexing import GENERATORS as INDEXING  # it builds on the helpers above

    generators = {**GENERATORS, **INDEXING}
    r = random.Random(seed)
    torch.manual_seed(seed)
    ops = [op for op in generators for _ in range(WEIGHTS.get(op, 1))]
    for i in range(n):
        op = ops[i % len(ops)]
        yield generators[op](r)


def arg_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ",".join(str(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    return str(v)
