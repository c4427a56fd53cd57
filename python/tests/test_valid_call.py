"""The native valid-call test of enable()'s wrappers (`_native.valid_call`, `valid_index`): it
answers True only where the general Python path finds nothing, and it answers True for the
common valid calls (otherwise every call would pay both paths)."""

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import labelguard
from labelguard import _enable, _guard, _indexing, _native
from labelguard._check import check_call
from labelguard._ops import OPS

torch.manual_seed(0)
X, T = torch.randn(4, 5), torch.tensor([0, 4, 2, 1])
IDS, TABLE = torch.randint(0, 10, (2, 6)), torch.randn(10, 3)
IDX = torch.tensor([[0], [3], [1], [4]])
LP = torch.randn(6, 2, 5).log_softmax(2)
TARGETS = torch.tensor([[1, 2], [3, 4]])

# (op, args, kwargs, expected answer of the native test: True, or None where it may say either
# but must be right when it says True)
CASES = [
    ("cross_entropy", (X, T), {}, True),
    ("cross_entropy", (X, T + 1), {}, False),  # 5 is out of range
    ("cross_entropy", (X,), {"target": T, "ignore_index": 4}, True),
    ("cross_entropy", (X, T + 1), {"ignore_index": 5}, True),
    ("cross_entropy", (X, T, None, None, -100, None, "sum", 0.1), {}, True),
    ("cross_entropy", (X, T, None, None, -100, None, "bogus"), {}, False),
    ("cross_entropy", (X, T), {"reduction": 3}, False),
    ("cross_entropy", (X, T, None, False), {}, False),  # legacy size_average: not judged natively
    ("cross_entropy", (X, T), {"reduce": False}, False),
    ("cross_entropy", (X, T), {"bogus": 1}, False),
    ("cross_entropy", (X, T, None), {"weight": None}, False),
    ("cross_entropy", (X,), {}, False),
    ("cross_entropy", (X, T, torch.ones(5)), {}, True),
    ("cross_entropy", (X, T, torch.ones(4)), {}, False),
    ("cross_entropy", (X, T.int()), {}, False),
    ("cross_entropy", (X, T), {"ignore_index": np.int64(2)}, False),  # numpy scalar: the general path
    ("cross_entropy", (X.numpy(), T), {}, False),
    ("cross_entropy", (X.to("meta"), T), {}, None),
    ("cross_entropy", (torch.full((4, 5), float("nan")), T), {}, None),
    ("nll_loss", (X.log_softmax(1), T), {}, True),
    ("nll_loss", (X.log_softmax(1), T - 1), {}, False),
    ("binary_cross_entropy", (torch.rand(3, 2), torch.rand(3, 2)), {}, True),
    ("binary_cross_entropy", (torch.rand(3, 2), torch.rand(3, 2) + 1), {}, False),
    ("binary_cross_entropy_with_logits", (torch.randn(3, 2), torch.rand(3, 2)), {"pos_weight": torch.rand(2)}, True),
    ("binary_cross_entropy_with_logits", (torch.randn(3, 2), torch.rand(3, 2)), {"pos_weight": torch.rand(3)}, False),
    ("embedding", (IDS, TABLE), {}, True),
    ("embedding", (IDS + 10, TABLE), {}, False),
    ("embedding", (IDS, TABLE, 3), {}, True),
    ("embedding", (IDS, TABLE, 10), {}, False),
    ("embedding", (IDS,), {"weight": TABLE, "padding_idx": None, "sparse": True}, True),
    ("embedding", (IDS, torch.randn(10)), {}, None),
    ("embedding", (IDS.float(), TABLE), {}, False),
    ("one_hot", (T, 5), {}, True),
    ("one_hot", (T, 4), {}, False),
    ("one_hot", (T,), {}, True),
    ("ctc_loss", (LP, TARGETS, [6, 6], [2, 2]), {}, True),
    ("ctc_loss", (LP, TARGETS, (6, 6), torch.tensor([2, 2])), {}, True),
    ("ctc_loss", (LP, TARGETS, [6, 6], [2, 3]), {}, False),
    ("ctc_loss", (LP, TARGETS, [6.0, 6.0], [2, 2]), {}, None),
    ("gather", (X, 1, IDX), {}, True),
    ("gather", (X, 1, IDX + 1), {}, False),
    ("gather", (X, 1), {"index": IDX, "sparse_grad": False}, True),
    ("gather", (X, 1, IDX, True), {}, False),  # too many positional arguments
    ("scatter", (X, 1, IDX, 1.0), {}, True),
    ("scatter", (X, 1, IDX, 1), {}, True),
    ("scatter", (X, 1, IDX + 1, 1.0), {}, False),
    ("scatter", (X, 1, IDX), {"value": 2.0}, True),
    ("scatter", (X, 1, IDX, torch.randn(4, 1)), {}, True),
    ("scatter", (X, 1, IDX, 1.0), {"value": 2.0}, False),
    ("scatter", (X, 1, IDX, np.float32(1.0)), {}, False),
    ("scatter_add", (X, 1, IDX, torch.randn(4, 1)), {}, True),
    ("index_select", (X, 0, torch.tensor([3, 0])), {}, True),
    ("index_select", (X, 0, torch.tensor([4])), {}, False),
    ("multinomial", (torch.rand(3, 4), 2), {}, True),
    ("multinomial", (torch.rand(3, 4), 5), {}, False),
    ("bincount", (torch.tensor([0, 3, 1]),), {}, True),
    ("bincount", (torch.tensor([0, -3, 1]),), {}, False),
    # index_put_ with a key of index tensors, read in place as index, index1, ...
    ("index_put", (X, (torch.arange(4), T), torch.ones(())), {}, True),
    ("index_put", (X, [torch.arange(4), T], torch.ones(4)), {}, True),
    ("index_put", (X, (torch.arange(4), T + 1), torch.ones(())), {}, False),
    ("index_put", (X, (torch.arange(4) - 5, T), torch.ones(())), {}, False),
    ("index_put", (X, (T % 4,), torch.ones(4, 5)), {"accumulate": True}, True),
    ("index_put", (X, ((T % 4).int(), T), torch.ones(())), {}, True),
    ("index_put", (X, (X > 0,), torch.ones(())), {}, None),
    ("index_put", (X, (), torch.ones(())), {}, False),
    ("index_put", (X, (torch.arange(4), None), torch.ones(())), {}, False),
    ("index_put", (X, torch.arange(4), torch.ones(())), {}, False),
    ("index_put", (X, (T, T, T), torch.ones(())), {}, False),
]


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def _general(op, args, kwargs, finite):
    """What the Python general path of a wrapper decides: None (not checked) or the Report."""
    bound = OPS[op].params.bind(args, kwargs)
    call = None if bound is None else _enable._arguments(OPS[op], bound)
    if call is None:
        return None
    # The truth reads every tensor but the finite-only ones (enable(finite=False)'s choice):
    # the shape-only tensors, which the native test does not read, are read here.
    unread = frozenset() if finite else OPS[op].unread(False) - OPS[op].unread(True)
    try:
        return check_call(op, call, unread)
    except (TypeError, ValueError):
        return "raises"


