"""check() and the check_* shortcuts: numpy and torch inputs, verdicts, the CUDA path."""

import collections
import random

import numpy as np
import pytest
import torch

import labelguard
from labelguard import TargetError, TargetWarning
from labelguard._check import _device_check, _host_check

from differential import cases


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def test_numpy_inputs_zero_copy_and_strided():
    logits = np.zeros((4, 19, 8, 8), np.float32)
    target = np.full((4, 8, 8), 3, np.uint8).astype(np.int64)
    target[1, 2, 3] = 255
    r = labelguard.check("cross_entropy", input=logits, target=target)
    assert r.verdict == "device_assert" and r.findings[0].code == "LG103"
    assert r.findings[0].locations[0].index == (1, 2, 3)
    # A transposed (Fortran-order) and a reversed array are read correctly too.
    t = np.asfortranarray(target[:, :, 0])  # [4, 8]
    r = labelguard.check("nll_loss", input=np.zeros((4, 19), np.float32), target=t[:, 2])
    assert r.ok
    rev = np.arange(5)[::-1]
    assert labelguard.check("index_select", input=np.zeros((5, 2), np.float32), dim=0, index=rev).ok
    assert labelguard.check("index_select", input=np.zeros((4, 2), np.float32), dim=0, index=rev).verdict == "device_assert"


def test_shortcuts_raise_warn_and_return():
    with pytest.raises(TargetError) as info:
        labelguard.check_cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))
    assert info.value.code == "LG101" and isinstance(info.value, ValueError)
    assert info.value.findings[0].locations[0].index == (1,)
    with pytest.warns(TargetWarning, match="LG503"):
        r = labelguard.check_binary_cross_entropy_with_logits(torch.randn(3), torch.tensor([0.0, 1.0, 2.0]))
    assert r.verdict == "silent"
    assert labelguard.check_embedding(torch.tensor([[1, 2]]), num_embeddings=3).ok
    with pytest.raises(TargetError, match="LG401"):
        labelguard.check_embedding(torch.tensor([[1, 3]]), num_embeddings=3)
    with pytest.raises(TargetError, match="LG402"):
        labelguard.check_gather(torch.randn(2, 2), 1, torch.tensor([[0, 1], [2, 0]]))
    # A label-shaped index ([N, 1] on dim 1 of [N, C]) whose only bad value is C: class C.
    with pytest.raises(TargetError, match="LG416"):
        labelguard.check_gather(torch.randn(2, 2), 1, torch.tensor([[0], [2]]))
    with pytest.raises(TargetError, match="LG402"):
        labelguard.check_scatter(torch.randn(2, 2), 0, torch.tensor([[2, 0]]), value=1.0)
    # One-hot ids whose only bad value is C count C+1 classes, as on the other label paths.
    with pytest.raises(TargetError, match="LG416"):
        labelguard.check_one_hot(torch.tensor([0, 4]), num_classes=4)
    with pytest.raises(TargetError, match="LG403"):
        labelguard.check_one_hot(torch.tensor([0, 1, 2, 9, 13]), num_classes=3)
    with pytest.raises(TargetError, match="LG505"):
        labelguard.check_multinomial(torch.tensor([0.5, -0.1]), 1)
    with pytest.raises(TargetError, match="LG407"):
        labelguard.check_ctc_loss(torch.randn(5, 1, 4).log_softmax(2), torch.tensor([[1, 2]]), [7], [2])
    with pytest.warns(TargetWarning, match="LG405"):
        labelguard.check_ctc_loss(torch.randn(5, 1, 4).log_softmax(2), torch.tensor([[1, 9]]), torch.tensor([5]), torch.tensor([2]))
    assert labelguard.check_nll_loss(torch.randn(2, 3).log_softmax(1), torch.tensor([2, 0])).ok
    assert labelguard.check_index_select(torch.randn(3), 0, torch.tensor([2])).ok
    with pytest.raises(TargetError, match="LG502"):
        labelguard.check_binary_cross_entropy(torch.rand(2), torch.tensor([0.0, 255.0]))


def test_bfloat16_and_bool_tensors_are_read():
    x = torch.randn(2, 3, dtype=torch.bfloat16)
    assert labelguard.check("cross_entropy", input=x, target=torch.tensor([0, 2])).ok
    bad = torch.tensor([0.5, 1.5], dtype=torch.bfloat16)
    assert labelguard.check("binary_cross_entropy", input=bad, target=torch.zeros(2, dtype=torch.bfloat16)).findings[0].code == "LG501"
    assert labelguard.check("cross_entropy", input=torch.randn(2, 3), target=torch.tensor([True, False])).verdict == "error"


