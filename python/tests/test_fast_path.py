"""enable()'s hot path: binding without inspect gives inspect's answer; a valid call builds no
report; meta and fake tensors are checked by shape and dtype without reading values."""

import inspect
import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import labelguard
from labelguard import _check, _native
from labelguard._ops import OPS


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("op", sorted(op for op, row in OPS.items() if row.params.names))
def test_params_bind_like_inspect(op):
    params = OPS[op].params
    names = list(params.names)
    kw_only = sorted(params.known - set(names))
    P = inspect.Parameter
    # The reference: the same names, required as in Params (the first `required` ones).
    sig = inspect.Signature(
        [P(n, P.POSITIONAL_OR_KEYWORD, **({} if i < params.required else {"default": None})) for i, n in enumerate(names)]
        + [P(k, P.KEYWORD_ONLY, default=None) for k in kw_only]
    )
    tried = 0
    for n_pos in range(len(names) + 2):
        args = tuple(f"a{i}" for i in range(n_pos))
        for kw_names in itertools.chain.from_iterable(itertools.combinations(names[:4] + kw_only[:2] + ["bogus"], r) for r in range(3)):
            kwargs = {k: f"k_{k}" for k in kw_names}
            try:
                want = dict(sig.bind(*args, **kwargs).arguments)
            except TypeError:
                want = None
            assert params.bind(args, kwargs) == want, (args, kwargs)
            tried += 1
    assert tried > 20


def test_a_valid_call_returns_no_json():
    t = torch.randint(0, 5, (4,))
    x = torch.randn(4, 5)
    name, text = _native.check("cross_entropy", [_tensor("input", x), _tensor("target", t)], [])
    assert (name, text) == ("cross_entropy", None)
    name, text = _native.check("cross_entropy", [_tensor("input", x), _tensor("target", t + 5)], [])
    assert '"LG101"' in text


def _tensor(name, x):
    return (name, x, x.data_ptr(), list(x.shape), list(x.stride()), str(x.dtype).removeprefix("torch."))


def test_ok_reports_are_shared_and_equal_to_the_json_ones():
    x, t = torch.randn(4, 5), torch.randint(0, 5, (4,))
    a = labelguard.check("cross_entropy", input=x, target=t)
    b = labelguard.check("CrossEntropyLoss", input=x, target=t)
    assert a.ok and a == b and a.op == "cross_entropy" and a.findings == ()


META_CASES = [
    # (op, kwargs, with real values: verdict, meta-valued names)
    ("cross_entropy", dict(input=torch.randn(4, 5), target=torch.tensor([0, 4, 9, 1])), "device_assert"),
    ("cross_entropy", dict(input=torch.randn(4, 5), target=torch.tensor([0, 4, 2, 1])), "ok"),
    ("cross_entropy", dict(input=torch.randn(4, 5), target=torch.tensor([0, 4, 2])), "error"),
    ("nll_loss", dict(input=torch.randn(2, 3, 4, 4), target=torch.tensor([0, 2, 255, 1]).repeat(2, 4, 1), ignore_index=255), "ok"),
    ("nll_loss", dict(input=torch.randn(2, 3, 4, 4), target=torch.full((2, 4, 4), 255), ignore_index=255), "silent"),
    ("binary_cross_entropy", dict(input=torch.rand(3, 2), target=torch.rand(3, 2)), "ok"),
    ("multinomial", dict(input=torch.rand(3, 4), num_samples=2), "ok"),
    ("embedding", dict(input=torch.tensor([[1, 7]]), num_embeddings=5), "device_assert"),
    ("gather", dict(input=torch.randn(3, 4), dim=1, index=torch.tensor([[0], [3], [1]])), "ok"),
    ("gather", dict(input=torch.randn(3, 4), dim=1, index=torch.tensor([0, 3, 1])), "error"),
    ("gather", dict(input=torch.randn(3, 4), dim=1, index=torch.tensor([[0], [3], [1]], dtype=torch.int16)), "error"),
]


@pytest.mark.parametrize("op,kwargs,verdict", META_CASES)
def test_meta_logits_keep_the_value_verdict_of_the_labels(op, kwargs, verdict):
    """Float tensors (logits, probabilities) on meta: the labels' values still decide."""
    assert labelguard.check(op, **kwargs).verdict == verdict
    meta = {k: (v.to("meta") if isinstance(v, torch.Tensor) and v.is_floating_point() else v) for k, v in kwargs.items()}
    got = labelguard.check(op, **meta)
    assert got.verdict == verdict, got


