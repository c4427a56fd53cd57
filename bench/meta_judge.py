"""The Python judge of issue 13: check_cross_entropy with meta logits 16x19x512x1024 and the
int64 target, against the hand-written torch guard, interleaved, 15 rounds, medians.

    .venv/bin/python bench/meta_judge.py
"""
import os
import statistics
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import labelguard
from python_api import torch_guard, C, IGNORE, timed
torch.manual_seed(0)
target = torch.randint(0, C, (16, 512, 1024))
target[:, :8] = IGNORE
logits = torch.empty(16, C, 1, 1).expand(16, C, 512, 1024)
lg, tg = [], []
for _ in range(15):
    lg.append(timed(lambda: labelguard.check_cross_entropy(logits, target, ignore_index=IGNORE)))
    tg.append(timed(lambda: torch_guard(target)))
a, b = statistics.median(lg), statistics.median(tg)
print(f"torch threads {torch.get_num_threads()}; load {os.getloadavg()[0]:.2f}; check {a*1e3:.2f} ms, torch guard {b*1e3:.2f} ms: {b/a:.1f}x")
