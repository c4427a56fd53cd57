#!/usr/bin/env python3
"""Does `labelguard run` diagnose a traceback written in tiny pieces on a busy machine (issue 20)?

    python3 bench/run_tiny_writes.py --bin target/release/labelguard [--bin OTHER] [--runs 40] [--busy 6] [--pause S]

The child (tests/fixtures/run/tiny_writes.py) writes a real 847-byte log of an asynchronously
reported nll_loss assert (tests/fixtures/logs/aten_1.10_nll_async_callso.log) to stderr in 4-byte
unbuffered writes and exits 1, while BUSY processes spin on the cores. A run counts as diagnosed
when the report names the assert (LG101), that it was reported asynchronously (LG902) and the
user's frame from the traceback at the end of the log. With several --bin, the binaries take
turns run after run, so the load hits all alike. Prints, per binary, how many runs were diagnosed
whole and how many lost something, with the bytes labelguard said it skipped.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LOG = os.path.join(REPO, "tests/fixtures/logs/aten_1.10_nll_async_callso.log")
CHILD = os.path.join(REPO, "tests/fixtures/run/tiny_writes.py")
WHOLE = ("error[LG101]", "warning[LG902]", "your code: /home/kim/cifar/train.py:96")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", default=[])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--busy", type=int, default=6)
    ap.add_argument("--piece", type=int, default=4)
    ap.add_argument("--pause", type=float, default=0.0, help="seconds between the child's writes")
    a = ap.parse_args()
    bins = a.bin or [os.path.join(REPO, "target/release/labelguard")]
    busy = [
        subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(a.busy)
    ]
    counts = {b: [0, 0] for b in bins}
    skipped = {b: [] for b in bins}
    try:
        for _ in range(a.runs):
            for b in bins:
                p = subprocess.run(
                    [b, "run", "--no-guard", "--", sys.executable, CHILD, LOG, str(a.piece), str(a.pause)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    env={**os.environ, "NO_COLOR": "1"},
                    text=True,
                )
                whole = p.returncode == 1 and all(w in p.stderr for w in WHOLE)
                counts[b][0 if whole else 1] += 1
                for line in p.stderr.splitlines():
                    if "faster than they could be diagnosed" in line:
                        skipped[b].append(int(line.split()[2]))
    finally:
        for p in busy:
            p.kill()
            p.wait()
    print(
        f"{a.runs} runs per binary, {a.busy} busy processes, {a.piece}-byte writes"
        f" {a.pause} s apart, {os.cpu_count()} cores"
    )
    for b in bins:
        ok, lost = counts[b]
        print(f"{b}: diagnosed whole {ok}/{a.runs}, lost {lost}; runs with skipped bytes {len(skipped[b])} {skipped[b][:10]}")


if __name__ == "__main__":
    main()
