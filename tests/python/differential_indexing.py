"""Random calls of the advanced-indexing family for the differential test: `x[idx]`,
`x[idx] = v`, index_put, take, put, take_along_dim, index_add/copy/fill, scatter_reduce,
embedding_bag and nll_loss2d, aimed at the boundaries of each contract (indices at -size-1,
-size, -1, size-1, size, masks of the wrong shape, index tensors that do not broadcast, values
of the wrong shape or dtype, offsets that do not start at 0 or decrease)."""

from __future__ import annotations

import math
import random

import torch
import torch.nn.functional as F

from differential import ALL, Case, gen_class_loss, int_tensor, shape


def idx_values(r: random.Random, n: int, size: int, wraps: bool = True) -> list[int]:
    edges = [0, size - 1, size, size + 1, -1, 255, -100] + ([-size, -size - 1] if wraps else [])
    return [r.choice(edges) if r.random() < 0.12 else r.randint(-size if wraps and size else 0, max(size - 1, 0)) for _ in range(n)]


def index_dtype(r: random.Random):
    return torch.int64 if r.random() < 0.85 else r.choice([torch.int32, torch.int32, torch.float32, torch.int16, torch.uint8])


def gen_index(r: random.Random, op: str) -> Case:
    rank = r.choice([1, 2, 2, 3, 3, 4])
    shp = shape(r, rank, lo=0 if r.random() < 0.04 else 1, hi=5)
    x = torch.randn(shp).to(r.choice([torch.float32, torch.float32, torch.float64, torch.int64]))
    n_idx = r.choice([1, 1, 1, 2, 2, 3])
    tensors, dims, d = {"input": x}, [], 0
    bshape = shape(r, r.choice([1, 1, 2]), lo=0 if r.random() < 0.03 else 1, hi=4)
    names = ["index", "index1", "index2"]
    for k in range(n_idx):
        if r.random() < 0.4:
            d += 1  # a slice between
        if r.random() < 0.15:  # a boolean mask over 1 or 2 dims
            width = r.choice([1, 1, 2])
            mshape = list(shp[d:d + width]) if d + width <= rank else [2] * width
            if r.random() < 0.15 and mshape:
                mshape[r.randrange(len(mshape))] += 1
            t = torch.rand(mshape) > r.choice([0.0, 0.5, 1.0]) if math.prod(mshape) else torch.zeros(mshape, dtype=torch.bool)
            if r.random() < 0.2:
                t = t.to(torch.uint8)
            consumed = len(mshape)
        else:
            size = shp[d] if d < rank else 3
            # (0-d integer tensors in a key are Python ints to PyTorch: the wrapper leaves them to it)
            ishape = list(bshape) if r.random() < 0.85 else shape(r, r.randint(1, 2), hi=4)
            t = int_tensor(idx_values(r, math.prod(ishape), size), ishape, index_dtype(r))
            consumed = t.dim() if t.dtype == torch.uint8 else 1  # a uint8 index is a mask
        tensors[names[k]] = t
        dims.append(d)
        d += consumed
    args = {"dims": dims}
    def key():
        parts, cursor = [], 0
        for k in range(n_idx):
            while cursor < dims[k]:
                parts.append(slice(None))
                cursor += 1
            t = tensors[names[k]]
            parts.append(t)
            cursor += t.dim() if t.dtype in (torch.bool, torch.uint8) else 1
        return tuple(parts)

    if op == "index":
        call = lambda: x[key()]
        return Case("index", tensors, args, call)
    acc = r.random() < 0.3
    args["accumulate"] = acc
    k = r.random()
    try:
        result = x[key()].shape
    except Exception:  # noqa: BLE001 - a bad index: any value shape will do
        result = [2]
    if k < 0.6:
        vshape = list(result)[r.randint(0, len(result)):] if result else []
    elif k < 0.8:
        vshape = [1] + list(result)
    else:
        vshape = shape(r, r.randint(0, 2), hi=4)
    vdtype = x.dtype if r.random() < 0.9 else r.choice([torch.float32, torch.float64, torch.int64])
    v = torch.ones(vshape, dtype=vdtype)
    tensors["values"] = v
    # index_put_ takes one tensor per indexed dim: the slices before an index become arange.
    def put_indices():
        out, cursor = [], 0
        for k2 in range(n_idx):
            if cursor != dims[k2]:
                return None  # a slice before an index: index_put cannot say it
            t = tensors[names[k2]]
            out.append(t)
            cursor += t.dim() if t.dtype in (torch.bool, torch.uint8) else 1
        return tuple(out)

    indices = put_indices()
    if indices is None or r.random() < 0.3:
        if acc:
            args["accumulate"] = False
        # __setitem__ drops the value's leading 1-sized dimensions, and so does the wrapper.
        stripped = list(v.shape)
        while stripped and stripped[0] == 1:
            stripped.pop(0)
        tensors["values"] = v.reshape(stripped)

        if n_idx == 1 and tensors["index"].dtype in (torch.bool, torch.uint8) and v.numel() == 1:
            # One mask, one value: PyTorch takes masked_fill (any dtype; a uint8 mask is refused
            # there on the host), and the wrapper passes no values.
            tensors["index"] = tensors["index"].bool()
            del tensors["values"]

        def setitem():
            y = x.clone()
            y[key()] = v
        return Case("index_put", tensors, args, setitem)
    return Case("index_put", tensors, args, lambda: x.clone().index_put_(indices, v, accumulate=acc))


