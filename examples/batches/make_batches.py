"""Writes the example batches for `labelguard check`: small, deterministic, each with one
classic data-contract bug planted. Run from the repo root: python examples/batches/make_batches.py"""

import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(0)


def logits(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def blocks(h, w, ids):
    """A mask of vertical stripes, one class id each, like coarse segmentation regions."""
    mask = np.zeros((h, w), dtype=np.int64)
    for i, v in enumerate(ids):
        mask[:, i * w // len(ids) : (i + 1) * w // len(ids)] = v
    return mask


# Cityscapes labelIds (0..33) fed to a 19-class model: road=7, sidewalk=8, building=11, sky=23, car=26.
city = np.stack([blocks(16, 32, [7, 8, 11, 23, 26]), blocks(16, 32, [7, 11, 21, 24, 26])])
np.savez_compressed(HERE / "cityscapes_labelids.npz", input=logits(2, 19, 16, 32), target=city)

# Pascal VOC masks with 255 on object borders, and no ignore_index.
voc = np.stack([blocks(16, 16, [0, 15, 0]), blocks(16, 16, [0, 12, 12])])
voc[:, :, 5] = 255
voc[:, :, 10] = 255
np.savez_compressed(HERE / "voc_void_borders.npz", input=logits(2, 21, 16, 16), target=voc)

# Token ids beyond a BERT vocabulary (tokens added without resize_token_embeddings) and -100 padding.
ids = np.array([[101, 7592, 30522, 2088, 102, -100], [101, 30523, 2003, 102, -100, -100]], dtype=np.int64)
np.savez_compressed(HERE / "token_ids.npz", input=ids)

# Masks read as single-channel images: [N, H, W, 1].
np.savez_compressed(HERE / "mask_channel_dim.npz", input=logits(2, 3, 8, 8), target=blocks(8, 8, [0, 1, 2])[None, :, :, None].repeat(2, 0))

# A clean batch: the same Cityscapes-style call done right (trainIds with 255 void, ignore_index=255).
train_ids = np.stack([blocks(16, 32, [0, 1, 2, 10, 13]), blocks(16, 32, [0, 2, 255, 11, 13])])
np.savez_compressed(HERE / "cityscapes_trainids.npz", input=logits(2, 19, 16, 32), target=train_ids)