@pytest.mark.parametrize("finite", [False, True])
@pytest.mark.parametrize("op,args,kwargs,expected", CASES)
def test_valid_call_is_true_only_where_the_general_path_finds_nothing(op, args, kwargs, expected, finite):
    native = _guard.binding(op, finite)
    got = _native.valid_call(native, args, kwargs)
    general = _general(op, args, kwargs, finite)
    if got:
        assert general is not None and general != "raises" and general.findings == (), general
    if expected is not None:
        assert got is expected, general


@pytest.mark.parametrize("op", ["gather", "index_select", "scatter", "scatter_add"])
def test_shape_only_tensors_never_change_the_verdict(op):
    """The native test reads the shape-only tensors (the op table's `shape` use) by shape and
    dtype only; the truth here
    reads them, filled with NaN, inf and huge values, on 300 random calls with indices in and out
    of range: both must agree on every call."""
    gen = torch.Generator().manual_seed(13)
    assert OPS[op].unread(True), "the table reads some tensor of the op by shape only"
    native = _guard.binding(op, False)
    specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 3e38, -0.0])
    disagreements, answers = [], set()
    for case in range(300):
        rows, cols = (int(v) for v in torch.randint(1, 6, (2,), generator=gen))
        dim = int(torch.randint(0, 2, (), generator=gen))
        size = (rows, cols)[dim]
        x = specials[torch.randint(0, 5, (rows, cols), generator=gen)]
        if op == "index_select":
            index = torch.randint(-1, size + 2, (int(torch.randint(1, 6, (), generator=gen)),), generator=gen)
            args = (x, dim, index)
        else:
            index = torch.randint(-1, size + 2, (rows, cols), generator=gen)
            if case % 3 == 0:
                index = index.clamp(0, size - 1)
            args = (x, dim, index) if op == "gather" else (x, dim, index, specials[torch.randint(0, 5, (rows, cols), generator=gen)])
        truth = check_call(op, _enable._arguments(OPS[op], OPS[op].params.bind(args, {})))
        answer = _native.valid_call(native, args)
        answers.add(answer)
        if answer != (truth.findings == ()):
            disagreements.append((case, [f.code for f in truth.findings]))
    assert disagreements == [] and answers == {True, False}


