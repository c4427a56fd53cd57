#!/usr/bin/env python3
"""`labelguard diagnose` on logs whose every line is looked at closely (see docs/benchmarks-history.md, issue 8).

    python3 bench/diagnose_matching.py --bin target/release/labelguard [--mb 256] [--runs 3]

Writes one log per kind of line into bench/out/ (once), MB MiB each, and times
`labelguard diagnose --format json` on each, reading from the page cache:

  plain       metrics lines without any anchor (the fast skim path: the yardstick)
  anchor      metrics lines that mention CUDA (an anchor) but match no signature
  header      `RuntimeError: CUDA error: device-side assert triggered`, repeated
  host        `IndexError: Target K is out of bounds.` with 1,000 values of K
  twokernels  assertion lines of two kernels, interleaved (the one-kernel fast path never applies)
  ranks       one kernel's assertion lines with `[rankN]:` prefixes of 8 ranks, interleaved

Prints the median seconds, the throughput and the ratio to `plain` for each.
"""
import argparse
import os
import statistics
import subprocess
import time

KINDS = {
    "plain": lambda i: f"2025-03-01 12:00:00 INFO epoch 1 iter {i} loss 0.3124 decode.acc_seg 91.2 time 0.412\n",
    "anchor": lambda i: f"2025-03-01 12:00:00 INFO epoch 1 iter {i} loss 0.3124 CUDA mem 9854MB lr 0.01\n",
    "header": lambda i: "RuntimeError: CUDA error: device-side assert triggered\n",
    "host": lambda i: f"IndexError: Target {i % 1000} is out of bounds.\n",
    "twokernels": lambda i: (
        f"../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [{i // 1024},0,0], thread: [{i % 512},0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
        if i % 2
        else f"../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: block: [{i // 1024},0,0], thread: [{i % 128},0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
    ),
    "ranks": lambda i: f"[rank{i % 8}]:../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [{i // 4096},0,0], thread: [{i % 512},0,0] Assertion `t >= 0 && t < n_classes` failed.\n",
}


def write_log(path, kind, size):
    with open(path, "w") as f:
        written, i, block = 0, 0, []
        while written < size:
            line = KINDS[kind](i)
            block.append(line)
            written += len(line)
            i += 1
            if len(block) == 100_000:
                f.write("".join(block))
                block = []
        f.write("".join(block))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard")
    ap.add_argument("--mb", type=int, default=256)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    os.makedirs("bench/out", exist_ok=True)
    med = {}
    for kind in KINDS:
        path = f"bench/out/diagnose-{kind}-{a.mb}MB.log"
        if not os.path.exists(path):
            write_log(path, kind, a.mb << 20)
        with open(path, "rb") as f:  # warm the page cache
            while f.read(1 << 24):
                pass
        times = []
        for _ in range(a.runs):
            start = time.perf_counter()
            subprocess.run([a.bin, "diagnose", "--format", "json", path], stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        med[kind] = statistics.median(times)
        size = os.path.getsize(path)
        print(
            f"{kind:11} {size / 2**20:5.0f} MiB  runs: {' '.join(f'{t:.2f}' for t in times)}"
            f"  median {med[kind]:.2f} s = {size / 1e6 / med[kind]:,.0f} MB/s"
            f"  x{med[kind] / med['plain']:.1f} plain",
            flush=True,
        )


if __name__ == "__main__":
    main()
