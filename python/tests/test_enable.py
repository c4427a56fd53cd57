"""enable(): valid calls are bit-identical, bad calls raise TargetError at the user's line."""

import os
import pickle
import traceback
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import labelguard
from labelguard import TargetError, TargetWarning

torch.manual_seed(0)
EMBEDDING = nn.Embedding(7, 3, padding_idx=0)


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def run_both(fn, *tensors):
    """Output and gradients of fn without and with enable(), on independent leaf copies."""
    results = []
    for enable in (False, True):
        leaves = [t.detach().clone().requires_grad_(t.is_floating_point()) for t in tensors]
        if enable:
            labelguard.enable()
        try:
            out = fn(*leaves)
        finally:
            labelguard.disable()
        grads = []
        if out.is_floating_point() and out.requires_grad:
            out.sum().backward()
            grads = [l.grad for l in leaves if l.requires_grad]
        results.append((out.detach(), grads))
    return results


VALID = {
    "cross_entropy": (lambda x, t: F.cross_entropy(x, t, ignore_index=255), torch.randn(2, 5, 4, 4), torch.randint(0, 5, (2, 4, 4))),
    "cross_entropy_smoothing": (lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), torch.randn(3, 5), torch.tensor([0, 4, 2])),
    "cross_entropy_probs": (lambda x, t: F.cross_entropy(x, t), torch.randn(3, 5), torch.softmax(torch.randn(3, 5), 1)),
    "nll_loss": (lambda x, t: F.nll_loss(x, t), torch.randn(3, 5).log_softmax(1), torch.tensor([0, 4, 2])),
    "bce": (lambda x, t: F.binary_cross_entropy(x, t), torch.rand(4, 3), torch.rand(4, 3)),
    "bce_logits": (lambda x, t, w: F.binary_cross_entropy_with_logits(x, t, pos_weight=w.detach()), torch.randn(4, 3), torch.rand(4, 3), torch.rand(3)),
    "embedding": (lambda w, i: F.embedding(i, w, padding_idx=0), torch.randn(10, 4), torch.randint(0, 10, (2, 5))),
    "one_hot": (lambda t: F.one_hot(t, 5), torch.tensor([0, 4, 2])),
    "ctc_loss": (lambda lp, t: F.ctc_loss(lp, t, [6, 6], [2, 3]), torch.randn(6, 2, 5).log_softmax(2), torch.tensor([[1, 2, 0], [3, 1, 2]])),
    "gather": (lambda x, i: torch.gather(x, 1, i), torch.randn(3, 4), torch.tensor([[0, 3], [1, 1], [2, 0]])),
    "scatter": (lambda x, i, s: torch.scatter(x, 1, i, s), torch.randn(3, 4), torch.tensor([[0, 3], [1, 2], [2, 0]]), torch.randn(3, 2)),
    "scatter_add": (lambda x, i, s: torch.scatter_add(x, 1, i, s), torch.randn(3, 4), torch.tensor([[0, 3], [1, 1], [2, 0]]), torch.randn(3, 2)),
    "index_select": (lambda x, i: torch.index_select(x, 0, i), torch.randn(5, 2), torch.tensor([4, 0, 4])),
    "tensor_gather": (lambda x, i: x.gather(1, i), torch.randn(3, 4), torch.tensor([[0, 3], [1, 1], [2, 0]])),
    "tensor_index_select": (lambda x, i: x.index_select(1, i), torch.randn(3, 4), torch.tensor([3, 0])),
    "tensor_scatter_add": (lambda x, i, s: x.scatter_add(0, i, s), torch.randn(3, 4), torch.tensor([[0, 2, 1, 0]]), torch.randn(1, 4)),
    "module_ce": (lambda x, t: nn.CrossEntropyLoss(ignore_index=255)(x, t), torch.randn(4, 3), torch.tensor([0, 2, 255, 1])),
    "module_embedding": (lambda i: EMBEDDING(i), torch.tensor([[1, 6]])),
    "channels_last": (lambda x, t: F.cross_entropy(x, t), torch.randn(2, 3, 4, 4).to(memory_format=torch.channels_last), torch.randint(0, 3, (2, 4, 4))),
    "non_contiguous": (lambda x, t: F.cross_entropy(x, t), torch.randn(3, 5).t(), torch.randint(0, 3, (10,))[::2]),
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_calls_are_bit_identical(name):
    fn, *tensors = VALID[name]
    torch.manual_seed(1)
    (a, ga), (b, gb) = run_both(fn, *tensors)
    assert torch.equal(a, b)
    assert len(ga) == len(gb)
    for x, y in zip(ga, gb):
        assert (x is None) == (y is None)
        if x is not None:
            assert torch.equal(x, y)


