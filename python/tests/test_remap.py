"""labelguard.remap / labelguard.Remap: the tables `labelguard fix` applies, on arrays and
tensors in a DataLoader."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from PIL import Image
from torchvision import tv_tensors
from torchvision.transforms import v2

import labelguard


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def test_label_ids_map_to_train_ids_with_the_cityscapes_table():
    ids = np.arange(34, dtype=np.uint8).reshape(2, 17)
    out = labelguard.remap(ids, preset="cityscapes", fix="label_ids")
    assert out.dtype == np.uint8 and out.shape == ids.shape
    flat = out.reshape(-1)
    # cityscapesScripts labels.py: road 7 -> 0, car 26 -> 13, bicycle 33 -> 18, unlabeled 0 -> 255.
    assert (flat[7], flat[26], flat[33], flat[0]) == (0, 13, 18, 255)
    assert sorted(set(flat.tolist()) - {255}) == list(range(19))


def test_python_and_the_fix_command_write_the_same_ids(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    rng = np.random.default_rng(0)
    mask = np.repeat(rng.integers(0, 34, size=(16, 1), dtype=np.uint8), 64, axis=1)
    mask[:, :8] = 26  # at least one id in 19..33
    Image.fromarray(mask).save(data / "m.png")
    code = labelguard._native.cli(["labelguard", "fix", str(data), "--out", str(tmp_path / "out"),
                                   "--preset", "cityscapes", "--no-config", "-q"])
    assert code == 0
    written = np.array(Image.open(tmp_path / "out" / "m.png"))
    np.testing.assert_array_equal(written, labelguard.remap(mask, preset="cityscapes", fix="label_ids"))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int16, torch.int64])
def test_tensors_keep_dtype_and_every_fix_maps_exactly(dtype):
    t = torch.tensor([[0, 1, 2, 3]], dtype=dtype)
    assert labelguard.remap(t, fix="one_based", num_classes=3).tolist() == [[0, 0, 1, 2]]
    assert labelguard.remap(t, fix="reduce_zero_label", num_classes=3).tolist() == [[255, 0, 1, 2]]
    b = torch.tensor([0, 255, 255], dtype=torch.uint8)
    assert labelguard.remap(b, fix="binary_255").tolist() == [0, 1, 1]
    v = torch.tensor([0, 255, 4], dtype=torch.int64)
    assert labelguard.remap(v, fix="void_to_ignore", ignore_index=-100).tolist() == [0, 255, 4]
    assert labelguard.remap(v.numpy(), mapping={255: -100}).tolist() == [0, -100, 4]
    assert labelguard.remap(t, fix="one_based", num_classes=3).dtype == dtype


def test_targets_the_dtype_cannot_hold_raise():
    with pytest.raises(ValueError, match="cannot hold"):
        labelguard.remap(np.array([255], dtype=np.uint8), mapping={255: -100})
    with pytest.raises(TypeError):
        labelguard.remap(np.array([1.0]), fix="one_based", num_classes=3)
    with pytest.raises(ValueError, match="unknown fix"):
        labelguard.remap(np.array([1]), fix="nope")


def test_colour_masks_map_exact_colours_only():
    rgb = np.array([[[128, 64, 128], [244, 35, 232], [0, 0, 0]]], dtype=np.uint8)
    assert labelguard.remap(rgb, preset="cityscapes", fix="colour_to_index").tolist() == [[0, 1, 255]]
    rgb[0, 1] = [1, 2, 3]
    with pytest.raises(ValueError, match="outside the cityscapes palette"):
        labelguard.remap(rgb, preset="cityscapes", fix="colour_to_index")


def test_the_transform_changes_masks_in_a_sample_and_leaves_images_alone():
    tf = labelguard.Remap(preset="cityscapes", fix="label_ids")
    image = torch.full((3, 2, 2), 26, dtype=torch.uint8)
    mask = tv_tensors.Mask(torch.tensor([[7, 26], [33, 0]], dtype=torch.uint8))
    out_image, out_mask = tf(image, mask)
    assert out_image is image
    assert type(out_mask) is tv_tensors.Mask
    assert out_mask.tolist() == [[0, 13], [18, 255]]
    d = tf({"image": image, "mask": mask})
    assert d["mask"].tolist() == [[0, 13], [18, 255]] and d["image"] is image
    assert tf(np.array([26], dtype=np.uint8)).tolist() == [13]
    assert "cityscapes" in repr(tf)


def test_the_transform_composes_with_torchvision_v2_transforms():
    # A real v2 pipeline: the flip moves image and mask together, the remap then changes the
    # mask only, and the types survive for the transforms after it.
    tf = v2.Compose([v2.RandomHorizontalFlip(p=1.0), labelguard.Remap(preset="cityscapes", fix="label_ids")])
    image = tv_tensors.Image(torch.full((3, 2, 2), 26, dtype=torch.uint8))
    mask = tv_tensors.Mask(torch.tensor([[7, 26], [33, 0]], dtype=torch.uint8))
    out_image, out_mask = tf(image, mask)
    assert type(out_image) is tv_tensors.Image and type(out_mask) is tv_tensors.Mask
    assert torch.equal(out_image, image)
    assert out_mask.tolist() == [[13, 0], [255, 18]]
