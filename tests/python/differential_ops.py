"""The registry of differential generators: one generator per op of labelguard's core table
(crates/labelguard-core/src/ops/table.rs, `OPS`), keyed by the op's name.

Each generator draws a random call of its op. Most draws come from the op's base generator in
differential.py or differential_indexing.py (class ids, probabilities and index values at every
boundary); the rest come from the op's edge generator below, which aims at the shapes and dtypes
where contracts were found to be wrong (issue 19): zero-size dimensions, 0-d tensors, int32,
int64, uint8 and bool index tensors, empty index tensors, index tensors that broadcast to an
empty shape, and embedding_bag's per_sample_weights and offsets variants.

To add an op: write `gen_<op>(r) -> Case` (or an edge generator joined to a base one with
`with_edges`) and add it to GENERATORS; test_differential_ops.py fails until every op of the
core table has one.
"""

from __future__ import annotations

import math
import random

import torch
import torch.nn.functional as F

import differential as base
import differential_indexing as indexing
from differential import Case, int_tensor

# The share of a generator's draws that come from its edge generator.
EDGE_SHARE = 0.5

INDEX_DTYPES = [torch.int64, torch.int64, torch.int32, torch.uint8, torch.bool]


def edge_shape(r: random.Random, rank: int, hi: int = 3) -> list[int]:
    """A shape whose dimensions are often 0 or 1."""
    return [r.choice([0, 1, 1, 2, hi]) if r.random() < 0.5 else r.randint(1, hi) for _ in range(rank)]


def edge_values(r: random.Random, n: int, size: int, wraps: bool) -> list[int]:
    """Index values at and past the ends of a dimension of `size` (0 included)."""
    edges = [0, size - 1, size, size + 1, -1, 5] + ([-size, -size - 1] if wraps else [])
    return [r.choice(edges) if r.random() < 0.3 else r.randint(-size if wraps else 0, max(size - 1, 0)) for _ in range(n)]


def edge_index(r: random.Random, shape: list[int], size: int, wraps: bool = False, dtypes=None) -> torch.Tensor:
    """An index tensor of `shape` (0-d when `shape == []`) in one of the index dtypes."""
    dtype = r.choice(dtypes or INDEX_DTYPES)
    return int_tensor(edge_values(r, math.prod(shape), size, wraps), shape, dtype)


def index_shape(r: random.Random) -> list[int]:
    """0-d, empty, or short 1-D/2-D."""
    return r.choice([[], [], [0], [1], [r.randint(1, 3)], [0, 2], [2, 1]])


def gen_edges_index_select_like(r: random.Random, op: str) -> Case:
    """index_select, index_add, index_copy, index_fill: a 0-d or 1-D index along one dim of a
    tensor that may be 0-d or have zero-size dimensions."""
    rank = r.choice([0, 1, 1, 2, 2, 3])
    shp = edge_shape(r, rank)
    x = torch.randn(shp)
    dim = r.randint(-max(rank, 1), max(rank, 1) - 1)
    size = shp[dim] if rank else 1
    idx = edge_index(r, index_shape(r), size, wraps=op == "index_fill", dtypes=[torch.int64, torch.int64, torch.int32, torch.uint8])
    tensors, args = {"input": x, "index": idx}, {"dim": dim}
    if op == "index_select":
        return Case(op, tensors, args, lambda: torch.index_select(x, dim, idx))
    if op == "index_fill":
        args["value"] = 2.0
        return Case(op, tensors, args, lambda: x.index_fill(dim, idx, 2.0))
    sshape = list(shp)
    if rank:
        sshape[dim] = idx.numel() if r.random() < 0.9 else idx.numel() + 1
    elif idx.numel() != 1 or r.random() < 0.3:
        sshape = [idx.numel()]
    src = torch.ones(sshape)
    tensors["source"] = src
    fn = x.index_add if op == "index_add" else x.index_copy
    return Case(op, tensors, args, lambda: fn(dim, idx, src))


