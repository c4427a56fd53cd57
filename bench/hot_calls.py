"""enable()'s Python cost on one valid call (issue 13: "at most 5 us of Python per valid wrapped
call on small tensors"): F.cross_entropy, F.embedding, torch.gather and `w[labels]` (the four
calls of the budget), their module, method and `x[i] = v` forms, each timed plain and with
enable() in one process, on the same tensors, in interleaved rounds (the order of the modes
turns every round, so drifts in machine load fall on both), CPU time of this thread
(time.thread_time_ns: on a shared machine wall time also counts the time other processes hold
the core). Added time per call = the median over rounds of (enabled - plain) of that round.

    make bench-hot     (or: python bench/hot_calls.py [--rounds 41] [--calls 1000] [--baseline DIR])

With --baseline DIR (a directory holding another build's `labelguard` package, see
bench/baseline.py), that build is timed in the same rounds.
"""

import argparse
import json
import os
import pathlib
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import labelguard
from baseline import add_option
from baseline import builds as both_builds


def small_calls():
    """(name, call) of valid wrapped calls on small tensors."""
    ids = torch.randint(0, 1000, (8, 64))
    table = torch.randn(1000, 64)
    emb = nn.Embedding(1000, 64)
    logits, y = torch.randn(8, 10), torch.randint(0, 10, (8,))
    ce = nn.CrossEntropyLoss()
    idx = y.unsqueeze(1)
    w, v = torch.rand(10), torch.zeros(10)
    x, flat = torch.randn(10, 10), torch.randint(0, 100, (8,))
    acc, rows, src = torch.zeros(10, 4), torch.randint(0, 10, (8,)), torch.randn(8, 4)
    bag_ids, offsets = torch.randint(0, 1000, (64,)), torch.tensor([0, 16, 32, 48])
    return [
        ("F.embedding, (8,64) ids, 1000x64 table", lambda: F.embedding(ids, table)),
        ("nn.Embedding(1000, 64), (8,64) ids", lambda: emb(ids)),
        ("F.cross_entropy, (8,10) logits", lambda: F.cross_entropy(logits, y)),
        ("nn.CrossEntropyLoss, (8,10) logits", lambda: ce(logits, y)),
        ("torch.gather, (8,10) by (8,1)", lambda: torch.gather(logits, 1, idx)),
        ("Tensor.gather, keyword index", lambda: logits.gather(dim=1, index=idx)),
        ("`w[labels]`, (10,) by (8,) labels", lambda: w[y]),
        ("`v[labels] = 1.0`, (10,) by (8,) labels", lambda: v.__setitem__(y, 1.0)),
        # (on the native fast path since issue 19; the general Python path before)
        ("torch.take, (10,10) by (8,)", lambda: torch.take(x, flat)),
        ("Tensor.index_add, (10,4) by (8,)", lambda: acc.index_add(0, rows, src)),
        ("F.embedding_bag, (64,) ids, 4 offsets, 1000x64", lambda: F.embedding_bag(bag_ids, table, offsets)),
    ]


def per_call_ns(fn, calls):
    start = time.thread_time_ns()
    for _ in range(calls):
        fn()
    return (time.thread_time_ns() - start) / calls


def time_calls(calls, builds, rounds, n):
    """[{call, plain_us, <build>_added_us, <build>_added_iqr_us}, ...]: per call, the median
    over `rounds` interleaved rounds of `n` calls per mode."""
    modes = ["plain", *builds]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # small calls: OpenMP hand-offs are noise here, not labelguard
    rows = []
    try:
        for name, fn in calls:
            fn()
            t = {m: [] for m in modes}
            for r in range(rounds):
                order = modes[r % len(modes):] + modes[: r % len(modes)]
                for mode in order:
                    lg = builds.get(mode)
                    if lg is not None:
                        lg.enable()
                    try:
                        t[mode].append(per_call_ns(fn, n))
                    finally:
                        if lg is not None:
                            lg.disable()
            row = {"call": name, "plain_us": statistics.median(t["plain"]) / 1e3}
            for mode in builds:
                added = sorted(a - p for a, p in zip(t[mode], t["plain"]))
                q = statistics.quantiles(added, n=4)
                row[f"{mode}_added_us"] = statistics.median(added) / 1e3
                row[f"{mode}_added_iqr_us"] = (q[0] / 1e3, q[2] / 1e3)
            rows.append(row)
    finally:
        torch.set_num_threads(threads)
    return rows


def print_rows(rows, builds):
    print("| call | plain us | " + " | ".join(f"{b}: added us, median (IQR)" for b in builds) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in builds) + " |")
    for r in rows:
        cols = " | ".join(f"{r[b + '_added_us']:.2f} ({r[b + '_added_iqr_us'][0]:.2f}-{r[b + '_added_iqr_us'][1]:.2f})" for b in builds)
        print(f"| {r['call']} | {r['plain_us']:.2f} | {cols} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=41)
    ap.add_argument("--calls", type=int, default=1000, help="calls per round and mode")
    ap.add_argument("--out", default="bench/out/hot_calls.json")
    add_option(ap)
    args = ap.parse_args()
    builds = both_builds(args, labelguard)
    torch.manual_seed(0)
    load_start = os.getloadavg()
    rows = time_calls(small_calls(), builds, args.rounds, args.calls)
    result = {"torch": torch.__version__, "rounds": args.rounds, "calls": args.calls, "builds": list(builds),
              "loadavg_start": load_start, "loadavg_end": os.getloadavg(), "rows": rows}
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"one valid call on small tensors, 1 torch thread, {args.rounds} interleaved rounds of {args.calls} calls per mode, "
          f"thread CPU time; load average {load_start[0]:.2f} at the start, {result['loadavg_end'][0]:.2f} at the end")
    print_rows(rows, builds)


if __name__ == "__main__":
    main()
