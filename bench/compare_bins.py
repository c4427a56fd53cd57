#!/usr/bin/env python3
"""Two labelguard binaries side by side on one command (issue 39: discovery and reading as fast
after a refactor as before, and the same report).

    python3 bench/compare_bins.py --base BASE_BIN --bin NEW_BIN [--runs 5] -- scan DIR ARGS...

Runs `BIN ARGS... -o OUT` with each binary in turn, alternating base and new run after run so
that a change in the machine's load falls on both, after one untimed warm-up run each (the page
cache then holds the tree). Prints each run's wall seconds, the medians and the ratio
new / base, and checks that both binaries wrote the same report, byte for byte (exit 1 if not).
"""
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(binary, args, out):
    t = time.perf_counter()
    p = subprocess.run([binary, *args, "-o", out], capture_output=True)
    wall = time.perf_counter() - t
    if p.returncode not in (0, 1):  # 1: the scan found something
        raise SystemExit(f"{binary} {' '.join(args)} failed ({p.returncode}): {p.stderr[-2000:]!r}")
    return wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the binary before the change")
    ap.add_argument("--bin", required=True, help="the binary after the change")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("args", nargs=argparse.REMAINDER, help="-- then the labelguard arguments")
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    tmp = tempfile.mkdtemp()
    outs = {"base": os.path.join(tmp, "base.out"), "new": os.path.join(tmp, "new.out")}
    bins = {"base": a.base, "new": a.bin}
    for side in ("base", "new"):
        run(bins[side], args, outs[side])  # warm-up
    times = {"base": [], "new": []}
    for i in range(a.runs):
        for side in ("base", "new") if i % 2 == 0 else ("new", "base"):
            times[side].append(run(bins[side], args, outs[side]))
        print(f"run {i + 1}: base {times['base'][-1]:.3f} s, new {times['new'][-1]:.3f} s", flush=True)
    same = filecmp.cmp(outs["base"], outs["new"], shallow=False)
    mb, mn = statistics.median(times["base"]), statistics.median(times["new"])
    print(f"command: labelguard {' '.join(args)}")
    print(f"medians over {a.runs} runs: base {mb:.3f} s, new {mn:.3f} s, new / base {mn / mb:.3f}")
    print(f"load average after the runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("reports byte-identical" if same else "MISMATCH: the reports differ")
    for p in outs.values():
        os.unlink(p)
    os.rmdir(tmp)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