def gen_edges_gather_like(r: random.Random, op: str) -> Case:
    """gather, scatter, scatter_add, scatter_reduce: index of the input's rank (0-d for a 0-d
    input) with zero-size dimensions on either side."""
    rank = r.choice([0, 1, 1, 2, 2, 3])
    shp = edge_shape(r, rank)
    x = torch.randn(shp)
    dim = r.randint(-max(rank, 1), max(rank, 1) - 1)
    size = shp[dim] if rank else 1
    ishp = [r.choice([0, 1, s]) if r.random() < 0.5 else s for s in shp]
    idx = edge_index(r, ishp, size, dtypes=[torch.int64, torch.int64, torch.int64, torch.int32])
    tensors, args = {"input": x, "index": idx}, {"dim": dim}
    if op == "gather":
        return Case(op, tensors, args, lambda: torch.gather(x, dim, idx))
    src = torch.ones(ishp)
    tensors["src"] = src
    if op == "scatter_reduce":
        red = r.choice(["sum", "prod", "mean", "amax", "amin"])
        inc = r.random() < 0.5
        args.update(reduce=red, include_self=inc)
        return Case(op, tensors, args, lambda: x.scatter_reduce(dim, idx, src, red, include_self=inc))
    fn = torch.scatter if op == "scatter" else torch.scatter_add
    return Case(op, tensors, args, lambda: fn(x, dim, idx, src))


def gen_edges_take_along_dim(r: random.Random) -> Case:
    rank = r.choice([0, 1, 1, 2, 2, 3])
    shp = edge_shape(r, rank)
    x = torch.randn(shp)
    if r.random() < 0.3:
        idx = edge_index(r, index_shape(r), x.numel(), dtypes=[torch.int64, torch.int32])
        return Case("take_along_dim", {"input": x, "indices": idx}, {}, lambda: torch.take_along_dim(x, idx))
    dim = r.randint(-max(rank, 1), max(rank, 1) - 1)
    ishp = [r.choice([0, 1, s]) if r.random() < 0.4 else s for s in shp]
    idx = edge_index(r, ishp, shp[dim] if rank else 1, dtypes=[torch.int64, torch.int32])
    return Case("take_along_dim", {"input": x, "indices": idx}, {"dim": dim}, lambda: torch.take_along_dim(x, idx, dim))


def gen_edges_take_put(r: random.Random, op: str) -> Case:
    x = torch.randn(edge_shape(r, r.choice([0, 1, 2])))
    idx = edge_index(r, index_shape(r), x.numel(), wraps=True, dtypes=[torch.int64, torch.int64, torch.int32])
    if op == "take":
        return Case(op, {"input": x, "index": idx}, {}, lambda: torch.take(x, idx))
    src = torch.ones(idx.shape if r.random() < 0.7 else [idx.numel()])
    acc = r.random() < 0.4
    return Case(op, {"input": x, "index": idx, "source": src}, {"accumulate": acc}, lambda: x.clone().put_(idx, src, accumulate=acc))


def gen_edges_advanced(r: random.Random, op: str) -> Case:
    """aten::index / index_put_ with 1-3 index tensors (0-d, empty, broadcasting to an empty
    shape, any index dtype) on a tensor with zero-size dimensions. The calls go to the aten ops
    directly: a 0-d integer tensor in a Python key is an int to PyTorch, and labelguard's `index`
    op models aten::index."""
    rank = r.choice([1, 1, 2, 2, 3])
    shp = edge_shape(r, rank)
    x = torch.randn(shp)
    n = r.randint(1, rank)
    if rank > 1 and r.random() < 0.3:
        shp[-1], n = 0, r.randint(1, rank - 1)  # an empty slice: the result is empty, the indices are not
        x = torch.randn(shp)
    bshape = r.choice([[], [0], [1], [2], [0, 1], [1, 2]])
    indices, dims, cursor = [], [], 0
    tensors = {"input": x}
    names = ["index", "index1", "index2"]
    for k in range(n):
        if cursor >= rank:
            break
        if r.random() < 0.15:  # a mask over one dim (a 0-d mask is Python's: aten::index trips an internal assert)
            t = (torch.rand([shp[cursor]]) > 0.5).to(r.choice([torch.bool, torch.uint8]))
        else:
            ishape = list(bshape) if r.random() < 0.7 else r.choice([[], [0], [1], [3]])
            t = edge_index(r, ishape, shp[cursor], wraps=True, dtypes=[torch.int64, torch.int64, torch.int32])
        indices.append(t)
        tensors[names[k]] = t
        dims.append(cursor)
        cursor += t.dim() if t.dtype in (torch.bool, torch.uint8) else 1
    args = {"dims": dims}
    if op == "index":
        return Case(op, tensors, args, lambda: torch.ops.aten.index.Tensor(x, indices))
    acc = r.random() < 0.5
    args["accumulate"] = acc
    try:
        result = list(torch.ops.aten.index.Tensor(x, indices).shape)
    except Exception:  # noqa: BLE001 - a bad index: any value shape will do
        result = [2]
    v = torch.ones(r.choice([result, result[1:], [], [1], [3]]))
    tensors["values"] = v
    return Case(op, tensors, args, lambda: x.clone().index_put_(tuple(indices), v, accumulate=acc))


