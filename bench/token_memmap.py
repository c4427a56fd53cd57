"""Benchmark: `labelguard scan` on a nanoGPT token memmap of >= 1 GB (`train.bin`, uint16 ids,
with the `meta.pkl` that gives `vocab_size`) against the loops a user writes for the same check.

    make bench-memmap            # or: .venv/bin/python bench/token_memmap.py [--gb 1.0] [--rounds 5]

The file is generated in /tmp (random ids below 50257, GPT-2's vocabulary; three ids planted at
or beyond `vocab_size` = 50304 so that every side has something to find) and deleted at the end.

The user loops (numpy, one thread whatever it is given; `np.memmap(path, dtype=np.uint16,
mode="r")` as nanoGPT's train.py opens the file):

* `max/1M`: `max()` per chunk of 2^20 tokens (2 MiB), counting the ids in the chunks whose max
  is too large. 2^20 is the size a user picks to keep each temporary small while numpy still
  runs at full speed (past a few thousand tokens per call numpy's per-call cost vanishes).
* `max/all`: one `data.max()` over the whole map, the shortest thing a user writes.
* `nonzero/1M`: `np.nonzero(chunk >= V)` per 2^20-token chunk: the loop that also finds the
  offending positions, which labelguard reports.
* `max/1024`: `max()` per 1024 tokens, nanoGPT's `block_size`: the check done per batch as
  `get_batch` reads them.
* `ram`: roofline, not a user loop: the file read into memory first (untimed), then one
  `max()`: how fast one core reads memory with numpy's vectorised max.

Every side runs pinned to the same cores (`taskset`; labelguard with `--jobs` equal to the core
count), once per `--cores` set. Each round runs labelguard and every loop in an order that
alternates between rounds; the ratio of each loop to labelguard is taken per round and the
median of the rounds reported. numpy's time is that of its loop alone (measured inside the
process, without starting Python or importing numpy); labelguard's is the whole command, start
to exit. Each side's CPU seconds (user + system, all threads: `time.process_time()` around
numpy's loop, `getrusage` of the labelguard process) are printed too: on a loaded machine they
say what the scan costs where wall times say mostly how long it waited for a core. `--cache warm` (default) reads from the page cache (one untimed warm-up each);
`--cache cold` evicts the file from the page cache (`posix_fadvise(DONTNEED)`, this file only)
before every timed run, so each side reads it from disk.
"""

import argparse
import json
import os
import pathlib
import pickle
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = 50304  # nanoGPT's padded GPT-2 vocabulary
PLANTED = [(123, 50304), (400_000_000, 60000), (-1, 65535)]
LOOPS = ["max/1M", "max/all", "nonzero/1M", "max/1024"]


def make_data(out: pathlib.Path, gb: float) -> int:
    import numpy as np

    n = int(gb * 1e9) // 2
    rng = np.random.default_rng(0)
    arr = np.memmap(out / "train.bin", dtype=np.uint16, mode="w+", shape=(n,))
    chunk = 1 << 24
    for i in range(0, n, chunk):
        arr[i:i + chunk] = rng.integers(0, 50257, size=min(chunk, n - i), dtype=np.uint16)
    for pos, v in PLANTED:
        arr[pos % n] = v
    arr.flush()
    del arr
    with open(out / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": VOCAB}, f)
    return n


def user_loop(path: str, loop: str) -> None:
    """One loop a user writes: prints its seconds and the offending ids it counted."""
    import numpy as np

    if loop == "ram":
        data = np.fromfile(path, dtype=np.uint16)
        t, cpu = time.perf_counter(), time.process_time()
        bad = int(data.max() >= VOCAB)
        print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - cpu,
                          "bad": bad}))
        return
    kind, size = loop.split("/")
    t, cpu = time.perf_counter(), time.process_time()
    data = np.memmap(path, dtype=np.uint16, mode="r")
    chunk = {"1M": 1 << 20, "1024": 1024, "all": len(data)}[size]
    bad = 0
    for i in range(0, len(data), chunk):
        c = data[i:i + chunk]
        if kind == "nonzero":
            bad += len(np.nonzero(c >= VOCAB)[0])
        elif c.max() >= VOCAB:
            bad += int((c >= VOCAB).sum())
    print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - cpu,
                      "bad": bad}))