def test_multinomial_is_unchanged_with_the_same_generator():
    p = torch.tensor([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
    outs = []
    for enable in (False, True):
        if enable:
            labelguard.enable()
        outs.append(torch.multinomial(p, 2, generator=torch.Generator().manual_seed(3)))
        labelguard.disable()
    assert torch.equal(outs[0], outs[1])


# The installed package's own directory. A substring such as "/labelguard/" would also match the
# clone's path (users clone into .../labelguard/), and then every frame would be dropped.
PACKAGE_DIR = os.path.dirname(os.path.abspath(labelguard.__file__)) + os.sep


def innermost_outside_labelguard(exc):
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not os.path.abspath(f.filename).startswith(PACKAGE_DIR)]
    return frames[-1]


BAD = [
    ("LG103", "255", "ignore_index=255", lambda: F.cross_entropy(torch.randn(1, 19, 2, 2), torch.tensor([[[0, 255], [3, 4]]]))),
    ("LG105", "26", "labelTrainIds", lambda: nn.CrossEntropyLoss(ignore_index=255)(torch.randn(1, 19, 2, 2), torch.tensor([[[7, 26], [11, 24]]]))),
    ("LG401", "30522", "resize_token_embeddings", lambda: nn.Embedding(30522, 8)(torch.tensor([[101, 30522]]))),
    ("LG402", "4", "index", lambda: torch.randn(3, 4).gather(1, torch.tensor([[4, 0], [0, 1], [1, 2]]))),
    ("LG416", "4", "num_classes", lambda: torch.randn(3, 4).gather(1, torch.tensor([[4], [0], [1]]))),
    ("LG402", "7", "index", lambda: torch.randn(3, 4).index_select(0, torch.tensor([7]))),
    ("LG103", "255", "void label", lambda: F.one_hot(torch.tensor([0, 255]), 3)),
    ("LG403", "9", "one_hot", lambda: F.one_hot(torch.tensor([0, 1, 2, 9, 13]), 3)),
    ("LG501", "-1.5", "binary_cross_entropy_with_logits", lambda: F.binary_cross_entropy(torch.tensor([-1.5, 0.5]), torch.tensor([0.0, 1.0]))),
    ("LG505", "nan", "softmax", lambda: torch.multinomial(torch.tensor([0.5, float("nan")]), 1)),
    ("LG202", "one-hot", "argmax", lambda: F.cross_entropy(torch.randn(2, 3), torch.tensor([[0, 1, 0], [1, 0, 0]]))),
    ("LG301", "[4]", "3 entries", lambda: F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 1]), weight=torch.ones(4))),
]


@pytest.mark.parametrize("code,value,fix,call", BAD, ids=[b[0] + "-" + b[1] for b in BAD])
def test_bad_calls_raise_at_the_users_line(code, value, fix, call):
    labelguard.enable()
    with pytest.raises(TargetError) as info:
        call()
    err = info.value
    assert isinstance(err, ValueError)
    assert err.code == code
    assert value in str(err) and fix in str(err), str(err)
    # The innermost frame outside labelguard is the user's line that called PyTorch.
    frame = innermost_outside_labelguard(err)
    assert (frame.filename, frame.lineno) == (__file__, call.__code__.co_firstlineno)


def test_the_error_comes_before_pytorch_runs():
    labelguard.enable()
    calls = []
    original = labelguard._enable._originals[("torch.nn.functional", "cross_entropy")]
    F_ce = F.cross_entropy
    try:
        labelguard._enable._originals[("torch.nn.functional", "cross_entropy")] = lambda *a, **k: calls.append(1)
        with pytest.raises(TargetError):
            F_ce(torch.randn(2, 3), torch.tensor([0, 3]))
    finally:
        labelguard._enable._originals[("torch.nn.functional", "cross_entropy")] = original
    assert calls == []


def test_warn_mode_and_silent_verdicts_warn():
    labelguard.enable(mode="warn")
    with pytest.warns(TargetWarning, match="LG103"):
        with pytest.raises(IndexError):  # PyTorch's own CPU error still follows
            F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 255]))
    labelguard.enable()
    with pytest.warns(TargetWarning, match="LG503"):
        F.binary_cross_entropy_with_logits(torch.randn(2), torch.tensor([0.0, 255.0]))


