"""enable() and advanced indexing: `x[idx]`, `x[idx] = v`, index_put_, take, put_,
take_along_dim, index_add/copy/fill, scatter_reduce, embedding_bag. Bad calls raise TargetError
before PyTorch runs; valid calls (and every key without a tensor) give PyTorch's own results."""

import random

import pytest
import torch
import torch.nn.functional as F

import labelguard
from labelguard import TargetError
from library_checks import refusal


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def codes(err: TargetError):
    return [f.code for f in err.report.findings]


def caught(fn):
    """The TargetError enable() raises for fn, after checking that PyTorch itself raises."""
    with pytest.raises(Exception) as plain:
        fn()
    assert not isinstance(plain.value, TargetError)
    return refusal(fn)


def test_mmseg_class_weight_gather_with_void_label():
    """mmseg's CrossEntropyLoss(class_weight=...) computes class_weight[label] on labels that still
    hold 255: caught at the indexing line, as LG409 with the void-label hint."""
    class_weight = torch.rand(19)
    label = torch.randint(0, 19, (2, 8, 8))
    label[0, 0, :3] = 255
    err = caught(lambda: class_weight[label])
    assert codes(err) == ["LG409"]
    finding = err.report.findings[0]
    assert "255" in finding.message and finding.verdict == "device_assert"
    assert "void" in (finding.hint or "")


def test_retinanet_style_target_assignment():
    """torchvision's RetinaNet head: gt_classes_target[foreground, labels] = 1.0 with a class id
    beyond the head."""
    target = torch.zeros(6, 4)
    rows = torch.arange(6)
    labels = torch.tensor([0, 1, 3, 4, 2, 1])

    def assign():
        target[rows, labels] = 1.0

    err = caught(assign)
    # Every dim indexed, one value written: a one-hot target, and 4 on 4 classes says why.
    assert codes(err) == ["LG416"]
    assert tuple(err.report.findings[0].locations[0].index) == (3,)


@pytest.mark.parametrize(
    "name, fn, code",
    [
        ("mask_shape", lambda: torch.randn(4, 5)[torch.tensor([True, False, True])], "LG211"),
        ("broadcast", lambda: torch.randn(4, 5)[torch.tensor([0, 1]), torch.tensor([0, 1, 2])], "LG212"),
        ("negative_too_far", lambda: torch.randn(4, 5)[:, torch.tensor([-6])], "LG409"),
        ("setitem_values", lambda: torch.zeros(4, 5).__setitem__(torch.tensor([1, 2]), torch.ones(3)), "LG213"),
        ("index_put_accumulate", lambda: torch.zeros(4).index_put_((torch.tensor([4]),), torch.tensor(1.0), accumulate=True), "LG409"),
        ("take", lambda: torch.take(torch.randn(2, 3), torch.tensor([6])), "LG410"),
        ("put", lambda: torch.zeros(2, 3).put_(torch.tensor([-7]), torch.tensor([1.0])), "LG410"),
        ("take_along_dim_flat", lambda: torch.take_along_dim(torch.randn(2, 3), torch.tensor([6])), "LG402"),
        ("index_add", lambda: torch.zeros(3, 2).index_add(0, torch.tensor([3]), torch.ones(1, 2)), "LG411"),
        ("index_copy", lambda: torch.zeros(3, 2).index_copy_(0, torch.tensor([-1]), torch.ones(1, 2)), "LG411"),
        ("index_fill", lambda: torch.zeros(3, 2).index_fill(1, torch.tensor([2]), 1.0), "LG411"),
        ("scatter_reduce", lambda: torch.zeros(3, 2).scatter_reduce(1, torch.tensor([[5]]), torch.ones(1, 1), "amax"), "LG402"),
        ("embedding_bag", lambda: F.embedding_bag(torch.tensor([1, 7]), torch.randn(5, 3), torch.tensor([0])), "LG412"),
        ("embedding_bag_offsets", lambda: F.embedding_bag(torch.tensor([1, 2]), torch.randn(5, 3), torch.tensor([1])), "LG413"),
        ("token_type_ids", lambda: F.embedding(torch.tensor([[0, 0, 1, 2]]), torch.randn(2, 4)), "LG414"),
        ("positions", lambda: F.embedding(torch.arange(12).unsqueeze(0), torch.randn(8, 4)), "LG415"),
        ("one_hot_scatter", lambda: torch.zeros(3, 4).scatter_(1, torch.tensor([[0], [4], [2]]), 1.0), "LG416"),
        ("brats_one_hot", lambda: torch.zeros(4, 4, 2).scatter_(1, torch.tensor([0, 1, 2, 4]).view(4, 1, 1).expand(4, 1, 2), 1.0), "LG417"),
    ],
)
def test_bad_calls_are_caught(name, fn, code):
    assert code in codes(caught(fn)), name