def test_valid_call_without_keywords_and_with_an_empty_dict_agree():
    native = _guard.binding("cross_entropy", False)
    assert _native.valid_call(native, (X, T)) is True
    assert _native.valid_call(native, (X, T), {}) is True
    assert _native.valid_call(native, (X, T + 1)) is False


INDEX_CASES = [
    # (x, key, op index valid?)
    (torch.randn(5, 3), torch.tensor([0, 4, -5]), True),
    (torch.randn(5, 3), torch.tensor([0, 5]), False),
    (torch.randn(5, 3), torch.tensor([[0, 1], [2, 3]], dtype=torch.int32), True),
    (torch.randn(5), torch.tensor([-6]), False),
    (torch.randn(5, 3), torch.tensor([True, False, True, False, True]), False),  # a mask: the general path
    (torch.randn(5, 3), torch.tensor(2), False),  # 0-d: PyTorch reads it as an int
    (torch.tensor(3.0), torch.tensor([0]), False),
    (torch.randn(5, 3, dtype=torch.complex64), torch.tensor([0]), False),
    (torch.randn(5, 3).to("meta"), torch.tensor([1]), True),
    (torch.randn(5, 3), torch.tensor([1]).to("meta"), True),  # no values: checked by shape, as in Python
    (torch.randn(5, 3), np.array([1]), False),
]


@pytest.mark.parametrize("x,key,expected", INDEX_CASES)
@pytest.mark.parametrize("op", ["index", "index_put"])
def test_valid_index_is_true_only_where_the_general_path_finds_nothing(x, key, expected, op):
    got = _native.valid_index(_indexing._binding(op), x, key)
    assert got is expected
    if got:
        _indexing.wrap("__getitem__", torch.Tensor.__getitem__, _guard.never)  # sets the dtype tables
        call = _indexing._plan(x, key, torch.Tensor.__getitem__, real_masks=False)
        assert call is not None and check_call(op, call).findings == ()


def _count_general_paths(monkeypatch):
    calls = []

    def spy(op, call, where, traced=None):
        calls.append(op)
        return real(op, call, where, traced)

    real = _guard.check_or_raise
    monkeypatch.setattr(_enable, "check_or_raise", spy)
    monkeypatch.setattr(_indexing, "check_or_raise", spy)
    return calls


def test_valid_wrapped_calls_take_the_native_path_and_bad_ones_are_still_refused(monkeypatch):
    general = _count_general_paths(monkeypatch)
    labelguard.enable()
    weights = torch.rand(5)
    F.cross_entropy(X, T)
    F.embedding(IDS, TABLE)
    torch.gather(X, 1, IDX)
    X.gather(1, index=IDX)
    weights[T]
    weights.clone()[T] = 1.0
    nn.CrossEntropyLoss(label_smoothing=0.1)(X, T)
    nn.Embedding(10, 3)(IDS)
    nn.BCEWithLogitsLoss(pos_weight=torch.ones(2))(torch.randn(3, 2), torch.rand(3, 2))
    nn.CTCLoss()(LP, TARGETS, [6, 6], [2, 2])
    torch.zeros(4, 5).index_put_((torch.arange(4), T), torch.ones(()))  # a one-hot target
    assert general == []
    for bad in (lambda: F.cross_entropy(X, T + 1), lambda: F.embedding(IDS + 10, TABLE), lambda: torch.gather(X, 1, IDX + 1),
                lambda: weights[T + 1], lambda: nn.CrossEntropyLoss()(X, T + 1)):
        with pytest.raises(labelguard.TargetError):
            bad()
    assert general == ["cross_entropy", "embedding", "gather", "index", "cross_entropy"]