def test_a_module_names_itself_and_its_warning_points_at_the_users_line():
    labelguard.enable()
    with pytest.raises(TargetError, match=r"cross_entropy \(labelguard, nn.CrossEntropyLoss\)") as info:
        nn.CrossEntropyLoss()(torch.randn(2, 3), torch.tensor([0, 3]))
    again = pickle.loads(pickle.dumps(info.value))  # (errors cross process boundaries)
    assert again.code == "LG101" and str(again) == str(info.value)
    labelguard.enable(mode="warn")
    call = lambda: nn.BCEWithLogitsLoss()(torch.randn(2), torch.tensor([0.0, 255.0]))  # noqa: E731
    with pytest.warns(TargetWarning, match=r"nn.BCEWithLogitsLoss") as record:
        call()
    assert (record[0].filename, record[0].lineno) == (__file__, call.__code__.co_firstlineno)


class _OwnForward(nn.CrossEntropyLoss):
    def forward(self, input, target):
        return F.cross_entropy(input, target)  # the line a subclass's traceback must keep


def test_a_subclass_forward_or_a_hook_keeps_its_frames():
    labelguard.enable()
    with pytest.raises(TargetError) as info:
        _OwnForward()(torch.randn(2, 3), torch.tensor([0, 3]))
    frame = innermost_outside_labelguard(info.value)
    assert (frame.filename, frame.name) == (__file__, "forward")
    emb = nn.Embedding(4, 2)
    bad_hook_line = []

    def hook(module, args):
        bad_hook_line.append(hook.__code__.co_firstlineno + 2)
        F.one_hot(torch.tensor([5]), 3)  # a bad call of the hook's own

    emb.register_forward_pre_hook(hook)
    with pytest.raises(TargetError) as info:
        emb(torch.tensor([1]))
    frame = innermost_outside_labelguard(info.value)
    assert (frame.filename, frame.lineno) == (__file__, bad_hook_line[0])


def test_modules_compile_in_one_graph_and_agree():
    """The module wrappers' `try` is traced by dynamo: one graph, no break, same loss."""
    import torch._dynamo as dynamo

    model = nn.Sequential(nn.Embedding(10, 4), nn.Flatten(), nn.Linear(20, 3))
    criterion = nn.CrossEntropyLoss()

    def step(ids, t):
        return criterion(model(ids), t)

    ids, t = torch.randint(0, 10, (4, 5)), torch.randint(0, 3, (4,))
    plain = step(ids, t)
    labelguard.enable()
    dynamo.reset()
    explained = dynamo.explain(step)(ids, t)
    assert (explained.graph_count, explained.graph_break_count) == (1, 0), explained.break_reasons
    dynamo.reset()
    assert torch.equal(torch.compile(step, backend="eager", fullgraph=True)(ids, t), plain)


def test_enabled_context_restores_and_ops_filter():
    assert F.cross_entropy.__name__ == "cross_entropy" and not labelguard.is_enabled()
    with labelguard.enabled(ops=["embedding"]):
        assert labelguard.is_enabled()
        F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 2]))
        with pytest.raises(TargetError):
            F.embedding(torch.tensor([5]), torch.randn(5, 2))
    assert not labelguard.is_enabled()
    assert not hasattr(F.embedding, "__labelguard_original__")
    with pytest.raises(ValueError, match="unknown ops"):
        labelguard.enable(ops=["cross_entropyy"])


def test_autocast_calls_are_checked_and_unchanged():
    x, t = torch.randn(4, 3), torch.tensor([0, 2, 1, 1])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        ref = F.cross_entropy(x @ torch.eye(3), t)
        labelguard.enable()
        out = F.cross_entropy(x @ torch.eye(3), t)
        with pytest.raises(TargetError):
            F.cross_entropy(x @ torch.eye(3), torch.tensor([0, 2, 1, 3]))
    assert torch.equal(ref, out)


def test_ddp_training_step_is_checked_and_unchanged(tmp_path):
    """A DistributedDataParallel model (gloo, one process on loopback): the loss call inside the
    training step is checked, and a valid step gives the same loss as without enable()."""
    import socket

    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    try:
        torch.manual_seed(0)
        model = DDP(nn.Linear(4, 3))
        x, y = torch.randn(5, 4), torch.tensor([0, 1, 2, 1, 0])
        criterion = nn.CrossEntropyLoss()
        ref = criterion(model(x), y)
        labelguard.enable()
        loss = criterion(model(x), y)
        loss.backward()
        assert torch.equal(ref, loss)
        with pytest.raises(TargetError, match="LG101"):
            criterion(model(x), torch.tensor([0, 1, 2, 3, 0]))
    finally:
        dist.destroy_process_group()
