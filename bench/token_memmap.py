"""Benchmark: `labelguard scan` on a nanoGPT token memmap of >= 1 GB (`train.bin`, uint16 ids,
with the `meta.pkl` that gives `vocab_size`) against the loop a user writes for the same check:
`np.memmap` and `max()` per chunk, counting the ids at or beyond the vocabulary in the chunks
whose max is too large.

    make bench-memmap            # or: .venv/bin/python bench/token_memmap.py [--gb 1.0] [--rounds 7]

The file is generated in /tmp (random ids below 50257, GPT-2's vocabulary; three ids planted at
or beyond `vocab_size` = 50304 so that both sides have something to count) and deleted at the
end. Both sides run pinned to the same cores (`taskset`; labelguard with `--jobs` equal to the
core count; numpy is one thread whatever it is given), from the page cache (one untimed
warm-up each). Each round runs both, in alternating order; the ratio of each round is taken
and the median of the rounds reported. numpy's time is that of its loop alone (measured inside
the process, without starting Python or importing numpy); labelguard's is the whole command,
start to exit.
"""

import argparse
import json
import os
import pathlib
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = 50304  # nanoGPT's padded GPT-2 vocabulary
PLANTED = [(123, 50304), (400_000_000, 60000), (-1, 65535)]


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


def user_loop(path: str, chunk: int) -> None:
    """The check a user writes: prints the seconds of the loop and the ids it counted."""
    import numpy as np

    t = time.perf_counter()
    data = np.memmap(path, dtype=np.uint16, mode="r")
    bad = 0
    for i in range(0, len(data), chunk):
        c = data[i:i + chunk]
        if c.max() >= VOCAB:
            bad += int((c >= VOCAB).sum())
    print(json.dumps({"seconds": time.perf_counter() - t, "bad": bad}))


def run(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t
    assert p.returncode in (0, 1), (cmd, p.returncode)
    return wall, p.stdout


def lg_count(out: bytes) -> int:
    report = json.loads(out)
    return sum(x["count"] for f in report["files"] for x in f["findings"] if x["code"] == "LG801")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gb", type=float, default=1.0, help="GB of token ids (uint16)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--cores", default="0", help="the CPUs both sides are pinned to (taskset -c)")
    ap.add_argument("--chunk", type=int, default=1 << 20, help="tokens per numpy chunk")
    ap.add_argument("--user-loop", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.user_loop:
        return user_loop(a.user_loop, a.chunk)
    lg = os.environ.get("LABELGUARD_BIN", str(ROOT / "target" / "release" / "labelguard"))
    base = pathlib.Path(tempfile.mkdtemp(prefix="labelguard-bench-memmap-", dir="/tmp"))
    try:
        n = make_data(base, a.gb)
        jobs = len(a.cores.split(","))
        pin = ["taskset", "-c", a.cores]
        lg_cmd = pin + [lg, "scan", str(base), "--no-config", "--jobs", str(jobs), "--format", "json"]
        np_cmd = pin + [sys.executable, __file__, "--user-loop", str(base / "train.bin"),
                        "--chunk", str(a.chunk)]
        size = n * 2
        print(f"train.bin: {size / 1e9:.2f} GB ({n} uint16 ids), vocab_size {VOCAB} from meta.pkl, "
              f"{a.rounds} rounds, pinned to CPUs {a.cores}, numpy chunk {a.chunk} tokens")
        run(lg_cmd)
        run(np_cmd)
        lg_t, np_t, ratios = [], [], []
        counts = set()
        for r in range(a.rounds):
            order = [("lg", lg_cmd), ("np", np_cmd)]
            if r % 2:
                order.reverse()
            got = {}
            for name, cmd in order:
                wall, out = run(cmd)
                if name == "lg":
                    got[name] = wall
                    counts.add(("labelguard", lg_count(out)))
                else:
                    res = json.loads(out)
                    got[name] = res["seconds"]
                    counts.add(("numpy", res["bad"]))
            lg_t.append(got["lg"])
            np_t.append(got["np"])
            ratios.append(got["np"] / got["lg"])
        lgm, npm = statistics.median(lg_t), statistics.median(np_t)
        print(f"  labelguard scan: median {lgm:.3f} s ({size / 1e9 / lgm:.2f} GB/s), runs {[round(x, 3) for x in lg_t]}")
        print(f"  numpy loop     : median {npm:.3f} s ({size / 1e9 / npm:.2f} GB/s), runs {[round(x, 3) for x in np_t]}")
        print(f"  ratio (numpy / labelguard), median of the paired rounds: {statistics.median(ratios):.1f}x "
              f"(rounds {[round(x, 1) for x in ratios]})")
        print(f"  bad ids counted: {sorted(counts)}")
        if len({c for _, c in counts}) != 1:
            sys.exit("the two sides disagree")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
