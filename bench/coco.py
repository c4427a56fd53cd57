#!/usr/bin/env python3
"""The COCO JSON benchmark (issue 24): `labelguard scan` on a COCO-sized instances file vs
`json.load` plus a Python loop over the annotations doing the same checks, on the same core.

    python bench/coco.py                     # 118,287 images, 860,001 annotations (~450 MB), 3 rounds
    python bench/coco.py --annotations 100000 --images 14000 --rounds 2   # a quick one

It writes `instances_train2017.json` (deterministic: a seeded generator, COCO's key order
info, licenses, images, annotations, categories, COCO's 80 category ids 1..90, polygons of 22
points, about 520 bytes per annotation like the real file) into
bench/out/coco_<annotations>/annotations/ unless it is there, with a few planted problems of
every kind the checks count. Then, in alternating rounds, both run pinned to one core
(`taskset -c 0`, and `--jobs 1` for labelguard):

  A  labelguard scan DIR --num-classes 91 --format json --jobs 1
  B  python bench/coco.py --python-check FILE   (json.load, then one loop: image ids, category
     ids, bbox length/finiteness/area, box and polygon against the image with 1 px tolerance,
     RLE size, identical annotations, duplicate ids, crowd count)

Each run is a child process whose wall time and peak RSS (ru_maxrss from wait4) are recorded;
the medians and the ratio are printed, and the counts both found are compared (they must
agree). Needs the release binary: cargo build --release -p labelguard-cli.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
DROPPED = {12, 26, 29, 30, 45, 66, 68, 69, 71, 83}
CATEGORY_IDS = [i for i in range(1, 91) if i not in DROPPED]
TOL = 1.0


def generate(path: Path, n_images: int, n_annotations: int) -> None:
    """Writes the file in COCO's order, element by element (never the whole document in memory)."""
    rng = random.Random(24)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    sizes = [(640, 480), (640, 427), (480, 640), (500, 375), (612, 612)]
    dims = [sizes[rng.randrange(len(sizes))] for _ in range(n_images)]
    with open(tmp, "w") as f:
        f.write('{"info": {"description": "COCO-sized benchmark file", "version": "1.0", "year": 2017},\n')
        f.write(' "licenses": [{"url": "http://example.invalid/1", "id": 1, "name": "x"}],\n "images": [')
        for i, (w, h) in enumerate(dims):
            sep = "," if i else ""
            f.write(
                f'{sep}{{"license": 1, "file_name": "{i + 1:012d}.jpg", "coco_url": "http://example.invalid/{i + 1:012d}.jpg", '
                f'"height": {h}, "width": {w}, "date_captured": "2013-11-14 17:02:52", "id": {i + 1}}}'
            )
        f.write('],\n "annotations": [')
        for k in range(n_annotations):
            image_id = 1 + rng.randrange(n_images)
            w, h = dims[image_id - 1]
            bw, bh = rng.uniform(4, w / 2), rng.uniform(4, h / 2)
            x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
            cat = CATEGORY_IDS[rng.randrange(80)]
            crowd = 0
            pts = []
            for j in range(22):
                a = 2 * math.pi * j / 22
                pts.append(f"{x + bw / 2 + bw / 2 * math.cos(a):.2f}")
                pts.append(f"{y + bh / 2 + bh / 2 * math.sin(a):.2f}")
            seg = "[[" + ", ".join(pts) + "]]"
            bbox = [round(x, 2), round(y, 2), round(bw, 2), round(bh, 2)]
            # Planted problems, every 10,007th annotation onwards, one kind each.
            kind = k % 10007
            if kind == 1:
                cat = 91  # not among the categories
            elif kind == 2:
                bbox[2] = -bbox[2]  # no area
            elif kind == 3:
                bbox[0] = w + 50.0  # outside the image
            elif kind == 4:
                crowd = 1
                seg = f'{{"counts": "PPYo0Ob0", "size": [{h + 1}, {w}]}}'  # RLE size off by one
            elif kind == 5:
                image_id = n_images + 7  # no such image
            elif kind == 6 and k > 0:
                bbox = prev_bbox  # identical to the one before
                image_id, cat = prev_image, prev_cat
            prev_bbox, prev_image, prev_cat = bbox, image_id, cat
            sep = "," if k else ""
            f.write(
                f'{sep}{{"segmentation": {seg}, "area": {bw * bh:.2f}, "iscrowd": {crowd}, "image_id": {image_id}, '
                f'"bbox": [{bbox[0]}, {bbox[1]}, {bbox[2]}, {bbox[3]}], "category_id": {cat}, "id": {k + 1}}}'
            )
        f.write('],\n "categories": [')
        f.write(", ".join(f'{{"supercategory": "thing", "id": {c}, "name": "class{c}"}}' for c in CATEGORY_IDS))
        f.write("]}\n")
    tmp.replace(path)


