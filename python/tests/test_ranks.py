"""Multi-process jobs (issue 25): a TargetError names its rank, DataLoader worker and sample;
captures go to a folder per rank; and, with real gloo jobs on the CPU under `labelguard run`
(ranks_job.py), the first failing rank is named, a failed rank that would hang ends, and a valid
job's results are the same with and without labelguard."""

import json
import os
import pathlib
import socket
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import labelguard
from labelguard import TargetError

ROOT = pathlib.Path(__file__).resolve().parents[2]
JOB = pathlib.Path(__file__).with_name("ranks_job.py")
#: A job that hangs would wait for its collective's timeout (ranks_job.py: 300 s); this ends the
#: test first.
HANG_LIMIT = 120


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def labelguard_bin() -> str:
    binary = os.environ.get("LABELGUARD_BIN", str(ROOT / "target" / "release" / "labelguard"))
    if not os.path.exists(binary):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "labelguard-cli"], cwd=ROOT, check=True)
    return binary


def torchrun(ranks: int, *args: str) -> list:
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={ranks}", str(JOB), *args]


def run(command: list, *options: str) -> subprocess.CompletedProcess:
    """`command` under `labelguard run` (no options: without labelguard)."""
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    env["NO_COLOR"] = "1"
    if options != ("--no-labelguard",):
        command = [labelguard_bin(), "run", *options, "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=HANG_LIMIT, env=env, cwd=ROOT)


class Labels(torch.utils.data.Dataset):
    """One-hot targets built in __getitem__; sample 5 holds class 7 of 3."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return F.one_hot(torch.tensor(7 if i == 5 else i % 3), 3)


def as_rank(monkeypatch, rank, local_rank, world_size):
    """This process as a launcher's rank (its environment), with the guards on."""
    for name, value in (("RANK", rank), ("LOCAL_RANK", local_rank), ("WORLD_SIZE", world_size)):
        monkeypatch.setenv(name, str(value))
    labelguard.enable()


def test_a_target_error_names_its_rank_and_its_sample(monkeypatch):
    as_rank(monkeypatch, 3, 1, 4)
    with pytest.raises(TargetError) as info:
        for _ in DataLoader(Labels(), batch_size=2):
            pass
    err = info.value
    assert (err.rank, err.local_rank, err.world_size, err.worker, err.sample) == (3, 1, 4, None, 5)
    assert str(err).startswith("one_hot (labelguard) on rank 3 of 4 (local rank 1), sample 5: PyTorch would")
    # In collate_fn the batch's indices are what is known.
    with pytest.raises(TargetError) as info:
        for _ in DataLoader(range(4), batch_size=4, collate_fn=lambda b: F.one_hot(torch.tensor(b), 3)):
            pass
    assert info.value.sample == [0, 1, 2, 3] and "samples [0, 1, 2, 3]" in str(info.value)


def test_a_target_error_from_a_dataloader_worker_keeps_its_rank_worker_and_sample(monkeypatch):
    import pickle

    as_rank(monkeypatch, 1, 1, 2)
    # The worker's exception reaches this process as its text (torch._utils.ExceptionWrapper).
    with pytest.raises(TargetError) as info:
        for _ in DataLoader(Labels(), batch_size=2, num_workers=1):
            pass
    err = info.value
    assert (err.rank, err.local_rank, err.world_size, err.worker, err.sample, err.code) == (1, 1, 2, 0, 5, "LG403")
    again = pickle.loads(pickle.dumps(err))
    assert (again.rank, again.world_size, again.worker, again.sample) == (1, 2, 0, 5)


def test_one_process_says_nothing_about_ranks(monkeypatch):
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setenv("RANK", "0")
    labelguard.enable()
    with pytest.raises(TargetError) as info:
        F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))
    assert info.value.rank is None and str(info.value).startswith("cross_entropy (labelguard): PyTorch would")


def test_capture_keeps_each_rank_apart_and_replay_says_which(tmp_path, monkeypatch):
    monkeypatch.setenv("RANK", "2")
    monkeypatch.setenv("WORLD_SIZE", "4")
    labelguard.enable()
    with pytest.raises(TargetError) as info:
        with labelguard.capture(tmp_path):
            F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))
    path = pathlib.Path(info.value.labelguard_capture)
    assert path.parent == tmp_path / "rank2"
    out = subprocess.run([labelguard_bin(), "replay", str(path), "--color", "never"], capture_output=True, text=True)
    assert out.returncode == 1 and "it came from rank 2 of 4\n" in out.stdout and "LG101" in out.stdout
    meta = json.loads(subprocess.run([labelguard_bin(), "replay", str(path), "--format", "json"], capture_output=True, text=True).stdout)["capture"]
    assert (meta["labelguard.rank"], meta["labelguard.world_size"]) == ("2", "4")