def test_usage_errors_are_value_errors():
    with pytest.raises(ValueError, match="unknown op"):
        labelguard.check("crossentropy", input=torch.randn(2, 3))
    with pytest.raises(ValueError, match="rename 'labels' to 'target'"):
        labelguard.check("cross_entropy", input=torch.randn(2, 3), labels=torch.tensor([0, 1]))


def test_differential_through_python():
    """The foundation's random calls, driven through labelguard.check: it reports raises
    exactly when torch's CPU path raises."""
    wrong, counts = [], collections.Counter()
    for case in cases(2000, 7):
        raised, message = case.run_torch()
        report = labelguard.check(case.op, **case.tensors, **case.args)
        counts[case.op] += 1
        if report.raises != raised:
            wrong.append(f"{case.op} {case.args} {[(k, tuple(v.shape), v.dtype) for k, v in case.tensors.items()]}: {report.verdict} vs {message or 'ok'}")
    from differential_indexing import GENERATORS as INDEXING
    from differential import GENERATORS

    assert set(counts) == set(GENERATORS) | set(INDEXING), "every op of the differential test is driven"
    assert not wrong, "\n".join(wrong[:20])


def test_device_path_agrees_with_the_host_path():
    """The CUDA path (extreme values on the device, surrogate views on the host) must reach the
    host path's verdict and findings; it runs here on CPU tensors treated as device tensors."""
    wrong = []
    n = 0
    for case in cases(1500, 11):
        host = _host_check(case.op, {k: v for k, v in case.tensors.items()}, case.args)
        dev = _device_check(case.op, dict(case.tensors), dict(case.args), _all_on_device=True)
        n += 1
        if (host.verdict, [f.code for f in host.findings]) != (dev.verdict, [f.code for f in dev.findings]):
            wrong.append(f"{case.op} {case.args}: host {host.verdict} {[f.code for f in host.findings]} device {dev.verdict} {[f.code for f in dev.findings]}")
    assert n == 1500
    assert not wrong, "\n".join(wrong[:20])


def test_device_path_never_copies_a_valid_tensor(monkeypatch):
    """Valid large tensors stay on the device: only reductions are fetched, in one transfer."""
    from labelguard import _check

    fetched = []
    real_fetch = _check._fetch
    monkeypatch.setattr(_check, "_fetch", lambda ts: fetched.append([tuple(t.shape) for t in ts]) or real_fetch(ts))
    x, t = torch.randn(4, 19, 64, 64), torch.randint(0, 19, (4, 64, 64))
    t[0, 0, 0] = 255
    r = _device_check("cross_entropy", {"input": x, "target": t}, {"ignore_index": 255}, _all_on_device=True)
    assert r.ok
    assert len(fetched) == 1 and all(numel <= 3 for numel in (s[0] if s else 1 for s in fetched[0]))
    t[1, 1, 1] = 40
    r = _device_check("cross_entropy", {"input": x, "target": t}, {"ignore_index": 255}, _all_on_device=True)
    assert r.findings[0].code == "LG101" and r.findings[0].locations[0].index == (1, 1, 1)
    assert len(fetched) == 3  # the reductions, then the real values for the exact finding


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (the CPU-forced test above covers the logic)")
def test_cuda_tensors():  # pragma: no cover - runs where a GPU exists
    x, t = torch.randn(2, 3, device="cuda"), torch.tensor([0, 3], device="cuda")
    assert labelguard.check("cross_entropy", input=x, target=t).findings[0].code == "LG101"


def test_python_dash_m_reaches_the_cli(tmp_path):
    """`python -m labelguard` runs the same commands as the binary, with the same exit codes."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "labelguard", "rule", "LG103"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("LG103 void-label-not-ignored"), out.stderr
    np.savez(tmp_path / "batch.npz", input=np.zeros((2, 3), np.float32), target=np.array([0, 3]))
    out = subprocess.run([sys.executable, "-m", "labelguard", "check", "cross_entropy", str(tmp_path / "batch.npz"), "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 1 and '"code": "LG101"' in out.stdout
    out = subprocess.run([sys.executable, "-m", "labelguard", "check", "nosuchop", str(tmp_path / "batch.npz")], capture_output=True, text=True)
    assert out.returncode == 2 and "unknown op" in out.stderr
    out = subprocess.run([sys.executable, "-m", "labelguard", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "scan" in out.stdout and "diagnose" in out.stdout
