"""timm's `train.py` on an ImageFolder tree with one class folder too many (issue 42's sweep of
public scripts): `--num-classes 3` and a 4th folder, so the labels reach 3. timm's default loss,
`LabelSmoothingCrossEntropy`, gathers the log-probabilities at the labels, and PyTorch's own
`gather` raises `index 3 is out of bounds for dimension 1 with size 3` (a device-side assert on
CUDA). Under `labelguard run` the guard must stop the script at its own line first, with the
rule of a label beyond the class count: on main it said LG104 "the labels are 1-based, subtract
one" because a batch of 4 labels (2, 2, 3, 3) held no 0, a fix that would have shifted every
class. `labelguard scan` names the extra folder; the valid twin (3 folders) scans clean and trains
to the same printed losses and byte-identical weights with and without `run`.

The script below is written in the image of timm's `train.py` (timm's own `create_dataset`,
`create_transform`, `create_model` and `LabelSmoothingCrossEntropy`); it is not timm's code.
"""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest
from scanning import file_findings, scan_json

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")
Image = pytest.importorskip("PIL.Image")

# torch and timm (requirements-dev.txt): not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow

LIMIT = 300  # seconds for one run (a loaded machine imports torch and timm in several seconds)
PYTORCH_ERROR = "index 3 is out of bounds for dimension 1 with size 3"

SCRIPT = """
import sys
import torch
from timm.data import create_dataset, create_transform
from timm.loss import LabelSmoothingCrossEntropy
from timm.models import create_model

torch.manual_seed(0)
dataset = create_dataset("", root=sys.argv[1], split="train", is_training=False)
dataset.transform = create_transform(32, is_training=False)
# In class order (timm shuffles): the first batch that holds label 3 is 2, 2, 3, 3, with no 0.
loader = torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=False)
model = create_model("resnet18", pretrained=False, num_classes=3)
loss_fn = LabelSmoothingCrossEntropy(smoothing=0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for step, (images, target) in enumerate(loader):
    loss = loss_fn(model(images), target)  # BAD
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.6f}")
torch.save(model.state_dict(), sys.argv[2])
"""


def image_folder(root: pathlib.Path, classes: list) -> pathlib.Path:
    """root/train/<class>/<n>.jpg: 6 smooth 32x32 "photos" a class, one hue each."""
    for ci, name in enumerate(classes):
        folder = root / "train" / name
        folder.mkdir(parents=True)
        for k in range(6):
            colour = (40 + 50 * ci, 200 - 40 * ci, 60 + 10 * k)
            Image.new("RGB", (32, 32), colour).save(folder / f"{k}.jpg", quality=90)
    return root


def env() -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "PYTHONPATH")}
    e.update(NO_COLOR="1", HF_HUB_OFFLINE="1")
    return e


def train(labelguard, tmp_path, data, guarded):
    """The script on `data`, plain or under `labelguard run`; its weights go to plain/ or run/
    (one file name: torch.save names the archive's records after it)."""
    weights = tmp_path / ("run" if guarded else "plain") / "model.pt"
    weights.parent.mkdir(exist_ok=True)
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(SCRIPT).lstrip())
    command = [sys.executable, str(script), str(data), str(weights)]
    if guarded:
        command = [labelguard, "run", "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=LIMIT, env=env(), cwd=tmp_path)


def bad_line(script: pathlib.Path) -> int:
    return next(i for i, line in enumerate(script.read_text().splitlines(), 1) if line.rstrip().endswith("# BAD"))


def test_a_fourth_class_folder_is_stopped_at_the_scripts_line_as_a_class_count_not_one_based(labelguard, tmp_path):
    data = image_folder(tmp_path / "data", ["alpha", "beta", "gamma", "delta"])
    # The truth: PyTorch's own gather refuses the batch that holds label 3.
    plain = train(labelguard, tmp_path, data, guarded=False)
    assert plain.returncode != 0 and PYTORCH_ERROR in plain.stderr, plain.stderr

    out = train(labelguard, tmp_path, data, guarded=True)
    err = out.stderr
    assert out.returncode != 0, err
    assert "the guards are on" in err, err
    assert PYTORCH_ERROR not in err, err
    refusal = err.split("labelguard.TargetError")[1].split("labelguard run:")[0]
    assert "[LG101]" in refusal or "[LG416]" in refusal, refusal
    assert "[LG104]" not in refusal and "1-based" not in refusal and "labels - 1" not in refusal, refusal
    assert f"your code: train.py:{bad_line(tmp_path / 'train.py')}" in refusal, refusal
    assert not (tmp_path / "run" / "model.pt").exists()

    # The scan names the folder beyond the class count.
    report = scan_json(labelguard, data, "--num-classes", "3")
    assert report["summary"]["errors"] == 1, report["summary"]
    assert [(f["path"], x["code"]) for f, x in file_findings(report)] == [(f"{data}/train", "LG101")], report


def test_the_valid_twin_scans_clean_and_trains_identically_under_run(labelguard, tmp_path):
    data = image_folder(tmp_path / "data", ["alpha", "beta", "gamma"])
    report = scan_json(labelguard, data, "--num-classes", "3")
    assert report["summary"]["status"] == "ok" and report["summary"]["files_scanned"] == 18, report["summary"]
    plain = train(labelguard, tmp_path, data, guarded=False)
    guarded = train(labelguard, tmp_path, data, guarded=True)
    assert plain.returncode == 0 and guarded.returncode == 0, (plain.stderr, guarded.stderr)
    assert "the guards are on" in guarded.stderr, guarded.stderr
    assert plain.stdout == guarded.stdout and plain.stdout.count("loss") == 5, plain.stdout
    assert (tmp_path / "plain" / "model.pt").read_bytes() == (tmp_path / "run" / "model.pt").read_bytes()
