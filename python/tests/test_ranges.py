"""`_ranges.proven`, what a compiled graph proves about a tensor's values, against the values
themselves: each expression is traced as inductor's forward graph holds it (functional ATen ops
after inductor's decompositions), and the tensor it computes, on many random inputs, lies in the
interval proven for it. A wrong interval would let a compiled step skip a check it needs."""

import pytest
import torch
import torch.nn.functional as F

from labelguard._ranges import proven

# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow

C = 20

#: expression -> (the interval proven must lie in [0, 1] (a BCE target whose check is settled))
PROVEN = {
    "an index_put_ one-hot": (lambda x, l: torch.zeros_like(x).index_put_((torch.arange(l.shape[0]), l), torch.ones(())), True),
    "F.one_hot(...).float()": (lambda x, l: F.one_hot(l, C).float(), True),
    "a scattered one-hot, smoothed": (lambda x, l: torch.zeros_like(x).scatter_(1, l[:, None], 1.0) * 0.9 + 0.1 / C, True),
    "torch.where of two constants": (lambda x, l: torch.where(l[:, None] == torch.arange(C), 0.95, 0.05 / (C - 1)), True),
    "a bfloat16 one-hot times 0.7": (lambda x, l: F.one_hot(l, C).bfloat16() * 0.7, True),
    "a float16 one-hot, clamped": (lambda x, l: F.one_hot(l, C).half().clamp(0.1, 0.9), True),
    "a float64 one-hot, smoothed by subtraction": (lambda x, l: 1 - (1 - F.one_hot(l, C).double()) * 0.99, True),
    "a float32 one-hot, smoothed by subtraction (0.99 as float32 rounds it)": (lambda x, l: 1 - (1 - F.one_hot(l, C).float()) * 0.99, True),
    "the sigmoid of a constant-built tensor": (lambda x, l: torch.sigmoid(F.one_hot(l, C).float() * 4 - 2), True),
    "an arange, scaled and shifted": (lambda x, l: torch.arange(l.shape[0]) * 3 - 1, False),
    "a one-hot times two": (lambda x, l: F.one_hot(l, C).float() * 2, False),
    "a one-hot divided by a constant": (lambda x, l: F.one_hot(l, C).float() / -4.0, False),
    "a clamp bound float32 rounds up": (lambda x, l: F.one_hot(l, C).float().clamp(max=1.0000001) + 0.5, False),
}

#: expressions whose values depend on an input or a random draw: nothing is proven
UNPROVEN = {
    "the logits": lambda x, l: x * 1.0,
    "the sigmoid of the logits (NaN stays NaN)": lambda x, l: torch.sigmoid(x),
    "an accumulating index_put_": lambda x, l: torch.zeros_like(x).index_put_((torch.arange(l.shape[0]), l), torch.ones(()), accumulate=True),
    "a random draw": lambda x, l: torch.rand_like(x),
    "a one-hot divided by a tensor that may be zero": lambda x, l: F.one_hot(l, C).float() / x,
    "a clamp of the logits (NaN stays NaN)": lambda x, l: x.clamp(0, 1),
}


def _output_node(fn, *inputs):
    from torch._inductor.decomposition import select_decomp_table
    from torch.fx.experimental.proxy_tensor import make_fx

    graph = make_fx(torch.func.functionalize(fn, remove="mutations_and_views"), decomposition_table=select_decomp_table(), tracing_mode="fake")(*inputs)
    (output,) = [n for n in graph.graph.nodes if n.op == "output"]
    return output.args[0] if isinstance(output.args[0], torch.fx.Node) else output.args[0][0]


def _batch(seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(8, C, generator=g), torch.randint(0, C, (8,), generator=g)


@pytest.mark.parametrize("name", sorted(PROVEN))
def test_the_values_lie_in_the_interval_proven(name):
    fn, in_unit = PROVEN[name]
    interval = proven(_output_node(fn, *_batch(0)))
    assert interval is not None, name
    lo, hi = interval
    assert (0.0 <= lo and hi <= 1.0) == in_unit, interval
    for seed in range(50):
        values = fn(*_batch(seed)).double()
        assert lo <= values.min().item() and values.max().item() <= hi, (seed, interval, values.min().item(), values.max().item())


@pytest.mark.parametrize("name", sorted(UNPROVEN))
def test_values_that_depend_on_an_input_prove_nothing(name):
    assert proven(_output_node(UNPROVEN[name], *_batch(0))) is None