def gen_edges_embedding(r: random.Random) -> Case:
    n = r.choice([0, 1, 3])
    w = torch.randn(n, 2)
    idx = edge_index(r, r.choice([[], [0], [2], [0, 3], [2, 2]]), n, dtypes=[torch.int64, torch.int32, torch.uint8, torch.bool])
    return Case("embedding", {"input": idx, "weight": w}, {}, lambda: F.embedding(idx, w))


def gen_edges_embedding_bag(r: random.Random) -> Case:
    """per_sample_weights of the wrong shape or dtype, offsets empty, 0-d, decreasing or past the end."""
    n = r.choice([1, 3, 5])
    wdtype = r.choice([torch.float32, torch.float32, torch.float64])
    w = torch.randn(n, 2).to(wdtype)
    two_d = r.random() < 0.25
    ishape = [r.randint(1, 2), r.randint(0, 3)] if two_d else [r.choice([0, 1, 3, 4])]
    idx = int_tensor(edge_values(r, math.prod(ishape), n, wraps=False), ishape, r.choice([torch.int64, torch.int64, torch.int32]))
    L = idx.numel()
    offsets = None
    if not two_d:
        k = r.random()
        if k < 0.15:
            offs = []
        elif k < 0.35:
            offs = [0] + sorted(r.randint(0, L) for _ in range(r.randint(0, 3)))
            if len(offs) >= 2:
                i = r.randrange(1, len(offs))
                # decreasing, not below 0 (negative offsets crash torch 2.15's CPU kernel)
                offs[i] = max(offs[i - 1] - r.randint(1, 2), 0)
        elif k < 0.45:
            offs = [0, L + r.randint(0, 2)]
        else:
            offs = [0] + sorted(r.randint(0, L) for _ in range(r.randint(0, 3)))
        offsets = torch.tensor(offs, dtype=r.choice([torch.int64, torch.int32]))
        if r.random() < 0.05 and offs:
            offsets = offsets[:1].reshape([])
    mode = r.choice(["sum", "sum", "mean", "max"])
    last = r.random() < 0.3
    if last and offsets is not None and offsets.numel() == 1 and L:
        last = False  # torch 2.15's CPU kernel aborts the process here: no reference to compare with
    pad = r.choice([None, None, 0])
    # Zero bags of some ids crash torch 2.15's CPU kernel (a segmentation fault) with mode='max',
    # a padding_idx, per_sample_weights or a float64 table: only the float32 sum and mean (its
    # fbgemm path) are compared there.
    zero_bags = offsets is not None and offsets.numel() == 0 and L > 0
    if zero_bags:
        mode, pad, wdtype = r.choice(["sum", "mean"]), None, torch.float32
        w = w.to(wdtype)
    psw = None
    tensors = {"input": idx, "weight": w}
    if r.random() < 0.5 and not zero_bags:
        pshape = list(ishape) if r.random() < 0.7 else r.choice([[L + 1], [1, L], [], [L, 1]])
        pdtype = wdtype if r.random() < 0.7 else r.choice([torch.float16, torch.float64, torch.float32, torch.int64])
        psw = torch.rand(pshape).to(pdtype)
        tensors["per_sample_weights"] = psw
    if offsets is not None:
        tensors["offsets"] = offsets
    args = {"mode": mode, "include_last_offset": last}
    if pad is not None:
        args["padding_idx"] = pad
    cuda = indexing.cuda_bags(offsets, idx, n, last) if offsets is not None and offsets.dim() == 1 else None
    return Case("embedding_bag", tensors, args, lambda: F.embedding_bag(idx, w, offsets, mode=mode, per_sample_weights=psw, include_last_offset=last, padding_idx=pad), cuda)