def evict(path: pathlib.Path) -> None:
    """Drops this file's pages from the page cache (no other file's)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd):
    """Wall and CPU (user + system, all threads) seconds of `cmd`, and its stdout."""
    t, cpu = time.perf_counter(), children_cpu()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t
    assert p.returncode in (0, 1), (cmd, p.returncode)
    return wall, children_cpu() - cpu, p.stdout


def lg_count(out: bytes) -> int:
    report = json.loads(out)
    return sum(x["count"] for f in report["files"] for x in f["findings"] if x["code"] == "LG801")


def bench(lg: str, base: pathlib.Path, cores: str, a) -> None:
    size = (base / "train.bin").stat().st_size
    jobs = len(cores.split(","))
    pin = ["taskset", "-c", cores]
    cmds = {"labelguard": pin + [lg, "scan", str(base), "--no-config", "--jobs", str(jobs),
                                 "--format", "json"]}
    for loop in a.loops + ["ram"]:
        cmds[loop] = pin + [sys.executable, __file__, "--user-loop", str(base / "train.bin"),
                            "--loop", loop]
    print(f"\nCPUs {cores} ({jobs} core{'s' * (jobs > 1)}), {a.cache} page cache, {a.rounds} rounds")
    if a.cache == "warm":
        for cmd in cmds.values():
            run(cmd)
    times = {k: [] for k in cmds}
    cpus = {k: [] for k in cmds}
    walls = {k: [] for k in cmds}
    counts = {}
    for r in range(a.rounds):
        order = list(cmds.items())
        if r % 2:
            order.reverse()
        for name, cmd in order:
            if a.cache == "cold":
                evict(base / "train.bin")
            wall, cpu, out = run(cmd)
            walls[name].append(wall)
            if name == "labelguard":
                times[name].append(wall)
                cpus[name].append(cpu)
                counts[name] = lg_count(out)
            else:
                res = json.loads(out)
                times[name].append(res["seconds"])
                cpus[name].append(res["cpu"])
                counts[name] = res["bad"]
    lg_t = times["labelguard"]
    lgm = statistics.median(lg_t)
    print(f"  {'labelguard scan':<16} median {lgm:.3f} s ({size / 1e9 / lgm:5.2f} GB/s), "
          f"runs {[round(x, 3) for x in lg_t]}; CPU {statistics.median(cpus['labelguard']):.3f} s")
    for name in a.loops + ["ram"]:
        t = times[name]
        m = statistics.median(t)
        ratios = [x / y for x, y in zip(t, lg_t)]
        what = "roofline" if name == "ram" else "numpy"
        print(f"  {what + ' ' + name:<16} median {m:.3f} s ({size / 1e9 / m:5.2f} GB/s), "
              f"runs {[round(x, 3) for x in t]}; numpy / labelguard: median "
              f"{statistics.median(ratios):.2f}x (rounds {[round(x, 2) for x in ratios]}); "
              f"CPU {statistics.median(cpus[name]):.3f} s; the whole process (Python, numpy "
              f"import, loop) {statistics.median(walls[name]):.3f} s")
    found = {k: v for k, v in counts.items() if k != "ram"}
    print(f"  offending ids found: {found}")
    if len(set(found.values())) != 1:
        sys.exit("the sides disagree")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=1.0, help="GB of token ids (uint16)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cores", action="append",
                    help="CPUs every side is pinned to (taskset -c); repeatable (default: 0, then 0,1)")
    ap.add_argument("--cache", choices=["warm", "cold"], default="warm")
    ap.add_argument("--loops", default=",".join(LOOPS), help=f"user loops, of {LOOPS}")
    ap.add_argument("--user-loop", help=argparse.SUPPRESS)
    ap.add_argument("--loop", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.user_loop:
        return user_loop(a.user_loop, a.loop)
    a.loops = a.loops.split(",")
    lg = os.environ.get("LABELGUARD_BIN", str(ROOT / "target" / "release" / "labelguard"))
    base = pathlib.Path(tempfile.mkdtemp(prefix="labelguard-bench-memmap-", dir="/tmp"))
    try:
        n = make_data(base, a.gb)
        print(f"train.bin: {n * 2 / 1e9:.2f} GB ({n} uint16 ids), vocab_size {VOCAB} from "
              f"meta.pkl; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        for cores in a.cores or ["0", "0,1"]:
            bench(lg, base, cores, a)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
