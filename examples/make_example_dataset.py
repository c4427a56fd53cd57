#!/usr/bin/env python3
"""Builds examples/cityscapes-mini: a tiny dataset in the Cityscapes layout with one planted
defect of each kind `labelguard scan` finds, plus an `arrays/` folder and a `labels.csv` for the
array and table checks.

    python examples/make_example_dataset.py            # (re)writes examples/cityscapes-mini
    labelguard scan examples/cityscapes-mini --preset cityscapes   # all three datasets
    labelguard scan examples/cityscapes-mini/arrays --num-classes 19 --ignore-index 255
    labelguard scan examples/cityscapes-mini/labels.csv --num-classes 10 --label-column label

Needs numpy and Pillow. The output is deterministic (fixed seed, no timestamps), so rerunning
the script reproduces the committed files byte for byte with the same library versions.

Masks are 256x128 (Cityscapes is 2048x1024; the aspect ratio is kept), saved the way
cityscapesScripts saves them: single-channel 8-bit PNGs of trainIds 0..18 with 255 for void.
Every defect is listed in DEFECTS below, with the rule that reports it.
"""

from __future__ import annotations

import json
import shutil
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent / "cityscapes-mini"
W, H = 256, 128

# cityscapesScripts helpers/labels.py: trainId -> colour, and trainId -> labelId (first label).
PALETTE = [
    (128, 64, 128), (244, 35, 232), (70, 70, 70), (102, 102, 156), (190, 153, 153),
    (153, 153, 153), (250, 170, 30), (220, 220, 0), (107, 142, 35), (152, 251, 152),
    (70, 130, 180), (220, 20, 60), (255, 0, 0), (0, 0, 142), (0, 0, 70), (0, 60, 100),
    (0, 80, 100), (0, 0, 230), (119, 11, 32),
]
TRAIN_TO_LABEL = [7, 8, 11, 12, 13, 17, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 31, 32, 33]
VOID = 255

# What each planted file demonstrates (path relative to ROOT -> rule).
DEFECTS = {
    "gtFine/train/aachen/aachen_000002_000019_gtFine_labelIds.png": "LG105 labelIds instead of trainIds (no labelTrainIds file for this frame)",
    "gtFine/train/aachen/aachen_000003_000019_gtFine_labelTrainIds.png": "LG605 + LG101 resized with bilinear interpolation",
    "gtFine/train/aachen/aachen_000004_000019_gtFine_labelTrainIds.png": "LG606 RGB colour mask saved under the trainIds name",
    "gtFine/train/bochum/bochum_000001_000313_gtFine_labelTrainIds.png": "LG101 class id 40 from a custom remap",
    "gtFine/train/bochum/bochum_000002_000313_gtFine_labelTrainIds.png": "LG607 mask at half the image's size",
    "gtFine/train/bochum/bochum_000003_000313_gtFine_labelTrainIds.png": "LG608 mask without its image",
    "leftImg8bit/train/bochum/bochum_000004_000313_leftImg8bit.png": "LG608 image without its mask",
    "gtFine/train/bochum/bochum_000005_000313_gtFine_labelTrainIds.png": "LG602 truncated PNG",
    "gtFine/train/bochum/bochum_000006_000313_gtFine_labelTrainIds.png": "LG603 empty (0 bytes)",
    "gtFine/train/bochum/bochum_000007_000313_gtFine_labelTrainIds.png": "LG604 header claims 100000 x 100000 pixels",
    "gtFine/train/bochum/bochum_000008_000313_gtFine_labelTrainIds.png": "LG602 a Git LFS pointer, not the PNG",
    "gtFine/train/bochum/bochum_000009_000313_gtFine_labelTrainIds.png": "LG602 palette PNG without its PLTE chunk",
    "(dataset)": "LG609 class 16 (train) never occurs; LG610 bicycle (18) occurs only in train; LG611 bicycle (18) has 4 pixels",
    "class_weights.json": "LG301 20 weights for 19 classes; LG302 a NaN weight (checked via labelguard.toml)",
    "arrays/channel_dim.npy": "LG203 [N, H, W, 1]",
    "arrays/one_hot.npy": "LG202 one-hot [N, 19, H, W]",
    "arrays/float_ids.npy": "LG201 float32 ids",
    "arrays/to_tensor.npy": "LG201 ids divided by 255 (ToTensor on a mask)",
    "arrays/label_ids.npz": "LG105 labelIds in an .npz",
    "arrays/padded.safetensors": "LG107 -1 padding",
    "labels.csv": "LG101 label 10 with 10 classes; LG612 'cat' and an empty cell; LG201 '3.0'",
}


