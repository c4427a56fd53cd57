"""Issue 34 in the training loop: a few stray ids are a data error in their sample, named as
such, while the conventions (1-based, labelIds, 0 meaning other) are still named where the batch
shows them. PyTorch itself is the truth that each call is an error: its CPU path raises."""

import pytest
import torch
import torch.nn.functional as F

import labelguard
from labelguard import TargetError

from library_checks import refusal

NEVER_FOR_A_STRAY = ("num_classes=", "wide (", "ADE20K", "labelIds", "1-based", "reduce_zero_label")


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def blocks(ids, batch=2, size=64, block=8, seed=0):
    """Masks of 8x8 regions, each one of ids."""
    g = torch.Generator().manual_seed(seed)
    cells = torch.tensor(ids)[torch.randint(0, len(ids), (batch, size // block, size // block), generator=g)]
    return cells.repeat_interleave(block, 1).repeat_interleave(block, 2)


def refused(fn):
    """fn fails in PyTorch itself (the CPU raises where CUDA asserts) and labelguard refuses it."""
    with pytest.raises((IndexError, RuntimeError)):
        fn()
    return refusal(fn)


def assert_stray(err: TargetError):
    text = str(err)
    assert err.code == "LG101", text
    assert "correct or drop" in text, text
    for never in NEVER_FOR_A_STRAY:
        assert never not in text, f"{never!r} in {text}"


@pytest.mark.parametrize("c", [19, 21, 150])
def test_a_stray_patch_in_a_segmentation_batch_is_a_data_error(c):
    # A mask holds some of the classes (at most 20 of ADE20K's 150), each a region.
    mask = blocks(list(range(0, c, max(1, c // 20))))
    mask[1, 20:26, 30:36] = c
    logits = torch.randn(2, c, 64, 64)
    assert_stray(refused(lambda: F.cross_entropy(logits, mask, ignore_index=255)))


def test_one_stray_label_among_mnist_labels_is_a_data_error():
    labels = torch.arange(64) % 10
    labels[17] = 12
    logits = torch.randn(64, 10)
    err = refused(lambda: F.cross_entropy(logits, labels))
    assert_stray(err)
    assert "target[17] = 12" in str(err)


def test_conventions_are_named_where_the_batch_shows_them():
    # 1-based labels: no 0, 10 as common as any digit.
    labels = torch.arange(64) % 10 + 1
    assert refused(lambda: F.cross_entropy(torch.randn(64, 10), labels)).code == "LG104"
    # Cityscapes labelIds given to a 19-class model.
    mask = blocks(list(range(34)))
    assert refused(lambda: F.cross_entropy(torch.randn(2, 19, 64, 64), mask, ignore_index=255)).code == "LG105"
    # ADE20K's raw numbering: 0 is 'other', the classes are 1..150.
    mask = blocks(list(range(151)), batch=8)
    assert refused(lambda: F.cross_entropy(torch.randn(8, 150, 64, 64), mask, ignore_index=255)).code == "LG106"


def test_a_stray_label_in_one_hot_is_no_missing_class():
    labels = torch.arange(64) % 10
    labels[5] = 12
    err = refused(lambda: F.one_hot(labels, 10))
    assert err.code != "LG416", str(err)
    assert "correct or drop" in str(err), str(err)
    # One stray 10 (= C): a stray label and a head one class short both fit; both are named.
    labels[5] = 10
    err = refused(lambda: F.one_hot(labels, 10))
    assert err.code == "LG416", str(err)
    assert "stray labels" in str(err) and "one class short" in str(err), str(err)


def test_guarded_dataset_names_the_stray_sample():
    class Masks(torch.utils.data.Dataset):
        masks = [f"masks/{i:03}.png" for i in range(4)]

        def __len__(self):
            return 4

        def __getitem__(self, i):
            m = blocks(list(range(19)), batch=1, seed=i)[0]
            if i == 2:
                m[10:16, 10:16] = 19
            return torch.zeros(3, 64, 64), m

    ds = labelguard.GuardedDataset(Masks(), num_classes=19, ignore_index=255)
    ds[0], ds[1]
    with pytest.raises(TargetError) as info:
        ds[2]
    assert_stray(info.value)
    assert "masks/002.png" in str(info.value)
