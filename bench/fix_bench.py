#!/usr/bin/env python3
"""The `labelguard fix` benchmark (issue 10): labelIds -> trainIds on Cityscapes-size masks.

    python bench/fix_bench.py                  # 200 masks of 2048x1024, all cores, 5 runs
    python bench/fix_bench.py --files 100 --runs 3 --jobs 2

It generates labelIds masks (the scan benchmark's polygon scenes, each trainId written as its
first labelId, void as 0) saved as Pillow's default 'L' PNGs, then times with farm-bench, pair
by pair on the same cores:

  A  labelguard fix DATA --out OUT --plan every-mask cityscapes_train_ids --jobs J
     (the whole command: walk, read, remap, encode, atomic write, journal, manifest, re-scan)
  B  bench/fix_pillow.py: Pillow open + numpy LUT + Pillow save on multiprocessing.Pool(J),
     at Pillow's default compress_level=6 and at compress_level=1.

Each run writes a fresh output directory. Before timing, both outputs are decoded and compared
pixel for pixel. Needs the release binary: cargo build --release -p labelguard-cli.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fix_pillow import LABEL_TO_TRAIN  # noqa: E402
from scan_bench import make_mask  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
# trainId -> its first labelId; void (255) -> 0 (unlabeled).
TRAIN_TO_LABEL = np.zeros(256, np.uint8)
for label, train in reversed(list(enumerate(LABEL_TO_TRAIN))):
    if train != 255:
        TRAIN_TO_LABEL[train] = label


def _write(args):
    seed, d = args
    m = make_mask(seed)
    m[m >= 19] = 255  # the scan benchmark draws 20 classes; Cityscapes has 19
    Image.fromarray(TRAIN_TO_LABEL[m], "L").save(f"{d}/m_{seed:05d}_gtFine_labelIds.png")


def generate(n: int, jobs: int) -> Path:
    d = OUT / f"fix_labelids_{n}"
    marker = OUT / f"fix_{n}.done"
    if not marker.exists():
        d.mkdir(parents=True, exist_ok=True)
        with Pool(jobs) as pool:
            pool.map(_write, [(i, str(d)) for i in range(n)], chunksize=4)
        marker.write_text("ok\n")
    return d


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--bin", default=str(REPO / os.environ.get("CARGO_TARGET_DIR", "target") / "release" / "labelguard"))
    a = ap.parse_args()
    data = generate(a.files, a.jobs)
    plan = OUT / "fix_plan.toml"
    plan.write_text('[[repair]]\nkind = "cityscapes_train_ids"\n')
    lg_out, py_out = OUT / "fix_lg_out", OUT / "fix_py_out"
    lg = f"rm -rf {lg_out} {lg_out}.fix-manifest.json && exec {a.bin} fix {data} --out {lg_out} --plan {plan} --preset cityscapes --no-config -q -j {a.jobs}"
    py = lambda level: f"rm -rf {py_out} && exec {sys.executable} {REPO / 'bench' / 'fix_pillow.py'} {data} {py_out} {a.jobs} {level}"
    # Correctness first: the same ids from both.
    subprocess.run(["sh", "-c", lg], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["sh", "-c", py(6)], check=True)
    for p in sorted(data.iterdir())[:20]:
        x = np.asarray(Image.open(lg_out / p.name))
        y = np.asarray(Image.open(py_out / p.name))
        assert (x == y).all(), p
    size = lambda d: sum(f.stat().st_size for f in Path(d).iterdir())
    print(f"outputs agree; bytes written: labelguard {size(lg_out)}, Pillow level 6 {size(py_out)}", flush=True)
    subprocess.run(["sh", "-c", py(1)], check=True)
    print(f"bytes written: Pillow level 1 {size(py_out)}", flush=True)
    for level in (6, 1):
        print(f"\n== labelguard fix (A) vs Pillow + numpy, compress_level={level} (B): {a.files} masks, {a.jobs} jobs", flush=True)
        subprocess.run(["farm-bench", "-n", str(a.runs), "--timeout", "1800", "--vs", f"sh -c '{py(level)}'", "--", "sh", "-c", lg], check=True)
    shutil.rmtree(lg_out, ignore_errors=True)
    shutil.rmtree(py_out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
