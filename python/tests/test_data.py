"""guard_collate and GuardedDataset: the checks run in DataLoader workers and name the sample."""

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

import labelguard
from labelguard import TargetError


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


class Masks(Dataset):
    """Image/mask pairs; sample 5 holds a void 255, sample 6 a labelId 26."""

    files = [f"masks/{i:03d}.png" for i in range(8)]

    def __len__(self):
        return 8

    def __getitem__(self, i):
        mask = torch.full((4, 4), i % 19, dtype=torch.long)
        if i == 5:
            mask[1, 2] = 255
        if i == 6:
            mask[0, 0] = 26
        return torch.zeros(3, 4, 4), mask


def test_guard_collate_in_two_workers_names_the_sample():
    loader = DataLoader(Masks(), batch_size=4, num_workers=2, collate_fn=labelguard.guard_collate(num_classes=19))
    with pytest.raises(TargetError) as info:
        for _ in loader:
            pass
    text = str(info.value)
    assert "LG103" in text and "sample 1 of the batch" in text


def test_guard_collate_accepts_valid_batches_and_ignore_index():
    loader = DataLoader(Masks(), batch_size=4, num_workers=2, collate_fn=labelguard.guard_collate(num_classes=27, ignore_index=255))
    batches = list(loader)
    assert len(batches) == 2 and batches[0][1].shape == (4, 4, 4)


def test_guarded_dataset_names_index_and_file():
    ds = labelguard.GuardedDataset(Masks(), num_classes=19, ignore_index=255)
    assert len(ds) == 8 and ds.files[0] == "masks/000.png"
    with pytest.raises(TargetError) as info:
        for _ in DataLoader(ds, batch_size=2, num_workers=2):
            pass
    text = str(info.value)
    assert "dataset index 6" in text and "masks/006.png" in text and "LG105" in text


def test_token_ids_contract_on_dicts():
    collate = labelguard.guard_collate(num_embeddings=100)
    ok = [{"input_ids": torch.tensor([1, 2, 99]), "index": 0}]
    assert collate(ok)["input_ids"].shape == (1, 3)
    with pytest.raises(TargetError, match="dataset index 7.*|LG401") as info:
        collate([{"input_ids": torch.tensor([1, 100]), "index": 7, "path": "a.txt"}])
    assert "dataset index 7" in str(info.value) and "a.txt" in str(info.value)


def _scanned(tmp_path, array):
    """The findings `labelguard scan` reports for `array` saved as target.npy (so that the scan
    names it `target`, as the guards do)."""
    import json
    import subprocess
    import sys

    import numpy as np

    np.save(tmp_path / "target.npy", array)
    scan = subprocess.run(
        [sys.executable, "-m", "labelguard", "scan", str(tmp_path / "target.npy"), "--num-classes", "19",
         "--no-config", "--format", "json"],
        capture_output=True, text=True,
    )
    return json.loads(scan.stdout)["files"][0]["findings"]


def _collated(target):
    with pytest.raises(TargetError) as info:
        labelguard.guard_collate(lambda b: b, num_classes=19)([{"target": target}])
    return info.value.findings


def test_float_ids_get_the_scans_words_in_guard_collate(tmp_path):
    # One label-target contract: a float .npy in the scan, the same array in guard_collate and
    # a float tensor in guard_collate say the same thing; only the fix follows the library.
    import numpy as np

    ids = np.arange(64, dtype=np.float32).reshape(8, 8) % 19
    (scanned,) = _scanned(tmp_path, ids)
    assert scanned["code"] == "LG201"
    assert scanned["message"] == "target is float32: class-index targets must be integers (expected target dtype to be Long or Byte)"
    assert "target.astype(np.int64)" in scanned["fix"]
    (array,) = _collated(ids)
    assert (array.code, array.message, array.fix, array.hint) == ("LG201", scanned["message"], scanned["fix"], scanned["hint"])
    (tensor,) = _collated(torch.from_numpy(ids))
    assert tensor.code == "LG201" and tensor.message == scanned["message"].replace("float32", "torch.float32")
    assert tensor.fix == "cast the class ids: target.long()" and tensor.hint == scanned["hint"]


def test_guard_collate_catches_a_channel_dimension_as_the_scan_does(tmp_path):
    # A mask read as a single-channel image keeps its channel: [H, W, 1]. The scan says LG203;
    # guard_collate, on the array or the tensor, says the same (it only checked values before).
    import numpy as np

    mask = np.full((8, 8, 1), 3, np.int64)
    (scanned,) = _scanned(tmp_path, mask)
    assert scanned["code"] == "LG203" and scanned["fix"] == "target.squeeze(-1)"
    for target in (mask, torch.from_numpy(mask)):
        (found,) = _collated(target)
        assert (found.code, found.message, found.fix) == ("LG203", scanned["message"], scanned["fix"])


def test_guard_collate_checks_the_ids_left_without_the_channel():
    # The ids behind the size-1 dimension are still checked: 40 of 19 classes is LG101 too.
    mask = torch.full((8, 8, 1), 3, dtype=torch.long)
    mask[2, 5, 0] = 40
    codes = [f.code for f in _collated(mask)]
    assert codes == ["LG203", "LG101"], codes


def test_guard_collate_takes_a_class_id_per_sample_and_rejects_one_hot_masks():
    # A 0-d label is an image classifier's sample (the scan rejects a 0-d array file, not the
    # guards); one-hot masks [H, W, C] are LG202, as in the scan.
    collate = labelguard.guard_collate(num_classes=19)
    assert collate([(torch.zeros(3), torch.tensor(4)), (torch.zeros(3), torch.tensor(18))])[1].tolist() == [4, 18]
    one_hot = torch.nn.functional.one_hot(torch.zeros(8, 8, dtype=torch.long), 19)
    (found,) = _collated(one_hot)
    assert found.code == "LG202" and "target.argmax(2)" in found.fix


def test_bool_masks_get_one_rule_in_the_scan_and_the_guards(tmp_path):
    # A bool mask (a foreground test saved as is): LG205 with PyTorch's words in both, where the
    # scan used to say LG201 (a float rule).
    import numpy as np

    mask = np.zeros((8, 8), bool)
    mask[2:5] = True
    (scanned,) = _scanned(tmp_path, mask)
    assert scanned["code"] == "LG205"
    assert scanned["message"] == "target is bool: expected target dtype to be Long or Byte, but got Bool"
    assert scanned["fix"] == "store integer ids: target.astype(np.int64)"
    (array,) = _collated(mask)
    assert (array.code, array.message, array.fix) == ("LG205", scanned["message"], scanned["fix"])
    (tensor,) = _collated(torch.from_numpy(mask))
    assert tensor.code == "LG205" and tensor.fix == "cast once where the tensor is made: target.long()"
