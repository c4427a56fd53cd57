#!/usr/bin/env python3
"""The baseline of the `labelguard fix` benchmark: the one-off script users write.

    python bench/fix_pillow.py SRC DST JOBS COMPRESS_LEVEL

Every PNG under SRC is opened with Pillow, its ids mapped through a numpy lookup table
(Cityscapes labelIds -> trainIds) and saved under the same name in DST, on a
multiprocessing.Pool(JOBS). Pillow's default compress_level is 6.
"""

import os
import sys
from multiprocessing import Pool

import numpy as np
from PIL import Image

# labelId -> trainId, cityscapesScripts' labels.py (the same table as labelguard's preset).
LABEL_TO_TRAIN = [255, 255, 255, 255, 255, 255, 255, 0, 1, 255, 255, 2, 3, 4, 255, 255, 255, 5, 255,
                  6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 255, 255, 16, 17, 18]
LUT = np.arange(256, dtype=np.uint8)
LUT[: len(LABEL_TO_TRAIN)] = LABEL_TO_TRAIN


def one(args):
    src, dst, level = args
    a = np.asarray(Image.open(src))
    Image.fromarray(LUT[a]).save(dst, compress_level=level)


def main():
    src, dst, jobs, level = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    work = []
    for root, _, files in os.walk(src):
        out = os.path.join(dst, os.path.relpath(root, src))
        os.makedirs(out, exist_ok=True)
        work += [(os.path.join(root, f), os.path.join(out, f), level) for f in files if f.endswith(".png")]
    with Pool(jobs) as pool:
        for _ in pool.imap_unordered(one, work, chunksize=4):
            pass


if __name__ == "__main__":
    main()