def scene(rng: np.random.Generator, variant: int, classes: tuple[int, ...] = ()) -> np.ndarray:
    """A street scene of large regions, as in Cityscapes: sky, buildings, vegetation, road,
    sidewalk, cars, people, poles and signs, with void (255) for the ego vehicle and borders."""
    m = np.full((H, W), 2, np.uint8)  # building
    horizon = 40 + variant * 3
    m[:horizon, :] = 10  # sky
    for x0 in range(0, W, 64):
        top = horizon - 10 - rng.integers(0, 20)
        m[max(top, 0):horizon, x0:x0 + 40] = 2
    m[horizon:horizon + 25, 180 + variant * 4:] = 8  # vegetation
    m[horizon + 25:, :] = 0  # road
    m[horizon + 25:horizon + 33, :] = 1  # sidewalk
    m[horizon + 20:horizon + 25, 0:60] = 9  # terrain
    for i in range(2 + variant % 2):
        x = 20 + i * 70 + variant * 5
        m[horizon + 30:horizon + 48, x:x + 34] = 13  # car
    m[horizon + 12:horizon + 34, 150 + variant:154 + variant] = 11  # person
    m[horizon - 20:horizon + 30, 120:122] = 5  # pole
    m[horizon - 24:horizon - 16, 116:126] = 7  # traffic sign
    m[horizon - 18:horizon - 12, 60:64] = 6  # traffic light
    m[horizon + 5:horizon + 25, 30:46] = 4  # fence
    m[horizon:horizon + 20, 100:112] = 3  # wall
    if variant % 3 == 0:
        m[horizon + 28:horizon + 44, 200:216] = 12  # rider
        m[horizon + 26:horizon + 48, 224:250] = 14  # truck
    if variant % 3 == 1:
        m[horizon + 24:horizon + 48, 90:118] = 15  # bus
    for c in classes:
        m[horizon + 36:horizon + 46, 236:250] = c
    m[H - 10:, :] = VOID  # ego vehicle
    m[:, :2] = VOID  # rectification border
    return m


def image_for(mask: np.ndarray) -> Image.Image:
    """A photo-like RGB image: each class in its colour with a vertical shading, void dark."""
    pal = np.array(PALETTE + [(0, 0, 0)] * (256 - len(PALETTE)), np.int16)
    rgb = pal[mask]
    shade = np.linspace(-18, 18, mask.shape[0], dtype=np.float32)[:, None, None]
    return Image.fromarray(np.clip(rgb + shade, 0, 255).astype(np.uint8), "RGB")


def save_mask(rel: str, mask: np.ndarray) -> None:
    p = ROOT / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(mask, "L").save(p)


def save_image(rel: str, img: Image.Image) -> None:
    p = ROOT / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    img.save(p)


