"""enable()'s cost on indexing (issue 13), one run, interleaved rounds, medians:

1. Per key type: `x[0]`, `x[1:3]`, `x[..., None]`, `x[:, 2]`, `x[[0, 3]]`, `x[idx]` (a long tensor), and
   `x[idx] = v`: nanoseconds per call without and with enable().
2. A CPU training step that slices heavily (a small transformer block: head split by slicing,
   per-head loops over `q[:, h]`, residual slices, a label-smoothing loss that indexes the
   class weights with the labels): milliseconds per step without and with enable(), paired.

    python bench/indexing_overhead.py [--rounds 9] [--baseline DIR]

With --baseline DIR (a directory holding another build's `labelguard` package, see
bench/baseline.py), that build's enable() is timed in the same rounds, interleaved. Times are
medians of per-thread CPU time (time.thread_time): on a shared machine, wall time also counts
the time other processes hold the core.
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


def per_call(fn, reps):
    start = time.thread_time()
    for _ in range(reps):
        fn()
    return (time.thread_time() - start) / reps


class SlicingBlock(nn.Module):
    """Attention written with explicit slicing, as research code often is."""

    def __init__(self, d=64, heads=4, classes=10):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.head = nn.Linear(d, classes)
        self.class_weight = torch.rand(classes)

    def forward(self, x, labels):
        d = x.shape[-1]
        qkv = self.qkv(x)
        q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
        outs = []
        for h in range(self.heads):
            sl = slice(h * self.dh, (h + 1) * self.dh)
            qh, kh, vh = q[:, :, sl], k[:, :, sl], v[:, :, sl]
            att = (qh @ kh.transpose(1, 2)) / self.dh ** 0.5
            outs.append(att.softmax(-1) @ vh)
        y = x + self.out(torch.cat(outs, -1))
        cls = y[:, 0]  # the first token
        logits = self.head(cls)
        w = self.class_weight[labels]  # advanced indexing with a label tensor
        per_sample = F.cross_entropy(logits, labels, reduction="none")
        return (per_sample * w).mean() + y[:, 1:].pow(2).mean() * 1e-3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--out", default="bench/out/indexing_overhead.json")
    add_option(ap)
    args = ap.parse_args()
    builds = both_builds(args, labelguard)
    torch.manual_seed(0)
    torch.set_num_threads(1)

    x = torch.randn(64, 32)
    idx = torch.randint(0, 64, (16,))
    keys = {
        "x[0]": lambda: x[0],
        "x[1:3]": lambda: x[1:3],
        "x[..., None]": lambda: x[..., None],
        "x[:, 2]": lambda: x[:, 2],
        "x[[0, 3]]": lambda: x[[0, 3]],
        "x[idx] (long tensor)": lambda: x[idx],
    }
    y = torch.zeros(64, 32)
    keys["y[idx] = 1.0"] = lambda: y.__setitem__(idx, 1.0)
    modes = ["plain", *builds]
    micro = {k: {m: [] for m in modes} for k in keys}
    for _ in range(args.rounds):
        for name, fn in keys.items():
            for mode in modes:
                lg = builds.get(mode)
                if lg is not None:
                    lg.enable()
                try:
                    micro[name][mode].append(per_call(fn, 20000 if "idx" not in name else 2000))
                finally:
                    if lg is not None:
                        lg.disable()

    model = SlicingBlock()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    tokens = torch.randn(16, 32, 64)
    labels = torch.randint(0, 10, (16,))

    def step():
        opt.zero_grad()
        loss = model(tokens, labels)
        loss.backward()
        opt.step()

    for _ in range(5):
        step()
    times = {m: [] for m in modes}
    ratios = {m: [] for m in builds}
    for r in range(args.rounds):
        pair = {}
        for mode in (modes if r % 2 == 0 else modes[::-1]):
            lg = builds.get(mode)
            if lg is not None:
                lg.enable()
            try:
                pair[mode] = per_call(step, 20)
            finally:
                if lg is not None:
                    lg.disable()
        for mode in modes:
            times[mode].append(pair[mode])
        for mode in builds:
            ratios[mode].append(pair[mode] / pair["plain"])

    result = {
        "per_call_ns": {k: {m: statistics.median(v[m]) * 1e9 for m in v} for k, v in micro.items()},
        "step_ms": {m: statistics.median(times[m]) * 1e3 for m in modes},
        "step_overhead": statistics.median(ratios["enabled"]) - 1,
        "rounds": args.rounds,
        "torch": torch.__version__,
        "loadavg_end": os.getloadavg(),
    }
    if "baseline" in builds:
        result["step_overhead_baseline"] = statistics.median(ratios["baseline"]) - 1
    out = pathlib.Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"per call (median ns of thread CPU time): {' / '.join(modes)}")
    for k, v in result["per_call_ns"].items():
        cols = " / ".join(f"{v[m]:8.0f}" for m in modes)
        extra = "".join(f"  {m} {v[m] - v['plain']:+.0f} ns" for m in builds)
        print(f"  {k:<22} {cols} {extra}")
    base = f", baseline {result['step_overhead_baseline']:+.1%}" if "baseline" in builds else ""
    print(f"training step (slicing-heavy attention block, 16x32x64, {args.rounds} paired rounds): plain {result['step_ms']['plain']:.2f} ms, "
          f"with enable() {result['step_ms']['enabled']:.2f} ms; median paired overhead {result['step_overhead']:+.1%}{base}; load average at the end {result['loadavg_end'][0]:.2f}")


if __name__ == "__main__":
    main()