def python_check(path: str) -> dict:
    """json.load, then the checks labelguard makes, in one loop over the annotations."""
    with open(path) as f:
        doc = json.load(f)
    images = {}
    dup_images = 0
    for im in doc["images"]:
        if im["id"] in images:
            dup_images += 1
        images[im["id"]] = (im["width"], im["height"])
    categories = {c["id"] for c in doc["categories"]}
    counts = dict(unknown_category=0, invalid_box=0, outside=0, unknown_image=0, rle_size=0,
                  duplicate=0, malformed=0, crowd=0)
    seen_ids = set()
    seen = set()
    for a in doc["annotations"]:
        if a["id"] in seen_ids:
            counts["malformed"] += 1
        seen_ids.add(a["id"])
        if a["category_id"] not in categories:
            counts["unknown_category"] += 1
        if a.get("iscrowd"):
            counts["crowd"] += 1
        b = a["bbox"]
        box = None
        if len(b) != 4:
            counts["malformed"] += 1
        elif not all(math.isfinite(v) for v in b) or b[2] <= 0 or b[3] <= 0:
            counts["invalid_box"] += 1
        else:
            box = (b[0], b[1], b[0] + b[2], b[1] + b[3])
        key = (a["image_id"], a["category_id"], tuple(b))
        if key in seen:
            counts["duplicate"] += 1
        seen.add(key)
        wh = images.get(a["image_id"])
        if wh is None:
            counts["unknown_image"] += 1
            continue
        w, h = wh
        seg = a.get("segmentation")
        out = box is not None and (box[0] < -TOL or box[1] < -TOL or box[2] > w + TOL or box[3] > h + TOL)
        if isinstance(seg, list) and not out:
            for poly in seg:
                xs, ys = poly[0::2], poly[1::2]
                if xs and (min(xs) < -TOL or min(ys) < -TOL or max(xs) > w + TOL or max(ys) > h + TOL):
                    out = True
        if out:
            counts["outside"] += 1
        if isinstance(seg, dict) and list(seg.get("size", [])) != [h, w]:
            counts["rle_size"] += 1
    counts["malformed"] += dup_images
    return counts


def labelguard_counts(report: dict) -> dict:
    by_code = {}
    for fr in report.get("files", []):
        for f in fr.get("findings", []):
            by_code[f["code"]] = by_code.get(f["code"], 0) + (f.get("count") or 1)
    return dict(
        unknown_category=by_code.get("LG702", 0),
        invalid_box=by_code.get("LG705", 0),
        outside=by_code.get("LG706", 0),
        unknown_image=by_code.get("LG707", 0),
        rle_size=by_code.get("LG708", 0),
        duplicate=by_code.get("LG711", 0),
        malformed=by_code.get("LG709", 0),
        crowd=report.get("objects", {}).get("crowd", 0),
    )


def run(cmd: list[str], stdout) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (MiB) and CPU seconds (user + system) of one child."""
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    t = time.perf_counter()
    p = subprocess.Popen(pin + cmd, stdout=stdout, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):  # 1: the scan found errors (the planted ones)
        raise SystemExit(f"{cmd[0]} exited {p.returncode}")
    return wall, ru.ru_maxrss // 1024, ru.ru_utime + ru.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", type=int, default=118_287)
    ap.add_argument("--annotations", type=int, default=860_001)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dir", type=Path, help="where the dataset is (generated if absent)")
    ap.add_argument("--bin", type=Path, default=REPO / "target" / "release" / "labelguard")
    ap.add_argument("--python-check", metavar="FILE", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.python_check:
        print(json.dumps(python_check(args.python_check)))
        return

    root = args.dir or OUT / f"coco_{args.annotations}"
    path = root / "annotations" / "instances_train2017.json"
    if not path.exists():
        t = time.perf_counter()
        generate(path, args.images, args.annotations)
        print(f"generated {path} in {time.perf_counter() - t:.0f} s")
    size = path.stat().st_size
    print(f"{path}: {size / 1e6:.0f} MB, {args.images} images, {args.annotations} annotations")
    if not args.bin.exists():
        raise SystemExit(f"{args.bin} missing: cargo build --release -p labelguard-cli")

    report_path = root.parent / f"coco_{args.annotations}_report.json"
    lg_cmd = [str(args.bin), "scan", str(root), "--num-classes", "91", "--format", "json",
              "--jobs", "1", "-o", str(report_path)]
    py_cmd = [sys.executable, str(Path(__file__).resolve()), "--python-check", str(path)]
    lg, py = [], []
    py_out = root.parent / f"coco_{args.annotations}_python.json"
    for r in range(args.rounds):
        lg.append(run(lg_cmd, subprocess.DEVNULL))
        with open(py_out, "w") as out:
            py.append(run(py_cmd, out))
        print(f"round {r + 1}: labelguard {lg[-1][0]:.2f} s ({lg[-1][2]:.2f} s CPU), {lg[-1][1]} MiB;"
              f" python {py[-1][0]:.2f} s ({py[-1][2]:.2f} s CPU), {py[-1][1]} MiB", flush=True)

    mine = labelguard_counts(json.loads(report_path.read_text()))
    theirs = json.loads(py_out.read_text())
    print(f"labelguard found: {mine}")
    print(f"python found:     {theirs}")
    if mine != theirs:
        raise SystemExit("the two disagree")
    lg_t = statistics.median(t for t, _, _ in lg)
    py_t = statistics.median(t for t, _, _ in py)
    lg_c = statistics.median(c for _, _, c in lg)
    py_c = statistics.median(c for _, _, c in py)
    print(f"median wall, one core: labelguard {lg_t:.2f} s ({size / 1e6 / lg_t:.0f} MB/s),"
          f" json.load + loop {py_t:.2f} s; ratio {py_t / lg_t:.1f}x")
    print(f"median CPU (user + system): labelguard {lg_c:.2f} s, json.load + loop {py_c:.2f} s;"
          f" ratio {py_c / lg_c:.1f}x")
    print(f"peak RSS: labelguard {max(m for _, m, _ in lg)} MiB, python {max(m for _, m, _ in py)} MiB,"
          f" file {size / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
