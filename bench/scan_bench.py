#!/usr/bin/env python3
"""The `labelguard scan` benchmark: one command, every number of docs/benchmarks-history.md's scan section.

    python bench/scan_bench.py            # 500 masks, all cores, 5 runs each
    python bench/scan_bench.py --files 100 --runs 3 --jobs 2

It generates Cityscapes-size masks (2048x1024, about 20 classes in large polygonal regions plus
void 255) and saves them the way real datasets are saved: Pillow's default 8-bit grey ('L')
PNG, whose rows use adaptive filters including Paeth. A second set holds the same masks as
palette ('P') PNGs, which Pillow writes unfiltered; it is reported separately. Then, in the same
run and on the same cores, it measures:

  (a) Python: PIL + numpy in a multiprocessing.Pool(jobs), doing the scan's work per file:
      decode, range check ((a >= C) & (a != 255)).any(), and a 256-bin np.bincount histogram;
  (b) the PNG decoder alone: the `png` crate (0.18, Transformations::IDENTITY) decoding every
      file into a reused buffer on `jobs` rayon threads, nothing else (examples/png_decode.rs);
  (b') the same driver with labelguard's fast path for 8-bit masks (read/fastpng.rs) instead,
      to show how much of the scan's speed is decoding;
  (c) `labelguard scan DIR --num-classes 20 --ignore-index 255 --jobs J --format json`, the whole
      process: discovery, decode, histogram, checks, report.

Each is run --runs times after one warm-up round (page cache hot, as on a machine that scans a
dataset it just wrote), interleaved: every round runs each contender once, so that the noise of a
shared machine hits all alike. The medians are reported with the ratios c/a and c/b, and the peak RSS of (c) on
a fifth of the files and on all of them, which shows that memory does not grow with the dataset.

Needs numpy and Pillow, and the release binaries:
    cargo build --release -p labelguard-cli -p labelguard-scan --example png_decode
(`--target-dir` follows CARGO_TARGET_DIR, default ./target). Results go to stdout and to
bench/out/scan_results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
W, H = 2048, 1024
CLASSES = 20
VOID = 255


def make_mask(seed: int) -> np.ndarray:
    """A Voronoi partition of the frame into ~40 polygonal regions over 20 classes (the straight
    edges of polygon annotations), a void ego-vehicle band and a few void blobs."""
    rng = np.random.default_rng(seed)
    n = 40
    sx = rng.uniform(0, W, n).astype(np.float32)
    sy = rng.uniform(0, H, n).astype(np.float32)
    cls = rng.integers(0, CLASSES, n).astype(np.uint8)
    yy = np.arange(H, dtype=np.float32)[:, None]
    xx = np.arange(W, dtype=np.float32)[None, :]
    best = np.full((H, W), np.inf, np.float32)
    out = np.zeros((H, W), np.uint8)
    for i in range(n):
        d = (xx - sx[i]) ** 2 + (yy - sy[i]) ** 2
        closer = d < best
        best = np.where(closer, d, best)
        out[closer] = cls[i]
    out[H - 90 - int(rng.integers(0, 40)):, :] = VOID  # ego vehicle
    for _ in range(3):
        cx, cy, r = rng.integers(100, W - 100), rng.integers(100, H - 200), rng.integers(10, 60)
        out[(xx - cx) ** 2 + (yy - cy) ** 2 < r * r] = VOID
    return out


def _write(args: tuple[int, str, str]) -> None:
    seed, grey_dir, pal_dir = args
    m = make_mask(seed)
    Image.fromarray(m, "L").save(f"{grey_dir}/mask_{seed:05d}.png")
    p = Image.fromarray(m, "P")
    pal = np.random.default_rng(0).integers(0, 256, 768, dtype=np.uint8).tobytes()
    p.putpalette(pal)
    p.save(f"{pal_dir}/mask_{seed:05d}.png")


def generate(n: int, jobs: int) -> tuple[Path, Path]:
    grey = OUT / f"scan_grey_{n}"
    pal = OUT / f"scan_palette_{n}"
    marker = OUT / f"scan_{n}.done"
    if marker.exists():
        return grey, pal
    grey.mkdir(parents=True, exist_ok=True)
    pal.mkdir(parents=True, exist_ok=True)
    t = time.time()
    with Pool(jobs) as pool:
        pool.map(_write, [(i, str(grey), str(pal)) for i in range(n)], chunksize=4)
    marker.write_text("ok\n")
    print(f"generated {n} masks in {time.time() - t:.0f} s", file=sys.stderr)
    return grey, pal


# (a) --------------------------------------------------------------------------------------
def _py_one(path: str) -> np.ndarray:
    a = np.asarray(Image.open(path))
    bad = bool(((a >= CLASSES) & (a != VOID)).any())
    h = np.bincount(a.ravel(), minlength=256)
    if bad:
        h[0] += 0  # a real checker would record the file here
    return h


def python_scan(paths: list[str], pool: Pool) -> float:
    t = time.perf_counter()
    total = np.zeros(256, np.int64)
    for h in pool.imap_unordered(_py_one, paths, chunksize=8):
        total += h
    return time.perf_counter() - t


# helpers ----------------------------------------------------------------------------------
def run_timed(cmd: list[str]) -> tuple[float, int, str]:
    """Wall time, peak RSS (KiB) and stdout of a command."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{cmd} failed ({code}): {err.decode()}")
    return wall, usage.ru_maxrss, out.decode()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=500)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--target-dir", default=os.environ.get("CARGO_TARGET_DIR", str(REPO / "target")))
    args = ap.parse_args()
    target = Path(args.target_dir) / "release"
    labelguard = target / "labelguard"
    decoder = target / "examples" / "png_decode"
    for b in (labelguard, decoder):
        if not b.exists():
            raise SystemExit(f"{b} is missing: cargo build --release -p labelguard-cli -p labelguard-scan --example png_decode")
    OUT.mkdir(parents=True, exist_ok=True)
    grey, pal = generate(args.files, args.jobs)
    jobs = args.jobs
    results: dict = {"files": args.files, "jobs": jobs, "runs": args.runs, "size": f"{W}x{H}", "sets": {}}

    for name, d in (("grey (Pillow 'L', adaptive filters)", grey), ("palette (Pillow 'P', unfiltered)", pal)):
        paths = sorted(str(p) for p in d.glob("*.png"))
        n = len(paths)
        mb = sum(os.path.getsize(p) for p in paths) / 1e6
        report = OUT / "scan_bench_report.json"
        scan_cmd = [str(labelguard), "scan", str(d), "--num-classes", str(CLASSES), "--ignore-index", str(VOID),
                    "--jobs", str(jobs), "--format", "json", "--no-config", "-q", "-o", str(report)]
        rss: list[int] = []

        def dec(*extra: str) -> float:
            _, _, out = run_timed([str(decoder), str(d), str(jobs), *extra])
            return json.loads(out)["seconds"]

        def lg() -> float:
            wall, peak, _ = run_timed(scan_cmd)
            rss.append(peak)
            return wall

        # Interleaved rounds: each contender once per round, so that the noise of a shared
        # machine hits all of them alike. Round 0 is a warm-up and is not counted.
        times: dict[str, list[float]] = {"a": [], "b": [], "bf": [], "c": []}
        with Pool(jobs) as pool:
            for round_ in range(args.runs + 1):
                t = {"a": python_scan(paths, pool), "b": dec(), "bf": dec("fast"), "c": lg()}
                if round_ > 0:
                    for k, v in t.items():
                        times[k].append(v)
        a, b, bf, c = (statistics.median(times[k]) for k in ("a", "b", "bf", "c"))
        a_runs, b_runs, bf_runs, c_runs = times["a"], times["b"], times["bf"], times["c"]
        fifth = [str(labelguard), "scan", str(d), "--include", "mask_000[0-9][0-9].png", "--num-classes", str(CLASSES),
                 "--ignore-index", str(VOID), "--jobs", str(jobs), "--format", "json", "--no-config", "-q", "-o", str(report)]
        _, rss_small, _ = run_timed(fifth)
        summary = json.loads(report.read_text())["summary"] if report.exists() else {}
        row = {
            "files": n,
            "compressed_mb": round(mb, 1),
            "python_pil_numpy_pool_s": round(a, 4),
            "png_decode_only_s": round(b, 4),
            "labelguard_fast_decoder_only_s": round(bf, 4),
            "labelguard_scan_s": round(c, 4),
            "files_per_s": {"python": round(n / a, 1), "decoder": round(n / b, 1), "fast_decoder": round(n / bf, 1), "labelguard": round(n / c, 1)},
            "labelguard_vs_python": round(a / c, 2),
            "labelguard_vs_decoder": round(b / c, 3),
            "peak_rss_mib": {"labelguard_all_files": round(max(rss) / 1024, 1), "labelguard_100_files": round(rss_small / 1024, 1)},
            "runs_s": {"python": [round(x, 4) for x in a_runs], "decoder": [round(x, 4) for x in b_runs], "fast_decoder": [round(x, 4) for x in bf_runs], "labelguard": [round(x, 4) for x in c_runs]},
            "load_average": os.getloadavg()[0],
        }
        results["sets"][name] = row
        print(f"\n{name}: {n} files, {mb:.1f} MB, {jobs} cores, median of {args.runs}")
        print(f"  (a) PIL + numpy, Pool({jobs}):      {a:7.3f} s  {n / a:8.1f} files/s")
        print(f"  (b) png crate, decode only:       {b:7.3f} s  {n / b:8.1f} files/s")
        print(f"  (b') labelguard's fast PNG path:  {bf:7.3f} s  {n / bf:8.1f} files/s  (decode only)")
        print(f"  (c) labelguard scan (process):    {c:7.3f} s  {n / c:8.1f} files/s")
        print(f"  c vs a: {a / c:.2f}x faster;  c vs b: {100 * b / c:.1f}% of the decoder's throughput")
        print(f"  load average during the set: {os.getloadavg()[0]:.2f} (other processes share these cores)")
        print(f"  peak RSS of labelguard: {max(rss) / 1024:.1f} MiB ({n} files), {rss_small / 1024:.1f} MiB (100 files)")
        if summary:
            print(f"  (the 100-file scan found {summary.get('errors')} errors in {summary.get('files_scanned')} files)")
    (OUT / "scan_results.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
