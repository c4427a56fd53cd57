"""Range-scan benchmark: labelguard's one-pass check against numpy's and torch's expressions,
and against this machine's single-core memory read bandwidth, all in the same run.

    make bench            (or: python bench/range_scan.py --bin target/release/labelguard-bench)

Tensors: int64 16x512x1024 (8 Mi elements, 64 MiB) and uint8 64x1024x2048 (128 MiB), class ids
0..18 with runs of 255 as the ignore value, C = 19: the valid case, where every element is read.
Each round runs every contender once, interleaved, so that machine noise hits all alike:
labelguard's scan (best of 3 passes over the memory-mapped .npy, page cache warm), the numpy
expression, the torch expression (torch's default threads), and the memory-bandwidth probe (a
vectorised sum over an anonymous buffer of the tensor's size, best of 3). Medians of the rounds
are reported; GB/s = bytes read / seconds.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import tempfile
import time

import numpy as np
import torch

C, IGNORE = 19, 255


def make(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, C, size=shape, dtype=np.int64)
    # Void pixels in runs, as in real masks.
    flat = t.reshape(-1)
    for start in rng.integers(0, flat.size - 4096, size=64):
        flat[start : start + 4096] = IGNORE
    return t.astype(dtype)


def numpy_check(t):
    return bool((((t < 0) | (t >= C)) & (t != IGNORE)).any())


def torch_check(t):
    return bool((((t < 0) | (t >= C)) & (t != IGNORE)).any())


def timed(fn, *a):
    start = time.perf_counter()
    fn(*a)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard-bench")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", default="bench/out/range_scan.json")
    args = ap.parse_args()
    results = {"machine": {"cpus": os.cpu_count(), "torch_threads": torch.get_num_threads(), "numpy": np.__version__, "torch": torch.__version__}}
    with tempfile.TemporaryDirectory() as d:
        results["cases"] = []
        for name, shape, dtype in [("int64 16x512x1024", (16, 512, 1024), np.int64), ("uint8 64x1024x2048", (64, 1024, 2048), np.uint8)]:
            t = make(shape, dtype, 1)
            path = pathlib.Path(d) / "t.npy"
            np.save(path, t)
            tt = torch.from_numpy(t)
            assert not numpy_check(t) and not torch_check(tt)
            times = {"labelguard": [], "numpy": [], "torch": [], "bandwidth": []}
            mib = str(max(1, t.nbytes >> 20))
            for _ in range(args.rounds):
                bw = json.loads(subprocess.check_output([args.bin, "bandwidth", mib, "3"]))
                times["bandwidth"].append(min(bw["seconds"]) * t.nbytes / bw["bytes"])
                r = json.loads(subprocess.check_output([args.bin, "range-scan", str(path), "0", str(C - 1), str(IGNORE), "3"]))
                assert r["bad"] == 0
                times["labelguard"].append(min(r["seconds"]))
                times["numpy"].append(timed(numpy_check, t))
                times["torch"].append(timed(torch_check, tt))
            nbytes = t.nbytes
            med = {k: statistics.median(v) for k, v in times.items()}
            gbs = {k: nbytes / v / 1e9 for k, v in med.items()}
            results["cases"].append({
                "tensor": name, "bytes": nbytes, "median_seconds": med, "gbs": gbs,
                "x_numpy": med["numpy"] / med["labelguard"], "x_torch": med["torch"] / med["labelguard"],
                "of_bandwidth": gbs["labelguard"] / gbs["bandwidth"],
            })
    # The NaN/inf scan of logits (LG508): bit patterns vs the float scan it replaced, 256 MiB each.
    results["non_finite"] = []
    for dtype in ("float16", "bfloat16", "float32"):
        bits, floats = [], []
        for _ in range(args.rounds):
            r = json.loads(subprocess.check_output([args.bin, "non-finite", dtype, "256", "3"]))
            bits.append(min(r["bits_seconds"]))
            floats.append(min(r["float_seconds"]))
        nbytes = r["bytes"]
        results["non_finite"].append({"dtype": dtype, "bytes": nbytes, "bits_gbs": nbytes / statistics.median(bits) / 1e9, "float_gbs": nbytes / statistics.median(floats) / 1e9})
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(json.dumps(results, indent=2))
    print(f"medians of {args.rounds} interleaved rounds; {results['machine']}")
    print("| tensor | labelguard GB/s | numpy GB/s | torch GB/s | read bandwidth GB/s | vs numpy | vs torch | of bandwidth |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in results["cases"]:
        g = c["gbs"]
        print(f"| {c['tensor']} | {g['labelguard']:.1f} | {g['numpy']:.2f} | {g['torch']:.2f} | {g['bandwidth']:.1f} | {c['x_numpy']:.1f}x | {c['x_torch']:.1f}x | {c['of_bandwidth']:.0%} |")

    print("\nNaN/inf scan of finite logits (256 MiB, one core):")
    print("| dtype | bit patterns GB/s | float scan (before) GB/s | speedup |")
    print("| --- | --- | --- | --- |")
    for c in results["non_finite"]:
        print(f"| {c['dtype']} | {c['bits_gbs']:.1f} | {c['float_gbs']:.1f} | {c['bits_gbs'] / c['float_gbs']:.1f}x |")


if __name__ == "__main__":
    main()
