"""Python API benchmark, one run, interleaved rounds, medians:

1. check_cross_entropy on a CPU int64 target of 16x512x1024 (C = 19, ignore 255) against the
   hand-written torch guard people use today and the numpy equivalent.
2. enable()'s overhead on a CPU training step of a small segmentation model (forward, loss,
   backward, SGD step), against the same step without it.

    make bench-python      (or: python bench/python_api.py)
"""

import argparse
import json
import pathlib
import statistics
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import labelguard

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
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