def gen_take_put(r: random.Random, op: str) -> Case:
    shp = shape(r, r.choice([0, 1, 2, 3]), lo=0 if r.random() < 0.05 else 1, hi=4)
    x = torch.randn(shp)
    n = x.numel()
    ishape = shape(r, r.choice([0, 1, 1, 2]), lo=0 if r.random() < 0.05 else 1, hi=4)
    idx = int_tensor(idx_values(r, math.prod(ishape), n), ishape, torch.int64 if r.random() < 0.85 else r.choice([torch.int32, torch.float32]))
    if op == "take":
        return Case("take", {"input": x, "index": idx}, {}, lambda: torch.take(x, idx))
    src_n = idx.numel() if r.random() < 0.85 else idx.numel() + r.choice([-1, 1])
    src = torch.ones([max(src_n, 0)], dtype=torch.float32 if r.random() < 0.9 else torch.float64)
    acc = r.random() < 0.3
    return Case("put", {"input": x, "index": idx, "source": src}, {"accumulate": acc}, lambda: x.clone().put_(idx, src, accumulate=acc))


def gen_take_along_dim(r: random.Random) -> Case:
    rank = r.choice([0, 1, 2, 2, 3])
    shp = shape(r, rank, lo=0 if r.random() < 0.05 else 1, hi=4)
    x = torch.randn(shp)
    if r.random() < 0.3:
        ishape = shape(r, r.randint(0, 2), hi=4)
        idx = int_tensor(idx_values(r, math.prod(ishape), x.numel(), wraps=False), ishape, torch.int64 if r.random() < 0.9 else torch.int32)
        return Case("take_along_dim", {"input": x, "indices": idx}, {}, lambda: torch.take_along_dim(x, idx))
    dim = r.randint(-max(rank, 1), max(rank, 1) - 1) if r.random() < 0.95 else rank + 1
    wd = dim % max(rank, 1)
    ishape = [s if r.random() < 0.7 else r.choice([1, s + 1]) for s in shp]
    if rank:
        ishape[wd] = r.randint(1, 3)
    if r.random() < 0.05:
        ishape = ishape[1:]
    size = shp[wd] if rank else 1
    idx = int_tensor(idx_values(r, math.prod(ishape), size), ishape, torch.int64 if r.random() < 0.9 else torch.int32)
    return Case("take_along_dim", {"input": x, "indices": idx}, {"dim": dim}, lambda: torch.take_along_dim(x, idx, dim))


def gen_index_along_dim(r: random.Random, op: str) -> Case:
    rank = r.choice([1, 2, 2, 3])
    shp = shape(r, rank, lo=0 if r.random() < 0.03 else 1, hi=4)
    x = torch.randn(shp)
    dim = r.randint(-rank, rank - 1) if r.random() < 0.95 else rank
    wd = dim % rank
    n = r.randint(0, 4)
    idx = int_tensor(idx_values(r, n, shp[wd], wraps=op == "index_fill"), [n], index_dtype(r))
    if r.random() < 0.05:
        idx = idx.reshape(1, n)
    args = {"dim": dim}
    if op == "index_fill":
        args["value"] = -1.0
        return Case(op, {"input": x, "index": idx}, args, lambda: x.index_fill(dim, idx, -1.0))
    sshape = list(shp)
    sshape[wd] = n if r.random() < 0.85 else n + 1
    if r.random() < 0.08:
        sshape[(wd + 1) % rank] += 1
    if r.random() < 0.05:
        sshape = sshape[1:]
    src = torch.ones(sshape, dtype=torch.float32 if r.random() < 0.9 else torch.float64)
    fn = x.index_add if op == "index_add" else x.index_copy
    return Case(op, {"input": x, "index": idx, "source": src}, args, lambda: fn(dim, idx, src))