@pytest.mark.parametrize("op,kwargs,verdict", META_CASES)
def test_all_meta_checks_shapes_and_dtypes_only(op, kwargs, verdict):
    meta = {k: (v.to("meta") if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
    got = labelguard.check(op, **meta)
    # Values are unknown: only the host errors (shapes, dtypes, arguments) can remain.
    assert got.verdict == ("error" if verdict == "error" else "ok"), got
    assert all(not f.locations for f in got.findings)


def test_check_functions_accept_meta_logits_and_copy_nothing():
    logits = torch.empty(2, 19, 64, 64, device="meta")
    target = torch.randint(0, 19, (2, 64, 64))
    assert labelguard.check_cross_entropy(logits, target).ok
    target[0, 0, 0] = 255
    with pytest.raises(labelguard.TargetError) as e:
        labelguard.check_cross_entropy(logits, target)
    assert e.value.code == "LG103"
    with pytest.raises(labelguard.TargetError) as e:
        labelguard.check_cross_entropy(logits, target[:, :32])
    assert e.value.code == "LG204"


def test_fake_tensors_are_checked_by_shape():
    from torch._subclasses.fake_tensor import FakeTensorMode

    target = torch.tensor([0, 3, 1])
    with FakeTensorMode() as mode:
        logits = torch.randn(3, 4)
        fake_target = mode.from_tensor(target)
        assert labelguard.check_cross_entropy(logits, target).ok
        assert labelguard.check_cross_entropy(logits, fake_target).ok
        with pytest.raises(labelguard.TargetError):
            labelguard.check_cross_entropy(logits, torch.zeros(2, dtype=torch.long))


def test_enable_passes_meta_calls_through():
    labelguard.enable()
    out = F.cross_entropy(torch.empty(4, 5, device="meta"), torch.empty(4, dtype=torch.long, device="meta"))
    assert out.device.type == "meta"
    with pytest.raises(labelguard.TargetError):
        F.cross_entropy(torch.empty(4, 5, device="meta"), torch.empty(3, dtype=torch.long, device="meta"))


HOT_CASES = META_CASES + [
    ("embedding", dict(input=torch.tensor([[1, 4]]), num_embeddings=5, padding_idx=None), "ok"),
    ("index", dict(input=torch.empty(()).expand(6, 3), index=torch.tensor([0, 5, -6]), dims=[0]), "ok"),
    ("index", dict(input=torch.empty(()).expand(6, 3), index=torch.tensor([0, 6]), dims=[0]), "device_assert"),
    ("ctc_loss", dict(log_probs=torch.randn(6, 2, 5).log_softmax(2), targets=torch.tensor([[1, 2], [3, 4]]), input_lengths=[6, 6], target_lengths=[2, 2]), "ok"),
    ("cross_entropy", dict(input=torch.randn(4, 5, dtype=torch.bfloat16), target=torch.tensor([0, 4, 9, 1], dtype=torch.int32)), "error"),
]


@pytest.mark.parametrize("op,kwargs,verdict", HOT_CASES)
@pytest.mark.parametrize("unread", [frozenset(), frozenset(("input",))])
def test_the_native_hot_path_decides_as_the_general_path(op, kwargs, verdict, unread, monkeypatch):
    hot = _check.all_host_torch(op, kwargs, unread)
    assert hot is not None
    if not unread:
        assert hot.verdict == verdict
    monkeypatch.setattr(_check, "plain_tensor_types", lambda: ())  # no hot path: the general one
    assert _check.all_host_torch(op, kwargs, unread) is None
    assert _check.check_call(op, kwargs, unread) == hot


def test_the_hot_path_leaves_other_tensors_to_the_general_path():
    t = torch.tensor([0, 3, 1])
    for odd in (torch.randn(3, 4).to_sparse(), torch.randn(3, 4).conj()._neg_view(), torch.randn(3, 4).numpy(), torch.nn.Parameter(torch.randn(3, 4)).data.as_subclass(_Sub)):
        assert _native.check_plain("cross_entropy", {"input": odd, "target": t}, frozenset(), _check.plain_tensor_types(), torch.strided) is None
        assert labelguard.check("cross_entropy", input=odd, target=t).ok
    assert _native.check_plain("cross_entropy", {"input": torch.randn(3, 4), "target": t, "ignore_index": np.int64(3)}, frozenset(), _check.plain_tensor_types(), torch.strided) is None
    with pytest.raises(TypeError, match="unsupported dtype complex64"):
        _native.check_plain("gather", {"input": torch.randn(3, 4, dtype=torch.complex64), "dim": 1, "index": t[:, None]}, frozenset(), _check.plain_tensor_types(), torch.strided)


class _Sub(torch.Tensor):
    pass