def test_torchrun_names_the_first_failing_rank_ends_and_captures_it(tmp_path):
    # Rank 2 of 3 is refused by the guard and holds a non-daemon thread, so that its process
    # would not end (and ranks 0 and 1 would wait in their allreduce for 300 s).
    out = run(torchrun(3, "--bad-rank", "2", "--hang"), "--capture", str(tmp_path / "cap"))
    assert out.returncode == 1, out.stderr[-3000:]
    assert "labelguard.TargetError: cross_entropy (labelguard) on rank 2 of 3: PyTorch would" in out.stderr
    diagnosis = out.stderr[out.stderr.index("labelguard run: the command failed"):]
    assert diagnosis.splitlines()[2].startswith("rank 2 failed first (TorchElastic's root cause): stderr:")
    assert "error[LG101]" in diagnosis and "warning[LG909]" in diagnosis and "ranks 0, 1 failed because" in diagnosis
    # Only rank 2 failed in a guarded call: its folder holds the call, and replay says so.
    assert sorted(p.name for p in (tmp_path / "cap").iterdir()) == ["rank2"]
    (saved,) = (tmp_path / "cap" / "rank2").iterdir()
    replay = subprocess.run([labelguard_bin(), "replay", str(saved), "--color", "never"], capture_output=True, text=True)
    assert "it came from rank 2 of 3" in replay.stdout and "LG101" in replay.stdout
    # `diagnose` finds the same in the saved output.
    log = tmp_path / "job.log"
    log.write_text(out.stderr[: out.stderr.index("labelguard run: the command failed")])
    doc = json.loads(subprocess.run([labelguard_bin(), "diagnose", str(log), "--format", "json"], capture_output=True, text=True).stdout)
    first = doc["logs"][0]["first_failure"]
    assert (first["rank"], first["how"], first["other_ranks"]) == (2, "elastic-root-cause", [0, 1])
    assert doc["findings"][0]["rank"] == 2 and doc["findings"][0]["code"] == "LG101"


def test_a_dataloader_worker_names_the_rank_worker_and_sample_and_captures_the_call(tmp_path):
    out = run(torchrun(2, "--bad-rank", "1", "--where", "worker", "--workers", "2"), "--capture", str(tmp_path))
    assert out.returncode == 1, out.stderr[-3000:]
    # Sample 11 is in the third batch of 4, which worker 0 loads (batches go round-robin).
    assert "one_hot (labelguard) on rank 1 of 2, DataLoader worker 0, sample 11: PyTorch would" in out.stderr
    assert "rank 1 failed first" in out.stderr and "error[LG403]" in out.stderr
    (saved,) = (tmp_path / "rank1").iterdir()
    replay = subprocess.run([labelguard_bin(), "replay", str(saved), "--color", "never"], capture_output=True, text=True)
    assert "it came from rank 1 of 2, DataLoader worker 0, sample 11" in replay.stdout and "LG403" in replay.stdout


def test_accelerate_launch_names_the_first_failing_rank():
    accelerate = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no"]
    out = run([*accelerate, str(JOB), "--bad-rank", "1"])
    assert out.returncode == 1, out.stderr[-3000:]
    assert "cross_entropy (labelguard) on rank 1 of 2: PyTorch would" in out.stderr
    assert "rank 1 failed first" in out.stderr and "rank 0 failed because another rank failed first" in out.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_mp_spawn_rank_that_would_hang_ends_and_is_captured(tmp_path):
    command = [sys.executable, str(JOB), "--spawn", "2", "--port", str(free_port()), "--bad-rank", "1", "--hang"]
    out = run(command, "--capture", str(tmp_path / "cap"))
    assert out.returncode == 1, out.stderr[-3000:]
    assert "rank 1 failed first" in out.stderr and "on rank 1 of 2" in out.stderr
    # mp.spawn's _wrap catches the rank's exception (no excepthook runs): saved all the same, once.
    assert [p.parent.name for p in (tmp_path / "cap").rglob("*.safetensors")] == ["rank1"]


def test_a_valid_job_gives_the_same_results_with_and_without_labelguard():
    command = torchrun(2, "--workers", "2")
    plain, guarded = run(command, "--no-labelguard"), run(command)
    assert plain.returncode == 0 and guarded.returncode == 0, guarded.stderr[-3000:]
    finals = [sorted(l for l in o.stdout.splitlines() if " final " in l) for o in (plain, guarded)]
    assert len(finals[0]) == 2 and finals[0] == finals[1]