def frame(split: str, city: str, stem: str, mask: np.ndarray, kind: str = "labelTrainIds", image: bool = True) -> None:
    save_mask(f"gtFine/{split}/{city}/{stem}_gtFine_{kind}.png", mask)
    if image:
        save_image(f"leftImg8bit/{split}/{city}/{stem}_leftImg8bit.png", image_for(np.where(mask == VOID, VOID, np.minimum(mask, 18)).astype(np.uint8)))


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_safetensors(path: Path, name: str, array: np.ndarray) -> None:
    dtype = {np.dtype("int64"): "I64", np.dtype("uint8"): "U8", np.dtype("float32"): "F32"}[array.dtype]
    data = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    header = json.dumps({name: {"dtype": dtype, "shape": list(array.shape), "data_offsets": [0, len(data)]}}).encode()
    header += b" " * (-len(header) % 8)
    path.write_bytes(struct.pack("<Q", len(header)) + header + data)


def main() -> int:
    if ROOT.exists():
        shutil.rmtree(ROOT)
    rng = np.random.default_rng(2024)

    # Clean frames. Bicycle (18) appears in 4 pixels only: extreme imbalance (LG611).
    for i in range(2):
        frame("train", "aachen", f"aachen_{i:06d}_000019", scene(rng, i))
    m = scene(rng, 5)
    m[70:72, 244:246] = 18
    frame("train", "bochum", "bochum_000000_000313", m)
    for i in (0, 2):
        frame("val", "frankfurt", f"frankfurt_{i:06d}_000294", scene(rng, 10 + i))
    # Train (16) never appears (LG609); bicycle (18) only in train (LG610).
    frame("val", "frankfurt", "frankfurt_000001_000294", scene(rng, 11, classes=(17,)))

    # LG105: only the labelIds file exists for this frame.
    m = scene(rng, 2)
    lut = np.full(256, 0, np.uint8)
    lut[:19] = TRAIN_TO_LABEL
    lut[VOID] = 1  # ego vehicle
    frame("train", "aachen", "aachen_000002_000019", lut[m], kind="labelIds")
    # The image still needs the trainIds view for its colours.
    save_image("leftImg8bit/train/aachen/aachen_000002_000019_leftImg8bit.png", image_for(m))

    # LG605 (+ LG101 for blends with void): made at twice the size, then downscaled bilinearly.
    big = np.kron(scene(rng, 3), np.ones((2, 2), np.uint8))
    big = np.array(Image.fromarray(big, "L").resize((W * 2 - 7, H * 2 - 3), Image.NEAREST))
    small = np.array(Image.fromarray(big, "L").resize((W, H), Image.BILINEAR))
    frame("train", "aachen", "aachen_000003_000019", small)

    # LG606: the colour rendering saved under the trainIds name, with anti-aliased edges.
    m = scene(rng, 4)
    colour = np.array(image_for(np.where(m == VOID, 0, m).astype(np.uint8)))
    colour[:] = np.array(PALETTE + [(0, 0, 0)] * (256 - len(PALETTE)), np.uint8)[m]
    colour[60:62, 100:140] = (90, 90, 90)  # blended edge colours, not in the palette
    save_image("gtFine/train/aachen/aachen_000004_000019_gtFine_labelTrainIds.png", Image.fromarray(colour, "RGB"))
    save_image("leftImg8bit/train/aachen/aachen_000004_000019_leftImg8bit.png", image_for(m))

    # LG101: an id a custom remap introduced.
    m = scene(rng, 6)
    m[50:58, 140:160] = 40
    frame("train", "bochum", "bochum_000001_000313", m)

    # LG607: the mask at half the image's size.
    m = scene(rng, 7)
    save_mask("gtFine/train/bochum/bochum_000002_000313_gtFine_labelTrainIds.png", m[::2, ::2])
    save_image("leftImg8bit/train/bochum/bochum_000002_000313_leftImg8bit.png", image_for(m))

    # LG608 both ways.
    frame("train", "bochum", "bochum_000003_000313", scene(rng, 8), image=False)
    save_image("leftImg8bit/train/bochum/bochum_000004_000313_leftImg8bit.png", image_for(scene(rng, 9)))

    # Broken files.
    d = ROOT / "gtFine/train/bochum"
    frame("train", "bochum", "bochum_000005_000313", scene(rng, 1))
    p = d / "bochum_000005_000313_gtFine_labelTrainIds.png"
    p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2])
    frame("train", "bochum", "bochum_000006_000313", scene(rng, 2))
    (d / "bochum_000006_000313_gtFine_labelTrainIds.png").write_bytes(b"")
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 0, 0, 0, 0)
    bomb = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + png_chunk(b"IEND", b"")
    frame("train", "bochum", "bochum_000007_000313", scene(rng, 3))
    (d / "bochum_000007_000313_gtFine_labelTrainIds.png").write_bytes(bomb)
    frame("train", "bochum", "bochum_000008_000313", scene(rng, 4))
    (d / "bochum_000008_000313_gtFine_labelTrainIds.png").write_bytes(
        b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
    )
    m = scene(rng, 5)
    rows = b"".join(b"\0" + m[y].tobytes() for y in range(H))
    no_plte = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 3, 0, 0, 0)) + png_chunk(b"IDAT", zlib.compress(rows, 9)) + png_chunk(b"IEND", b"")
    frame("train", "bochum", "bochum_000009_000313", m)
    (d / "bochum_000009_000313_gtFine_labelTrainIds.png").write_bytes(no_plte)

    # The class weights a training config would use: computed over 20 values (void included) and broken.
    weights = [1.0] * 19 + [0.0]
    weights[16] = float("nan")
    (ROOT / "class_weights.json").write_text(json.dumps(weights) + "\n")
    (ROOT / "labelguard.toml").write_text(
        "# Found by `labelguard scan examples/cityscapes-mini` (the nearest config above the scanned path).\n"
        "# Paths are relative to this file.\n"
        "class_weights = \"class_weights.json\"\n"
        "\n"
        "# labels.csv is a dataset of its own (image-level labels of 10 classes), scanned with these settings.\n"
        "[[datasets]]\n"
        "path = \"labels.csv\"\n"
        "num_classes = 10\n"
        "label_column = \"label\"\n"
    )

    # Arrays: the same labels as a training pipeline would save them, with one defect each.
    a = ROOT / "arrays"
    a.mkdir()
    batch = np.stack([scene(rng, 0)[::2, ::2], scene(rng, 1)[::2, ::2]])
    np.save(a / "clean_batch.npy", batch)
    np.save(a / "channel_dim.npy", batch[..., None])
    one_hot = (np.arange(19)[None, :, None, None] == np.where(batch == VOID, 0, batch)[:, None]).astype(np.uint8)
    np.save(a / "one_hot.npy", one_hot[:, :, ::2, ::2])
    np.save(a / "float_ids.npy", batch[0].astype(np.float32))
    np.save(a / "to_tensor.npy", (batch[0] / 255.0).astype(np.float32))
    np.savez_compressed(a / "label_ids.npz", mask=lut[batch[1]])
    padded = np.full((4, 16), -1, np.int64)
    padded[:, :10] = rng.integers(0, 19, (4, 10))
    write_safetensors(a / "padded.safetensors", "labels", padded)

    # A classification table for 10 classes.
    rows = ["path,label"] + [f"img_{i:03d}.jpg,{i % 10}" for i in range(40)]
    rows += ["img_040.jpg,10", "img_041.jpg,cat", "img_042.jpg,", "img_043.jpg,3.0"]
    (ROOT / "labels.csv").write_text("\n".join(rows) + "\n")

    (ROOT / "DEFECTS.md").write_text(
        "# Planted defects\n\nMade by `examples/make_example_dataset.py`; each line names the rule that reports it.\n\n"
        + "\n".join(f"- `{k}`: {v}" for k, v in DEFECTS.items())
        + "\n"
    )
    total = sum(f.stat().st_size for f in ROOT.rglob("*") if f.is_file())
    print(f"wrote {ROOT} ({total / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
