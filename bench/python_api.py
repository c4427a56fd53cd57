"""Python API benchmark, one run, interleaved rounds, medians:

1. check_cross_entropy on a CPU int64 target of 16x512x1024 (C = 19, ignore 255) against the
   hand-written torch guard people use today and the numpy equivalent.
2. enable()'s overhead on a CPU training step of a small segmentation model (forward, loss,
   backward, SGD step), against the same step without it.
3. (issue 13) the Python cost of one valid wrapped call on small tensors (bench/hot_calls.py's
   calls: F.embedding on (8,64) ids, F.cross_entropy, gather, `w[labels]`, the nn modules),
   enabled against plain; enable()'s overhead on
   training steps of 10-50 ms on one torch thread (text classifier, small CNN, small
   transformer, segmentation net: thread CPU time, see `thread_timed`); the check with
   logits given as a meta tensor against the torch guard; the cost of enable(finite=True).

    make bench-python      (or: python bench/python_api.py [--baseline DIR] [--only-issue13])

With --baseline DIR (a directory holding another build's `labelguard` package, see
bench/baseline.py), that build is timed in the same rounds of part 3, interleaved. Part 3 times
CPU time (time.process_time: all of this process's threads), not wall time: on a shared machine
wall time also counts the time other processes hold the cores.
"""

import argparse
import json
import os
import pathlib
import statistics
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import labelguard
from baseline import add_option
from baseline import builds as both_builds
from hot_calls import print_rows, small_calls, time_calls

C, IGNORE = 19, 255


def timed(fn, reps=1):
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) / reps


def torch_guard(t):
    bad = ~(((0 <= t) & (t < C)) | (t == IGNORE))
    if bad.any():
        raise ValueError("bad target")


def numpy_guard(a):
    if ((((a < 0) | (a >= C)) & (a != IGNORE))).any():
        raise ValueError("bad target")


class SmallSegNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.ConvTranspose2d(32, 16, 2, stride=2), nn.ReLU(), nn.Conv2d(16, C, 1),
        )

    def forward(self, x):
        return self.body(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--out", default="bench/out/python_api.json")
    add_option(ap)
    ap.add_argument("--only-issue13", action="store_true", help="part 3 only")
    args = ap.parse_args()
    builds = both_builds(args, labelguard)
    if args.only_issue13:
        torch.manual_seed(0)
        target = torch.randint(0, C, (16, 512, 1024))
        target[:, :8] = IGNORE
        r = issue13(args.rounds, target, builds)
        pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        pathlib.Path(args.out).write_text(json.dumps({"issue13": r}, indent=2))
        report13(r)
        return
    torch.manual_seed(0)
    target = torch.randint(0, C, (16, 512, 1024))
    target[:, :8] = IGNORE
    logits = torch.empty(16, C, 1, 1).expand(16, C, 512, 1024)  # shape only: never read by the check
    array = target.numpy()
    t_lg, t_torch, t_np = [], [], []
    for _ in range(args.rounds):
        t_lg.append(timed(lambda: labelguard.check_cross_entropy(logits, target, ignore_index=IGNORE)))
        t_torch.append(timed(lambda: torch_guard(target)))
        t_np.append(timed(lambda: numpy_guard(array)))
    check = {"labelguard": statistics.median(t_lg), "torch_guard": statistics.median(t_torch), "numpy": statistics.median(t_np)}
    real_logits = torch.randn(16, C, 512, 1024)  # 637 MB: the check also scans it for NaN/inf
    check["labelguard_with_real_logits"] = statistics.median(timed(lambda: labelguard.check_cross_entropy(real_logits, target, ignore_index=IGNORE)) for _ in range(args.rounds))
    del real_logits

    model = SmallSegNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(8, 3, 128, 128)
    y = torch.randint(0, C, (8, 128, 128))
    y[:, :4] = IGNORE
    criterion = nn.CrossEntropyLoss(ignore_index=IGNORE)

    def step():
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    # Paired rounds in alternating order, so that drifts in machine load cancel out.
    plain, guarded, ratios = [], [], []
    for r in range(args.rounds * 2):
        order = (False, True) if r % 2 == 0 else (True, False)
        pair = {}
        for enable in order:
            if enable:
                labelguard.enable()
            pair[enable] = timed(step, 3)
            labelguard.disable()
        plain.append(pair[False])
        guarded.append(pair[True])
        ratios.append(pair[True] / pair[False])
    steps = {"plain": statistics.median(plain), "enabled": statistics.median(guarded)}
    # The checks' own cost in that step, timed directly (the paired difference above is within noise).
    out = model(x).detach()
    steps["checks_alone"] = statistics.median(timed(lambda: labelguard.check("cross_entropy", input=out, target=y, ignore_index=IGNORE), 50) for _ in range(args.rounds))
    result = {
        "torch": torch.__version__, "threads": torch.get_num_threads(), "rounds": args.rounds,
        "check_cross_entropy_seconds": check, "x_torch_guard": check["torch_guard"] / check["labelguard"],
        "x_numpy": check["numpy"] / check["labelguard"], "train_step_seconds": steps,
        "enable_overhead": statistics.median(ratios) - 1,
    }
    result["issue13"] = issue13(args.rounds, target, builds)
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text(json.dumps(result, indent=2))
    gb = target.numel() * 8 / 1e9
    print(f"check_cross_entropy, int64 16x512x1024 ({gb * 1000:.0f} MB), medians of {args.rounds} rounds, torch {torch.__version__} with {torch.get_num_threads()} threads:")
    print("| contender | ms | GB/s | labelguard is |")
    print("| --- | --- | --- | --- |")
    for name, key in (("labelguard.check_cross_entropy", "labelguard"), ("torch guard `~((0 <= t) & (t < C) | (t == ignore))`.any()", "torch_guard"), ("numpy `(((a < 0) | (a >= C)) & (a != ignore)).any()`", "numpy")):
        s = check[key]
        print(f"| {name} | {s * 1e3:.2f} | {gb / s:.1f} | {s / check['labelguard']:.1f}x faster |" if key != "labelguard" else f"| {name} | {s * 1e3:.2f} | {gb / s:.1f} | |")
    s = check["labelguard_with_real_logits"]
    ratio = check["torch_guard"] / s
    versus = f"{ratio:.1f}x faster than" if ratio >= 1 else f"{1 / ratio:.1f}x slower than"
    print(f"| labelguard.check_cross_entropy with real float32 logits 16x19x512x1024 (also scanned for NaN/inf, 637 MB more) | {s * 1e3:.2f} | | {versus} the torch guard, which reads only the target |")
    print(f"\ntraining step (8x3x128x128, small conv net, CrossEntropyLoss, {len(ratios)} paired rounds): plain {steps['plain'] * 1e3:.1f} ms, with enable() {steps['enabled'] * 1e3:.1f} ms; median paired overhead {result['enable_overhead']:+.1%}; the check itself takes {steps['checks_alone'] * 1e6:.0f} us per step ({steps['checks_alone'] / steps['plain']:.3%} of the step)")
    report13(result["issue13"])


def thread_timed(fn, reps=1):
    """CPU time of this thread per call. The training steps run on one torch thread: with two,
    the process's CPU time counts OpenMP's spin-waits, which move with the timing of the ops
    rather than with the work (paired rounds then scattered over -5%..+15% for any build, the
    baseline's too); labelguard's own checks at these sizes run on the calling thread."""
    start = time.thread_time()
    for _ in range(reps):
        fn()
    return (time.thread_time() - start) / reps


class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20000, 128)
        self.mlp = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 20))

    def forward(self, ids):
        return self.mlp(self.emb(ids).mean(1))


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(1000, 64)
        self.pos = nn.Embedding(64, 64)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 2)
        self.head = nn.Linear(64, 1000)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        return self.head(self.enc(self.tok(ids) + self.pos(pos)))


def training_steps():
    """(name, step) of CPU training steps of about 8-50 ms, each with a few wrapped calls."""
    out = []
    text = TextClassifier()
    ids, labels = torch.randint(0, 20000, (256, 64)), torch.randint(0, 20, (256,))
    out.append(("text classifier: embedding 20000x128, batch 256x64, CE over 20", text, lambda m: F.cross_entropy(m(ids), labels)))
    cnn = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    x, y = torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))
    ce = nn.CrossEntropyLoss(label_smoothing=0.1)
    out.append(("small CNN, 32x3x32x32, CrossEntropyLoss(label_smoothing=0.1)", cnn, lambda m: ce(m(x), y)))
    tr = TinyTransformer()
    seq = torch.randint(0, 1000, (8, 32))
    out.append(("2-layer transformer LM, batch 8x32, vocab 1000, token + position embeddings", tr, lambda m: F.cross_entropy(m(seq).flatten(0, 1), seq.flatten())))
    seg = SmallSegNet()
    xs, ys = torch.randn(2, 3, 64, 64), torch.randint(0, C, (2, 64, 64))
    out.append(("small segmentation net, 2x3x64x64, CE with ignore_index", seg, lambda m: F.cross_entropy(m(xs), ys, ignore_index=IGNORE)))
    return out


