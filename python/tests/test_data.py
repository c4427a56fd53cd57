"""guard_collate and GuardedDataset: the checks run in DataLoader workers and name the sample."""

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

import labelguard
from labelguard import TargetError


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
