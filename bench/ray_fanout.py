#!/usr/bin/env python3
"""A single-machine `labelguard scan` vs the same scan fanned out on a local Ray cluster
(`labelguard.fanout`, see docs/benchmarks-history.md, issue 26).

    python bench/ray_fanout.py [--files 2000] [--size 512] [--runs 5]

Writes FILES 8-bit grey PNG masks (SIZExSIZE, ids 0-18 in blocks, every 50th with id 30) into a
new folder in /tmp, starts a cluster of two `ray start` nodes of one CPU each on this machine
(tests/python/local_ray.py; its start-up is printed, not counted) with this process as driver,
then alternates, run after run:

  single    python -m labelguard scan DATA --num-classes 19 --format json --jobs CPUS
  ray N     labelguard.fanout.ray_scan: N tasks of one CPU, the parts returned to the driver, merged

and prints each run's wall seconds, the medians and the ratio ray/single, after checking that
every fanned-out report equals the single scan's. Both use the machine's CPUs (the cluster has
as many as the single scan's --jobs), so on one machine the ratio is the fan-out's overhead (task
scheduling, one `python -m labelguard` per shard, the JSON parts and the merge), not a speed-up.
"""

import argparse
import json
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from local_ray import local_cluster  # noqa: E402

from labelguard import fanout  # noqa: E402


def make_masks(root: pathlib.Path, files: int, size: int) -> None:
    root.mkdir()
    rng = np.random.default_rng(0)
    for i in range(files):
        blocks = rng.integers(0, 19, (size // 32, size // 32), dtype=np.uint8)
        mask = np.kron(blocks, np.ones((32, 32), np.uint8))
        if i % 50 == 0:
            mask[0, 0] = 30
        Image.fromarray(mask).save(root / f"mask_{i:05d}.png")


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cpus", type=int, default=2, help="the single scan's --jobs, and the cluster's CPUs (one a node)")
    ap.add_argument("--shards", type=int, nargs="+", default=[2, 8])
    args = ap.parse_args()

    tmp = pathlib.Path(tempfile.mkdtemp(prefix="lg-ray-bench-"))
    try:
        data = tmp / "DATA"
        make_masks(data, args.files, args.size)
        scan_args = ["--num-classes", "19", "--no-config"]
        single_cmd = [*fanout.labelguard_command(), "scan", str(data), *scan_args, "--format", "json", "--jobs", str(args.cpus)]

        def single():
            out = subprocess.run(single_cmd, capture_output=True, check=False)
            assert out.returncode == 1, out.stderr
            return json.loads(out.stdout)

        start = time.perf_counter()
        with local_cluster(nodes=args.cpus, cpus_per_node=1):
            print(f"{args.files} masks of {args.size}x{args.size}; cluster of {args.cpus} nodes x 1 CPU")
            print(f"cluster start (not counted): {time.perf_counter() - start:.1f} s", flush=True)
            times = {"single": []} | {f"ray {n}": [] for n in args.shards}
            for run in range(args.runs):
                secs, want = timed(single)
                times["single"].append(secs)
                for n in args.shards:
                    secs, got = timed(lambda: fanout.ray_scan([data], shards=n, scan_args=scan_args))
                    assert got == want, f"the fan-out's report with {n} shards differs from the single scan's"
                    times[f"ray {n}"].append(secs)
                print(f"run {run + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()), flush=True)
        base = statistics.median(times["single"])
        for k, v in times.items():
            med = statistics.median(v)
            print(f"median {k:>8}: {med:6.2f} s  ratio to single {med / base:.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