def gen_scatter_reduce(r: random.Random) -> Case:
    rank = r.choice([1, 2, 2, 3])
    shp = shape(r, rank, hi=4)
    x = torch.randn(shp)
    dim = r.randint(-rank, rank - 1)
    wd = dim % rank
    ishape = [r.randint(1, s) for s in shp]
    idx = int_tensor(idx_values(r, math.prod(ishape), shp[wd], wraps=False), ishape, torch.int64 if r.random() < 0.9 else torch.int32)
    src = torch.ones(ishape)
    red = r.choice(["sum", "prod", "mean", "amax", "amin", "sum", "max", "avg"])
    inc = r.random() < 0.7
    return Case("scatter_reduce", {"input": x, "index": idx, "src": src}, {"dim": dim, "reduce": red, "include_self": inc}, lambda: x.scatter_reduce(dim, idx, src, red, include_self=inc))


def cuda_bags(offsets, ids, rows: int, include_last_offset: bool) -> str:
    """What cuda/EmbeddingBag.cu's kernels do with these offsets and ids: bag b runs from
    offsets[b] (0 for the first) to offsets[b + 1], the last bag to the end of the ids (with
    include_last_offset the last offset ends no bag, and the ids after it are read); both
    kernels assert `end >= begin`, and an id outside the table is a device assert too."""
    offs = offsets.tolist()
    bags = len(offs) - int(include_last_offset)
    read = set()
    for b in range(bags):
        begin = 0 if b == 0 else offs[b]
        end = offs[b + 1] if b < bags - 1 else ids.numel()
        if end < begin:
            return "device_assert"
        read.update(range(begin, end))
    values = ids.reshape(-1).tolist()
    if any(not 0 <= values[i] < rows for i in read if i < len(values)):
        return "device_assert"
    return "ok"


def gen_embedding_bag(r: random.Random) -> Case:
    n = r.choice([1, 2, 5, 10])
    w = torch.randn(n, 3)
    two_d = r.random() < 0.3
    if two_d:
        ishape = [r.randint(1, 3), r.randint(1, 4)]
    else:
        ishape = [r.randint(0, 6)]
    idx = int_tensor(idx_values(r, math.prod(ishape), n, wraps=False), ishape, torch.int64 if r.random() < 0.9 else r.choice([torch.int32, torch.float32]))
    offsets = None
    if not two_d or r.random() < 0.05:
        L = idx.numel()
        cuts = sorted(r.randint(0, L) for _ in range(r.randint(0, 3)))
        offsets = [0] + cuts
        k = r.random()
        if k < 0.08:
            offsets[0] = 1
        elif k < 0.16 and len(offsets) > 2:
            offsets[1], offsets[2] = offsets[2] + 1, offsets[1]
        elif k < 0.22:
            offsets.append(L + 1)
        offsets = torch.tensor(offsets, dtype=torch.int64 if r.random() < 0.8 else torch.int32)
    mode = r.choice(["mean", "sum", "max", "mean", "avg"])
    last = r.random() < 0.3
    if last and offsets is not None and len(offsets) == 1 and idx.numel():
        last = False  # torch 2.15's CPU kernel aborts the process here: no reference to compare with
    pad = r.choice([None, None, None, 0, n - 1, n, -1])
    tensors = {"input": idx, "weight": w}
    if offsets is not None:
        tensors["offsets"] = offsets
    args = {"mode": mode, "include_last_offset": last}
    if pad is not None:
        args["padding_idx"] = pad
    cuda = cuda_bags(offsets, idx, n, last) if offsets is not None and idx.dim() == 1 else None
    return Case("embedding_bag", tensors, args, lambda: F.embedding_bag(idx, w, offsets, mode=mode, include_last_offset=last, padding_idx=pad), cuda)


def gen_nll_loss2d(r: random.Random) -> Case:
    case = gen_class_loss(r, "nll_loss")
    x, t = case.tensors["input"], case.tensors["target"]
    red = case.args["reduction"]
    red_int = {"none": 0, "mean": 1, "sum": 2}.get(red)
    w = case.tensors.get("weight")
    ign = case.args["ignore_index"]
    if red_int is None:
        red, red_int = "mean", 1
        case.args["reduction"] = red
    call = lambda: torch._C._nn.nll_loss2d(x, t, w, red_int, ign)
    return Case("nll_loss2d", case.tensors, case.args, call)


GENERATORS = {
    "index": lambda r: gen_index(r, "index"),
    "index_put": lambda r: gen_index(r, "index_put"),
    "take": lambda r: gen_take_put(r, "take"),
    "put": lambda r: gen_take_put(r, "put"),
    "take_along_dim": gen_take_along_dim,
    "index_add": lambda r: gen_index_along_dim(r, "index_add"),
    "index_copy": lambda r: gen_index_along_dim(r, "index_copy"),
    "index_fill": lambda r: gen_index_along_dim(r, "index_fill"),
    "scatter_reduce": gen_scatter_reduce,
    "embedding_bag": gen_embedding_bag,
    "nll_loss2d": gen_nll_loss2d,
}