def gen_edges_one_hot(r: random.Random) -> Case:
    nc = r.choice([-1, -1, 1, 3])
    t = edge_index(r, r.choice([[], [0], [2], [0, 2]]), nc if nc > 0 else 3, dtypes=[torch.int64, torch.int64, torch.int32, torch.uint8, torch.bool])
    return Case("one_hot", {"tensor": t}, {"num_classes": nc}, lambda: F.one_hot(t, nc))


def gen_edges_bincount(r: random.Random) -> Case:
    t = edge_index(r, r.choice([[], [0], [3], [0, 2]]), 4, dtypes=[torch.int64, torch.int32, torch.uint8, torch.bool])
    ml = r.choice([0, 0, 3])
    return Case("bincount", {"input": t}, {"minlength": ml}, lambda: torch.bincount(t, minlength=ml))


def gen_edges_class_loss(r: random.Random, op: str) -> Case:
    """A batch of zero samples, a 0-d target, targets of every index dtype, no classes."""
    c = r.choice([0, 1, 3])
    n = r.choice([0, 0, 1, 2])
    unbatched = r.random() < 0.3
    x = torch.randn([c] if unbatched else [n, c])
    if op != "cross_entropy" and x.numel():
        x = x.log_softmax(-1)
    tshape = [] if unbatched else r.choice([[n], [n], [], [n, 1]])
    ignore = r.choice([-100, 0, 2])
    t = int_tensor([r.choice([0, c - 1, c, -1, ignore, 1]) for _ in range(math.prod(tshape))], tshape, r.choice([torch.int64, torch.int64, torch.int32, torch.uint8]))
    red = r.choice(["mean", "sum", "none"])
    args = {"ignore_index": ignore, "reduction": red}
    if op == "cross_entropy":
        args["label_smoothing"] = 0.0
        call = lambda: F.cross_entropy(x, t, ignore_index=ignore, reduction=red)
    elif op == "nll_loss":
        call = lambda: F.nll_loss(x, t, ignore_index=ignore, reduction=red)
    else:
        red_int = {"none": 0, "mean": 1, "sum": 2}[red]
        call = lambda: torch._C._nn.nll_loss2d(x, t, None, red_int, ignore)
    return Case(op, {"input": x, "target": t}, args, call)


def gen_multi_margin_loss(r: random.Random) -> Case:
    """F.multi_margin_loss: class ids at every boundary (no ignore_index), 0-d/1-D/2-D inputs and
    the ranks and empty class dimensions PyTorch refuses, target shapes and dtypes, p, weights
    of every length, rank and dtype. Inputs are float32/float64 or integer: CUDA also takes
    Half and BFloat16, where the CPU kernel raises NotImplementedError."""
    c = r.choice([0, 1, 3, 5, 5, 5])
    n = r.choice([0, 1, 3, 3, 3])
    rank = r.choice([0, 1, 2, 2, 2, 2, 2, 3])
    shape = {0: [], 1: [c], 2: [n, c], 3: [n, c, 2]}[rank]
    dtype = r.choice([torch.float32] * 6 + [torch.float64, torch.int64])
    x = torch.randn(shape).to(dtype) if dtype.is_floating_point else torch.ones(shape, dtype=dtype)
    frames = 1 if rank <= 1 else n
    tshape = r.choice([[frames]] * 8 + [[], [frames, 1], [frames + 1]])
    valid = r.random() < 0.6
    ids = [r.randrange(max(c, 1)) if valid else r.choice([0, max(c - 1, 0), c, -1, 255, 1, 2]) for _ in range(math.prod(tshape))]
    t = int_tensor(ids, tshape, r.choice([torch.int64] * 12 + [torch.int32, torch.uint8, torch.float32]))
    p = r.choice([1, 1, 1, 2, 2, 3])
    margin = r.choice([1.0, 0.5])
    red = base.reduction(r)
    tensors = {"input": x, "target": t}
    weight = None
    if r.random() < 0.35:
        wl = r.choice([c, c, c + 1, max(c - 1, 0)])
        weight = torch.rand(r.choice([[wl], [wl], [1, wl]])).to(r.choice([dtype, dtype, torch.float64]) if dtype.is_floating_point else torch.float32)
        tensors["weight"] = weight
    call = lambda: F.multi_margin_loss(x, t, p=p, margin=margin, weight=weight, reduction=red)
    return Case("multi_margin_loss", tensors, {"p": p, "margin": margin, "reduction": red}, call)


