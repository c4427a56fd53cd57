"""What the guards say about where a bad sample comes from, and enable() without torch."""

import subprocess
import sys

import numpy as np
import pytest

import labelguard
from labelguard import TargetError


class VocLike:
    """A segmentation dataset the way torchvision's VOCSegmentation keeps its files."""

    images = [f"JPEGImages/{i}.jpg" for i in range(3)]
    masks = [f"SegmentationClass/{i}.png" for i in range(3)]

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return np.zeros((3, 4, 4), np.float32), np.full((4, 4), 30 if i == 2 else 1, np.int64)


class Own(VocLike):
    """A dataset of its own that says where a sample comes from."""

    images = masks = None

    def source(self, i):
        return f"/data/own/{i:04d}_mask.png"


@pytest.mark.parametrize("dataset, file", [(VocLike(), "SegmentationClass/2.png"), (Own(), "/data/own/0002_mask.png")])
def test_guarded_dataset_names_the_mask_file(dataset, file):
    ds = labelguard.GuardedDataset(dataset, num_classes=21)
    ds[1]
    with pytest.raises(TargetError) as info:
        ds[2]
    assert f"(dataset index 2, file {file})" in str(info.value)


def test_guard_collate_names_the_file_of_an_mmseg_style_sample():
    collate = labelguard.guard_collate(lambda batch: batch, num_classes=21)
    batch = [{"idx": 7, "seg_map_path": "ann_dir/7.png", "target": np.full((4, 4), 255, np.int64)}]
    with pytest.raises(TargetError) as info:
        collate(batch)
    assert "sample 0 of the batch, dataset index 7, file ann_dir/7.png" in str(info.value)


def test_enable_without_torch_says_what_to_install():
    # torch made unimportable in a fresh interpreter: `import labelguard` works, enable() says
    # what to install instead of a bare ModuleNotFoundError.
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import labelguard\n"
        "try:\n"
        "    labelguard.enable()\n"
        "except ImportError as e:\n"
        "    print(type(e).__name__, e.name, str(e))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ImportError torch labelguard.enable() guards PyTorch's calls"), out
    assert "pip install torch" in out, out


def test_an_rgb_colour_mask_gets_the_scans_answer_in_the_guards(tmp_path):
    # A Cityscapes colour mask (road and sidewalk colours) where class ids belong: the scan says
    # LG606 for the array; GuardedDataset and guard_collate say the same, not LG101 "widen the
    # head to 245".
    mask = np.zeros((8, 8, 3), np.uint8)
    mask[:4] = (128, 64, 128)
    mask[4:] = (244, 35, 232)
    np.save(tmp_path / "colour.npy", mask)
    scan = subprocess.run(
        [sys.executable, "-m", "labelguard", "scan", str(tmp_path / "colour.npy"), "--num-classes", "19",
         "--no-config", "--format", "json"],
        capture_output=True, text=True,
    )
    import json

    (scanned,) = json.loads(scan.stdout)["files"][0]["findings"]
    assert scanned["code"] == "LG606"
    want = scanned["message"].replace("colour has shape", "target has shape")
    with pytest.raises(TargetError) as guarded:
        labelguard.GuardedDataset([(None, mask)], num_classes=19, ignore_index=255)[0]
    with pytest.raises(TargetError) as collated:
        labelguard.guard_collate(lambda b: b, num_classes=19)([{"target": mask}])
    for err in (guarded.value, collated.value):
        assert err.code == "LG606", str(err)
        assert err.findings[0].message == want
        assert err.findings[0].fix == scanned["fix"]
