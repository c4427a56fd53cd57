"""`enable()` wraps `Tensor.__getitem__` in Python, which makes CPython treat every tensor as a
sequence: `torch.tensor([t0, t1])` of 0-d tensors (transformers' Qwen2-VL `get_rope_index`
builds its rope deltas so) then called `len()` of a 0-d tensor, while enabled and after
`disable()`. Both must build the tensor as PyTorch does."""

import pytest

import labelguard

torch = pytest.importorskip("torch")


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def build():
    return torch.tensor([torch.tensor(3), torch.tensor(4)])


def test_a_list_of_0d_tensors_becomes_a_tensor_under_enable_and_after_disable():
    expected = build()
    labelguard.enable()
    try:
        assert torch.equal(build(), expected)
        x = torch.arange(5)
        assert x[torch.tensor(2)].item() == 2 and x[1:3].tolist() == [1, 2] and len(x) == 5
        assert [t.item() for t in torch.arange(3)] == [0, 1, 2]
        with pytest.raises(labelguard.TargetError):
            x[torch.tensor([7])]  # the wrapper still checks
    finally:
        labelguard.disable()
    assert torch.equal(build(), expected)
    assert "__getitem__" not in vars(torch.Tensor)
