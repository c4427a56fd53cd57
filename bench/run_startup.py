"""What `labelguard run` adds to a Python program's start-up (issue 42): `labelguard run --
python -c "import torch"` (the guards switched on at the import, `labelguard` imported and
`enable()` run) against plain `python -c "import torch"`, in pairs run one after the other (plain,
then under run, then plain, ...), so that a machine whose speed drifts moves both sides of a
pair alike. The figure is the median of the pairs' differences (and of their ratios); the
target is at most 0.3 s. The same for `python -c "pass"` (no torch: the guards stay off and
labelguard is never imported) shows what `run` itself and its sitecustomize cost.

    python bench/run_startup.py --bin target/release/labelguard [--pairs 15] [--python PY]

The Python must import labelguard (`make python`); the check that it does is made first.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def timed(command: list, env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr.decode(errors='replace')}")
    return elapsed


def pairs(bin_: str, python: str, code: str, n: int, env: dict) -> tuple:
    plain, guarded = [], []
    for _ in range(n + 1):  # the first pair warms the caches and is not counted
        plain.append(timed([python, "-c", code], env))
        guarded.append(timed([bin_, "run", "--", python, "-c", code], env))
    plain, guarded = plain[1:], guarded[1:]
    diffs = [g - p for p, g in zip(plain, guarded)]
    ratios = [g / p for p, g in zip(plain, guarded)]
    return plain, guarded, diffs, ratios


def spread(xs: list) -> str:
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="the labelguard binary")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--pairs", type=int, default=15)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["NO_COLOR"] = "1"
    probe = subprocess.run([args.bin, "run", "--", args.python, "-c", "import torch"], capture_output=True, text=True, env=env)
    if "the guards are on" not in probe.stderr:
        sys.exit(f"the guards did not engage under `labelguard run` (install labelguard into {args.python}):\n{probe.stderr}")
    print(f"{args.pairs} pairs each; seconds: median (min-max)")
    print("| program | plain python, s | under `labelguard run`, s | difference, s | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for name, code in (("python -c 'import torch'", "import torch"), ("python -c 'pass'", "pass")):
        plain, guarded, diffs, ratios = pairs(args.bin, args.python, code, args.pairs, env)
        print(f"| `{name}` | {spread(plain)} | {spread(guarded)} | {spread(diffs)} | {statistics.median(ratios):.3f} |")


if __name__ == "__main__":
    main()
