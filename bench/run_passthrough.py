#!/usr/bin/env python3
"""Throughput of `labelguard run`'s pass-through against a plain pipe (see docs/benchmarks-history.md, issue 8).

    python3 bench/run_passthrough.py --bin target/release/labelguard [--gib 1] [--runs 7]

A child writes GIB GiB of log lines to stdout as fast as it can (`yes LINE | head -c N`); this
script reads them through a pipe in 1 MiB reads and throws them away. Three ways, in turn, run
after run (so that drift of a shared machine hits all alike):

  pipe      sh -c 'GEN'                       the child's own pipe, nothing between
  cat       sh -c 'GEN | cat'                 one more pass-through stage: what labelguard is
  run       labelguard run --no-guard -- sh -c 'GEN'   (the output also goes to the diagnoser)

Prints every run's seconds, the medians, throughputs, the ratios run/cat and run/pipe, and the
peak resident memory of labelguard (wait4's ru_maxrss). A second mode, `--dense`, makes every
line a device-side assertion line (every line matched by the diagnoser).
"""
import argparse
import os
import statistics
import subprocess
import time

LINE = "2025-03-01 12:00:00 INFO epoch 1 iter 100/2975 loss 0.3124 lr 0.01 time 0.412"
DENSE = (
    "../aten/src/ATen/native/cuda/NLLLoss2d.cu:104: nll_loss2d_forward_kernel: block: [0,0,0], "
    "thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed."
)


def timed(argv):
    """Seconds to read all of argv's stdout, its byte count, and its peak RSS in KiB."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = 0
    while True:
        b = p.stdout.read1(1 << 20)
        if not b:
            break
        n += len(b)
    _, _, usage = os.wait4(p.pid, 0)
    return time.perf_counter() - start, n, usage.ru_maxrss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard")
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--dense", action="store_true")
    a = ap.parse_args()
    size = int(a.gib * (1 << 30))
    gen = f"yes '{DENSE if a.dense else LINE}' | head -c {size}"
    ways = {
        "pipe": ["sh", "-c", gen],
        "cat": ["sh", "-c", gen + " | cat"],
        "run": [a.bin, "run", "--no-guard", "--", "sh", "-c", gen],
    }
    times = {k: [] for k in ways}
    peak = 0
    for i in range(a.runs + 1):
        for k, argv in ways.items():
            t, n, rss = timed(argv)
            assert n == size, f"{k}: {n} bytes, expected {size}"
            if i > 0:  # the first round warms up
                times[k].append(t)
                if k == "run":
                    peak = max(peak, rss)
    med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in times.items():
        print(
            f"{k:5} runs: {' '.join(f'{t:.2f}' for t in v)}  median {med[k]:.3f} s"
            f" = {size / 1e6 / med[k]:,.0f} MB/s"
        )
    print(f"run/cat {med['run'] / med['cat']:.3f}   run/pipe {med['run'] / med['pipe']:.3f}")
    print(f"labelguard run peak RSS {peak / 1024:.1f} MiB  ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