def gen_masked_scatter(r: random.Random) -> Case:
    """masked_scatter: a mask of self's shape, a shape that broadcasts to it (or grows it: the
    out-of-place call broadcasts both), or one that does not; bool masks mostly, uint8, int64
    and float ones (refused); a source with as many elements as True entries, one fewer, one
    more, none, in self's dtype or another. The in-place call where it agrees with the
    out-of-place one (the broadcast shape is self's); a VLM-shaped merge ([B, L, H] embeddings,
    a [B, L, 1] placeholder mask, [N, H] features) in a quarter of the draws."""
    if r.random() < 0.25:
        b, length, hidden = r.choice([1, 2]), r.randint(1, 6), r.choice([1, 4])
        x = torch.randn(b, length, hidden)
        mask = torch.tensor([r.random() < 0.4 for _ in range(b * length)]).reshape(b, length, 1)
        features = int(mask.sum()) + r.choice([-1, 0, 0, 1])
        src = torch.randn(max(features, 0), hidden)
        return Case("masked_scatter", {"input": x, "mask": mask, "source": src}, {}, lambda: x.masked_scatter(mask, src))
    rank = r.choice([0, 1, 1, 2, 2, 3])
    shp = edge_shape(r, rank)
    x = torch.randn(shp).to(r.choice([torch.float32] * 6 + [torch.float64, torch.int64, torch.bool]))
    form = r.random()
    if form < 0.55:
        mshp = list(shp)
    elif form < 0.75:
        mshp = [d if r.random() < 0.5 else 1 for d in shp][r.randint(0, rank):]
    elif form < 0.85:
        mshp = [r.choice([1, 2])] + list(shp)
    else:
        mshp = [d + r.choice([1, 2]) for d in shp] or [2]
    mdtype = r.choice([torch.bool] * 8 + [torch.uint8, torch.int64, torch.float32])
    p_true = r.choice([0.0, 0.3, 0.7, 1.0])
    mask = int_tensor([int(r.random() < p_true) for _ in range(math.prod(mshp))], mshp, mdtype)
    try:
        out = torch.broadcast_shapes(tuple(mshp), tuple(shp))
        ones = int((mask != 0).expand(out).sum())
    except RuntimeError:
        out, ones = None, r.randint(0, 4)
    n = max(ones + r.choice([-1, 0, 0, 0, 1, 3]), 0) if r.random() < 0.9 else 0
    src = torch.randn(r.choice([[n], [n], [n, 1]])).to(x.dtype if r.random() < 0.9 else torch.float64)
    if out is not None and list(out) == list(shp) and r.random() < 0.4:
        call = lambda: x.clone().masked_scatter_(mask, src)
    else:
        call = lambda: torch.masked_scatter(x, mask, src)
    return Case("masked_scatter", {"input": x, "mask": mask, "source": src}, {}, call)


