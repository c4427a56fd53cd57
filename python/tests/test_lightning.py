"""`labelguard.lightning.LabelGuard` in real Lightning fits (lightning and pytorch_lightning), on
the CPU with a tiny model: a bad batch stops the fit at that batch with its epoch, index,
dataloader, samples and the training_step line named, and the failing call saved for replay; a
valid fit's losses are bitwise those of the same fit without the callback; the head is checked
against the datamodule's class count before any step."""

import os
import warnings

import pytest

torch = pytest.importorskip("torch")
L = pytest.importorskip("lightning")
try:
    import pytorch_lightning as pl
except ImportError:  # (requirements-dev.txt pins it; the lightning tests run without it)
    pl = None
import torch.nn.functional as F  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

import labelguard  # noqa: E402
from labelguard.lightning import LabelGuard  # noqa: E402

BAD = 9  # the sample with a label beyond the 3 classes
LOSS_LINE = None  # set below: the line of training_step that computes the loss


class _Classifier:
    def __init__(self, classes=3):
        super().__init__()
        self.body = torch.nn.Linear(4, 8)
        self.head = torch.nn.Linear(8, classes)
        self.losses = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.head(torch.relu(self.body(x))), y)  # LOSS_LINE
        self.losses.append(loss.detach().clone())
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


# The same module for each package (each Trainer takes only its own package's LightningModule).
Classifier = type("Classifier", (_Classifier, L.LightningModule), {})
CLASSIFIER = {L: Classifier, **({pl: type("Classifier", (_Classifier, pl.LightningModule), {})} if pl else {})}
LOSS_LINE = next(i for i, line in enumerate(open(__file__), 1) if line.rstrip().endswith("# LOSS_LINE"))


def data(bad=None):
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(16, 4, generator=g), torch.randint(0, 3, (16,), generator=g)
    if bad is not None:
        y[bad] = 5
    return TensorDataset(x, y)


def trainer(module, root, callbacks=(), **kw):
    warnings.filterwarnings("ignore", message=".*(does not have many workers|LeafSpec|litlogger).*")
    kw.setdefault("max_epochs", 2)
    return module.Trainer(accelerator="cpu", devices=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                          enable_model_summary=False, default_root_dir=str(root), callbacks=list(callbacks), **kw)


@pytest.mark.parametrize("package", [L, pytest.param(pl, marks=pytest.mark.skipif(pl is None, reason="pytorch_lightning is not installed"))],
                         ids=["lightning", "pytorch_lightning"])
def test_a_bad_batch_stops_the_fit_at_that_batch_naming_it(package, tmp_path):
    model = CLASSIFIER[package]()
    with pytest.raises(labelguard.TargetError) as caught:
        trainer(package, tmp_path, [LabelGuard()]).fit(model, DataLoader(data(bad=BAD), batch_size=4))
    err = caught.value
    text = str(err)
    assert err.code == "LG101"
    # Unshuffled, batch size 4: sample 9 is in batch 2 of epoch 0, the third step.
    assert "in Lightning's fit: epoch 0, batch 2, dataloader train, global step 2, samples [8, 9, 10, 11]" in text
    assert f"training_step at {__file__}:{LOSS_LINE}" in text
    assert err.sample == [8, 9, 10, 11] and len(model.losses) == 2
    assert err.training == {"trainer": "Lightning's fit", "epoch": 0, "batch": 2, "dataloader": "train", "global step": 2}
    # The failing call is saved under the trainer's log dir, and replays to the same finding.
    path = err.labelguard_capture
    assert os.path.dirname(path) == os.path.join(str(tmp_path), "labelguard") and os.path.exists(path)
    assert [f.code for f in labelguard.replay(path).findings] == ["LG101"]
    assert not labelguard.is_enabled()


def test_the_samples_named_are_the_shuffled_batchs(tmp_path):
    torch.manual_seed(3)
    with pytest.raises(labelguard.TargetError) as caught:
        trainer(L, tmp_path, [LabelGuard(capture_dir=False)]).fit(Classifier(), DataLoader(data(bad=BAD), batch_size=4, shuffle=True))
    err = caught.value
    row = err.findings[0].locations[0].index[0]  # the bad target's row in the batch
    assert len(err.sample) == 4 and err.sample[row] == BAD
    assert not hasattr(err, "labelguard_capture")


def fitted_losses(callbacks, tmp_path):
    L.seed_everything(7, verbose=False)
    model = Classifier()
    loader = DataLoader(data(), batch_size=4, shuffle=True)
    trainer(L, tmp_path, callbacks).fit(model, loader)
    return model.losses, [p.detach().clone() for p in model.parameters()]