def step_overheads(rounds, builds, modes):
    """[{step, plain_ms, <build>_overhead, <build>_added_us}]: each training step timed plain and
    with each build's enable() in paired rounds whose order turns (thread CPU time, 1 torch
    thread); overhead = median over rounds of (enabled / plain - 1) of the same round, added =
    median of (enabled - plain)."""
    out = []
    for name, model, loss in training_steps():
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def step():
            opt.zero_grad()
            loss(model).backward()
            opt.step()

        for _ in range(3):
            step()
        times = {m: [] for m in modes}
        for i in range(rounds * 4):
            for mode in (modes if i % 2 == 0 else modes[::-1]):
                lg = builds.get(mode)
                if lg is not None:
                    lg.enable()
                times[mode].append(thread_timed(step, 5))
                if lg is not None:
                    lg.disable()
        row = {"step": name, "plain_ms": statistics.median(times["plain"]) * 1e3}
        for m in builds:
            row[f"{m}_overhead"] = statistics.median(a / p - 1 for a, p in zip(times[m], times["plain"]))
            row[f"{m}_added_us"] = statistics.median(a - p for a, p in zip(times[m], times["plain"])) * 1e6
        out.append(row)
    return out


def issue13(rounds, target, builds):
    r = {"calls": [], "steps": [], "builds": list(builds), "loadavg_start": os.getloadavg()}
    modes = ["plain", *builds]
    r["calls"] = time_calls(small_calls(), builds, rounds * 5, 200)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        r["steps"] = step_overheads(rounds, builds, modes)
    finally:
        torch.set_num_threads(threads)
    # Logits as a meta tensor: the check reads the target alone (wall time: it uses every core,
    # as the torch guard does).
    meta_logits = torch.empty(16, C, 512, 1024, device="meta")
    r["meta"] = {}
    times = {m: [] for m in ["torch_guard", *builds]}
    for _ in range(rounds):
        times["torch_guard"].append(timed(lambda: torch_guard(target)))
        for mode, lg in builds.items():
            times[mode].append(timed(lambda: lg.check_cross_entropy(meta_logits, target, ignore_index=IGNORE)))
    guard = statistics.median(times["torch_guard"])
    r["meta"]["torch_guard_s"] = guard
    for mode in builds:
        lg = statistics.median(times[mode])
        r["meta"][f"{mode}_s"] = lg
        r["meta"][f"{mode}_x_torch_guard"] = guard / lg
    # What finite=True costs in a loss check: logits of the segmentation case, per dtype.
    y = torch.randint(0, C, (8, 128, 128))
    r["finite"] = []
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        logits = torch.randn(8, C, 128, 128).to(dtype)
        on = statistics.median(timed(lambda: labelguard.check("cross_entropy", input=logits, target=y), 20) for _ in range(rounds))
        off = statistics.median(timed(lambda: labelguard.check("cross_entropy", input=logits.to("meta"), target=y), 20) for _ in range(rounds))
        r["finite"].append({"dtype": str(dtype).removeprefix("torch."), "logits_mb": logits.numel() * logits.element_size() / 1e6, "target_mb": y.numel() * 8 / 1e6, "with_scan_ms": on * 1e3, "without_ms": off * 1e3})
    r["loadavg_end"] = os.getloadavg()
    return r


def report13(r):
    builds = r["builds"]
    print(f"\nissue 13 (load average {r['loadavg_start'][0]:.2f} at the start, {r['loadavg_end'][0]:.2f} at the end), one valid call on small tensors (1 torch thread; interleaved rounds of 200 calls; thread CPU time):")
    print_rows(r["calls"], builds)
    print("\n| training step (CPU, 1 torch thread, thread CPU time) | plain ms | " + " | ".join(f"{b}: overhead, added us (medians of paired rounds)" for b in builds) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in builds) + " |")
    for s in r["steps"]:
        print(f"| {s['step']} | {s['plain_ms']:.1f} | " + " | ".join(f"{s[b + '_overhead']:+.1%}, {s[b + '_added_us']:+.0f}" for b in builds) + " |")
    m = r["meta"]
    for b in builds:
        print(f"\ncheck_cross_entropy ({b}) with meta logits 16x19x512x1024 and the int64 target: {m[b + '_s'] * 1e3:.2f} ms; torch guard {m['torch_guard_s'] * 1e3:.2f} ms: {m[b + '_x_torch_guard']:.1f}x faster")
    print("\n| logits 8x19x128x128 | logits MB | target MB | check with the NaN/inf scan ms | without (finite=False) ms |")
    print("| --- | --- | --- | --- | --- |")
    for f in r["finite"]:
        print(f"| {f['dtype']} | {f['logits_mb']:.1f} | {f['target_mb']:.1f} | {f['with_scan_ms']:.2f} | {f['without_ms']:.2f} |")


if __name__ == "__main__":
    main()