def gen_kl_div(r: random.Random) -> Case:
    """kl_div: float tensors of the same shape (mostly), of shapes that broadcast or that do not,
    0-d and empty ones; every reduction (and a bad name), log_target either way. Only the host
    errors decide the verdict: PyTorch checks no value (the contract's warnings are silent)."""
    rank = r.randint(0, 3)
    shp = edge_shape(r, rank)
    other = r.random()
    t_shape = shp if other < 0.7 else (shp[-1:] if other < 0.8 else edge_shape(r, r.randint(0, 3)))
    dtype = r.choice([torch.float32, torch.float64])
    x = torch.randn(shp, dtype=dtype)
    x = x.log_softmax(-1) if rank and r.random() < 0.5 and x.numel() else x
    t = torch.rand(t_shape, dtype=dtype)
    log_target = r.random() < 0.3
    red = r.choice(["mean", "sum", "none", "batchmean", "batchmean", "avg"])
    return Case("kl_div", {"input": x, "target": t}, {"reduction": red, "log_target": log_target},
                lambda: F.kl_div(x, t, reduction=red, log_target=log_target))


def with_edges(op: str, edges) -> object:
    """The op's generator: its base generator, or with EDGE_SHARE its edge generator."""
    plain = {**base.GENERATORS, **indexing.GENERATORS}[op]

    def generate(r: random.Random) -> Case:
        return edges(r) if edges is not None and r.random() < EDGE_SHARE else plain(r)

    generate.__name__ = f"gen_{op}"
    return generate


def _of(fn, op):
    return lambda r: fn(r, op)


# Ops without an edge generator: their base generators already draw empty and 0-d inputs
# (probabilities, logits and CTC lengths have no index edge of the kinds above).
GENERATORS = {
    "cross_entropy": with_edges("cross_entropy", _of(gen_edges_class_loss, "cross_entropy")),
    "nll_loss": with_edges("nll_loss", _of(gen_edges_class_loss, "nll_loss")),
    "nll_loss2d": with_edges("nll_loss2d", _of(gen_edges_class_loss, "nll_loss2d")),
    "binary_cross_entropy": with_edges("binary_cross_entropy", None),
    "binary_cross_entropy_with_logits": with_edges("binary_cross_entropy_with_logits", None),
    "multinomial": with_edges("multinomial", None),
    "ctc_loss": with_edges("ctc_loss", None),
    "embedding": with_edges("embedding", gen_edges_embedding),
    "embedding_bag": with_edges("embedding_bag", gen_edges_embedding_bag),
    "one_hot": with_edges("one_hot", gen_edges_one_hot),
    "bincount": with_edges("bincount", gen_edges_bincount),
    "gather": with_edges("gather", _of(gen_edges_gather_like, "gather")),
    "scatter": with_edges("scatter", _of(gen_edges_gather_like, "scatter")),
    "scatter_add": with_edges("scatter_add", _of(gen_edges_gather_like, "scatter_add")),
    "scatter_reduce": with_edges("scatter_reduce", _of(gen_edges_gather_like, "scatter_reduce")),
    "take_along_dim": with_edges("take_along_dim", gen_edges_take_along_dim),
    "index_select": with_edges("index_select", _of(gen_edges_index_select_like, "index_select")),
    "index_add": with_edges("index_add", _of(gen_edges_index_select_like, "index_add")),
    "index_copy": with_edges("index_copy", _of(gen_edges_index_select_like, "index_copy")),
    "index_fill": with_edges("index_fill", _of(gen_edges_index_select_like, "index_fill")),
    "take": with_edges("take", _of(gen_edges_take_put, "take")),
    "put": with_edges("put", _of(gen_edges_take_put, "put")),
    "index": with_edges("index", _of(gen_edges_advanced, "index")),
    "index_put": with_edges("index_put", _of(gen_edges_advanced, "index_put")),
    "multi_margin_loss": gen_multi_margin_loss,
    "masked_scatter": gen_masked_scatter,
    "kl_div": gen_kl_div,
}


def cases(n: int, seed: int):
    """n calls, the ops in turn, from one seed: the same calls on every run."""
    r = random.Random(seed)
    torch.manual_seed(seed)
    ops = sorted(GENERATORS)
    for i in range(n):
        yield GENERATORS[ops[i % len(ops)]](r)