def test_valid_calls_and_plain_keys_are_unchanged():
    """Every key type gives PyTorch's own result with enable(), bit for bit."""
    torch.manual_seed(1)
    x = torch.randn(4, 5, 3)
    mask = x[..., 0] > 0
    calls = [
        lambda t: t[0], lambda t: t[1:3], lambda t: t[..., None], lambda t: t[None, :, 2], lambda t: t[[0, 3]],
        lambda t: t[-1, -2], lambda t: t[torch.tensor([3, -4, 0])], lambda t: t[:, torch.tensor([[0, 4], [-5, 1]])],
        lambda t: t[mask], lambda t: t[torch.tensor([0, 1]), :, torch.tensor([2, 0])], lambda t: t[torch.tensor(2)],
        lambda t: t[..., torch.tensor([1, 2])], lambda t: t[torch.tensor([True, False, True, True])],
        lambda t: torch.take(t, torch.tensor([0, 59, -60])), lambda t: torch.take_along_dim(t, torch.tensor([[[2]]]), 2),
        lambda t: t.index_add(1, torch.tensor([4, 0]), torch.ones(4, 2, 3)),
        lambda t: t.index_fill(2, torch.tensor([-1]), 0.5), lambda t: t.index_copy(0, torch.tensor([3]), torch.ones(1, 5, 3)),
        lambda t: t.scatter_reduce(2, torch.zeros(4, 5, 1, dtype=torch.long), torch.ones(4, 5, 1), "sum"),
    ]
    for fn in calls:
        want = fn(x)
        labelguard.enable()
        try:
            got = fn(x)
        finally:
            labelguard.disable()
        assert torch.equal(want, got)
    y0, y1 = x.clone(), x.clone()
    y0[torch.tensor([0, 2]), 1] = torch.ones(3)
    y0[mask] = 7.0
    y0[mask] = torch.tensor(3.0, dtype=torch.float64)  # masked_fill casts
    labelguard.enable()
    try:
        y1[torch.tensor([0, 2]), 1] = torch.ones(3)
        y1[mask] = 7.0
        y1[mask] = torch.tensor(3.0, dtype=torch.float64)
    finally:
        labelguard.disable()
    assert torch.equal(y0, y1)


def test_random_valid_indexing_never_raises():
    """Random in-range integer and mask keys, with enable(): same result as without."""
    r = random.Random(5)
    torch.manual_seed(5)
    for _ in range(200):
        shape = [r.randint(1, 4) for _ in range(r.randint(1, 3))]
        x = torch.randn(shape)
        d = r.randrange(len(shape))
        idx = torch.tensor([r.randint(-shape[d], shape[d] - 1) for _ in range(r.randint(1, 4))])
        key = tuple([slice(None)] * d + [idx])
        want = x[key]
        labelguard.enable()
        try:
            got = x[key]
        finally:
            labelguard.disable()
        assert torch.equal(want, got)


def test_disable_restores_getitem():
    original = torch.Tensor.__getitem__
    labelguard.enable()
    assert torch.Tensor.__getitem__ is not original
    labelguard.disable()
    assert torch.randn(3)[torch.tensor([2])].shape == (1,)
    with pytest.raises(IndexError):
        torch.randn(3)[torch.tensor([3])]


def test_ops_selects_indexing_only():
    labelguard.enable(ops=["index"])
    try:
        with pytest.raises(TargetError):
            torch.randn(3)[torch.tensor([3])]
        with pytest.raises(Exception) as plain:
            torch.randn(3).index_add(0, torch.tensor([3]), torch.ones(1))  # not wrapped: PyTorch's error
        assert not isinstance(plain.value, TargetError)
    finally:
        labelguard.disable()
