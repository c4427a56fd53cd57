"""capture(): the failing call is saved; replay (Python and CLI) reruns its checks offline."""

import os
import pathlib
import subprocess

import pytest
import torch
import torch.nn.functional as F

import labelguard
from labelguard import TargetError

ROOT = pathlib.Path(__file__).resolve().parents[2]


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def test_capture_then_replay(tmp_path):
    labelguard.enable()
    with pytest.raises(TargetError) as info:
        with labelguard.capture(tmp_path):
            F.cross_entropy(torch.randn(2, 19, 3, 3), torch.full((2, 3, 3), 255), reduction="sum")
    path = info.value.labelguard_capture
    assert os.path.dirname(path) == str(tmp_path) and path.endswith(".safetensors")
    report = labelguard.replay(path)
    assert report.verdict == "device_assert" and report.findings[0].code == "LG103"
    # The same file through the CLI: `labelguard replay` and `labelguard check`.
    binary = os.environ.get("LABELGUARD_BIN", str(ROOT / "target" / "release" / "labelguard"))
    if not os.path.exists(binary):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "labelguard-cli"], cwd=ROOT, check=True)
    out = subprocess.run([binary, "replay", path, "--color", "never"], capture_output=True, text=True)
    assert out.returncode == 1 and "LG103" in out.stdout and "reduction='sum'" in out.stdout
    out = subprocess.run([binary, "check", "cross_entropy", path, "--color", "never"], capture_output=True, text=True)
    assert out.returncode == 1 and "LG103" in out.stdout


def test_capture_as_decorator_saves_the_batch_of_a_cuda_error(tmp_path):
    @labelguard.capture(tmp_path)
    def step(batch):
        raise RuntimeError("CUDA error: device-side assert triggered")

    with pytest.raises(RuntimeError) as info:
        step({"image": torch.zeros(1, 3, 2, 2), "mask": torch.ones(1, 2, 2, dtype=torch.long)})
    path = info.value.labelguard_capture
    from safetensors.torch import load_file

    saved = load_file(path)
    assert set(saved) == {"batch.image", "batch.mask"}
    assert torch.equal(saved["batch.mask"], torch.ones(1, 2, 2, dtype=torch.long))
    with pytest.raises(ValueError, match="not a labelguard capture"):
        labelguard.replay(path)


def test_nothing_is_saved_without_an_error(tmp_path):
    with labelguard.capture(tmp_path):
        F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 1]))
    assert list(tmp_path.iterdir()) == []
