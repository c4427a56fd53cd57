"""What `labelguard run` adds to a Python program's start-up (issue 42): `labelguard run --
python -c "import torch"` (the guards switched on at the import, `labelguard` imported and
`enable()` run) against plain `python -c "import torch"`, in pairs run one after the other (plain,
then under run, then plain, ...), so that a machine whose speed drifts moves both sides of a
pair alike. The figure is the median of the pairs' differences (and of their ratios), in wall
seconds and in CPU seconds (user + system, which a busy machine inflates less); the target is at
most 0.3 s. The same for `python -c "pass"` (no torch: the guards stay off and
labelguard is never imported) shows what `run` itself and its sitecustomize cost.

    python bench/run_startup.py --bin target/release/labelguard [--pairs 15] [--python PY]

The Python must import labelguard (`make python`): the check that it does is made first.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time


def timed(command: list, env: dict) -> tuple:
    """(wall seconds, CPU seconds: user + system of the command and the processes it waited for)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({child.returncode})")
    return elapsed, usage.ru_utime + usage.ru_stime


def pairs(bin_: str, python: str, code: str, n: int, env: dict) -> tuple:
    plain, guarded = [], []
    for _ in range(n + 1):  # the first pair warms the caches and is not counted
        plain.append(timed([python, "-c", code], env))
        guarded.append(timed([bin_, "run", "--", python, "-c", code], env))
    plain, guarded = plain[1:], guarded[1:]
    return [
        ([p[i] for p in plain], [g[i] for g in guarded], [g[i] - p[i] for p, g in zip(plain, guarded)], [g[i] / p[i] for p, g in zip(plain, guarded)])
        for i in (0, 1)
    ]


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
    probe = subprocess.run([args.python, "-c", "import labelguard, torch"], capture_output=True, text=True, env=env)
    if probe.returncode != 0:
        sys.exit(f"`import labelguard` fails in {args.python} (make python):\n{probe.stderr}")
    print(f"{args.pairs} pairs each; seconds: median (min-max)")
    print("| program | time | plain python, s | under `labelguard run`, s | difference, s | ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, code in (("python -c 'import torch'", "import torch"), ("python -c 'pass'", "pass")):
        for what, (plain, guarded, diffs, ratios) in zip(("wall", "cpu"), pairs(args.bin, args.python, code, args.pairs, env)):
            print(f"| `{name}` | {what} | {spread(plain)} | {spread(guarded)} | {spread(diffs)} | {statistics.median(ratios):.3f} |")


if __name__ == "__main__":
    main()