def test_a_valid_fit_is_bitwise_the_same_with_the_callback(tmp_path):
    plain_losses, plain_weights = fitted_losses([], tmp_path / "plain")
    guarded_losses, guarded_weights = fitted_losses([LabelGuard()], tmp_path / "guarded")
    assert len(plain_losses) == 8
    assert len(plain_losses) == len(guarded_losses) and all(torch.equal(a, b) for a, b in zip(plain_losses, guarded_losses))
    assert len(plain_weights) == len(guarded_weights) and all(torch.equal(a, b) for a, b in zip(plain_weights, guarded_weights))
    assert not labelguard.is_enabled()


def test_the_previous_guards_are_restored_after_the_fit(tmp_path):
    labelguard.enable(mode="warn", ops=["cross_entropy"])
    trainer(L, tmp_path, [LabelGuard()]).fit(Classifier(), DataLoader(data(), batch_size=4))
    assert labelguard.is_enabled()
    # Back in warn mode, cross_entropy wrapped: a warning, then PyTorch's own error.
    with pytest.warns(labelguard.TargetWarning), pytest.raises(IndexError):
        F.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 7]))
    assert torch.nn.functional.nll_loss.__name__ == "nll_loss" and not hasattr(torch.nn.functional.nll_loss, "__labelguard_original__")


class Data(L.LightningDataModule):
    def __init__(self, num_classes):
        super().__init__()
        self.num_classes = num_classes

    def train_dataloader(self):
        return DataLoader(data(), batch_size=4)


def test_a_head_smaller_than_the_datamodules_classes_stops_before_any_step(tmp_path):
    model = Classifier(classes=3)
    with pytest.raises(labelguard.TargetError) as caught:
        trainer(L, tmp_path, [LabelGuard()]).fit(model, datamodule=Data(num_classes=5))
    assert caught.value.code == "LG812" and model.losses == []
    assert "Classifier.head (3 outputs) against Data.num_classes = 5" in str(caught.value)
    assert not labelguard.is_enabled()
    # The same head with the classes it has: the fit runs.
    model = Classifier(classes=3)
    trainer(L, tmp_path, [LabelGuard()], max_epochs=1).fit(model, datamodule=Data(num_classes=3))
    assert len(model.losses) == 4


@pytest.mark.slow
def test_a_ddp_fit_names_the_rank_and_saves_under_it(tmp_path):
    """Two CPU processes (ddp_spawn, gloo): the rank whose batch holds sample 9 refuses it, names
    itself, its samples and its training_step line, and saves the call under rank{N}/."""
    import pathlib
    import re
    import subprocess
    import sys

    job = pathlib.Path(__file__).with_name("lightning_ddp_job.py")
    package = os.path.dirname(os.path.dirname(labelguard.__file__))
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    env["PYTHONPATH"] = os.pathsep.join([package, env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, str(job), "ddp_spawn", str(tmp_path)], capture_output=True, text=True, timeout=400, env=env)
    assert done.returncode != 0
    found = re.search(r"cross_entropy \(labelguard\) on rank (\d) of 2: .*?\n.*?first: target\[(\d+)\] = 5.*?"
                      r"in Lightning's fit: epoch 0, batch (\d+), dataloader train, global step \d+, samples \[([\d, ]+)\]\n"
                      r"  training_step at (.*?):(\d+)", done.stderr, re.S)
    assert found, done.stderr[-4000:]
    rank, row, samples = int(found[1]), int(found[2]), [int(s) for s in found[4].split(", ")]
    assert samples[row] == 9
    loss_line = next(i for i, line in enumerate(open(job), 1) if line.rstrip().endswith("# LOSS_LINE"))
    assert (found[5], int(found[6])) == (str(job), loss_line)
    saved = list((tmp_path / "labelguard" / f"rank{rank}").glob("*.safetensors"))
    assert len(saved) == 1 and [f.code for f in labelguard.replay(str(saved[0])).findings] == ["LG101"]


class Stream(torch.utils.data.IterableDataset):
    def __iter__(self):
        dataset = data(bad=BAD)
        return (dataset[i] for i in range(len(dataset)))


def test_a_stream_without_indices_says_the_samples_are_not_known(tmp_path):
    with pytest.raises(labelguard.TargetError) as caught:
        trainer(L, tmp_path, [LabelGuard(capture_dir=False)]).fit(Classifier(), DataLoader(Stream(), batch_size=4))
    assert "in Lightning's fit: epoch 0, batch 2, dataloader train, global step 2, samples not known" in str(caught.value)
    assert caught.value.sample is None
