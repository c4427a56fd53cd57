"""`labelguard run` switches the guards on however torch arrives (issue 42): every import order
and import pattern of real training scripts, driven through `labelguard run` with real
subprocesses, real torch and real transformers/datasets/accelerate. Each script makes one bad
call (a label out of range) at a line marked `# BAD`: the run must stop there with the guard's
error before PyTorch's own, say once that the guards are on (with torch's version), name the
script's line, and close with how many calls the guards checked. A valid twin's printed output
and saved weights are the same with and without `run`.
"""

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIMIT = 300  # seconds for one run (a loaded machine imports torch in several seconds)

ON = f"labelguard run: the guards are on (torch {torch.__version__})"
#: What PyTorch itself raises for the bad call (on the CPU): it must never be reached.
PYTORCH_ERROR = "Target 3 is out of bounds"
BAD_CALL = "F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, 3]))  # BAD"


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def labelguard_bin() -> str:
    binary = os.environ.get("LABELGUARD_BIN", str(ROOT / "target" / "release" / "labelguard"))
    if not os.path.exists(binary):
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "labelguard-cli"], cwd=ROOT, check=True)
    return binary


def env() -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "PYTHONPATH")}
    e.update(NO_COLOR="1", TOKENIZERS_PARALLELISM="false", HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    return e


def run(command: list, cwd: pathlib.Path, guarded: bool = True) -> subprocess.CompletedProcess:
    if guarded:
        command = [labelguard_bin(), "run", "--", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=LIMIT, env=env(), cwd=cwd)


def script(tmp_path: pathlib.Path, body: str, name: str = "train.py") -> pathlib.Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body).lstrip())
    return path


def bad_line(path: pathlib.Path) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if line.rstrip().endswith("# BAD"))


def last_frame(stderr: str) -> str:
    """The last `File ...` line of the first traceback that ends in a TargetError."""
    block = stderr.split("labelguard.TargetError")[0]
    return [line.strip() for line in block.splitlines() if line.strip().startswith("File ")][-1]


def assert_stopped(out: subprocess.CompletedProcess, path: pathlib.Path, traceback_cut: bool = True) -> None:
    """The run stopped at the bad call of `path` with the guard's error, before PyTorch's."""
    err = out.stderr
    assert out.returncode != 0, err
    assert "not reached" not in out.stdout, err
    assert PYTORCH_ERROR not in err, err
    assert "labelguard.TargetError" in err, err
    assert err.count("the guards are on") == 1 and ON in err, err
    line = bad_line(path)
    if traceback_cut:
        assert last_frame(err) == f'File "{path}", line {line}, in <module>' or last_frame(err).startswith(
            f'File "{path}", line {line},'
        ), err
    assert re.search(r"labelguard run: the guards checked [1-9]\d* calls?", err), err


def assert_diagnosed(out: subprocess.CompletedProcess, path: pathlib.Path, code: str = "LG101") -> None:
    diagnosis = out.stderr.split("labelguard run: the command failed")[-1]
    assert f"[{code}]" in diagnosis, out.stderr
    assert f"your code: {path}:{bad_line(path)}" in diagnosis, out.stderr


@pytest.mark.parametrize(
    "first",
    [
        "import transformers",
        "import datasets",
        "import accelerate",
        "import importlib.util\nassert importlib.util.find_spec('torch') is not None",
        "import importlib\ntorch = importlib.import_module('torch')",
    ],
    ids=["transformers-first", "datasets-first", "accelerate-first", "find_spec-probe", "import_module"],
)
def test_the_guards_engage_whatever_imports_torch_first(tmp_path, first):
    path = script(tmp_path, first + "\nimport torch\nimport torch.nn.functional as F\n\n" + BAD_CALL + "\nprint('not reached')\n")
    out = run([sys.executable, str(path)], tmp_path)
    assert_stopped(out, path)
    assert_diagnosed(out, path)


def test_a_lazy_transformers_model_is_guarded_and_the_users_line_named(tmp_path):
    # No `import torch` at all before the model: transformers' _LazyModule imports it.
    path = script(
        tmp_path,
        """
        from transformers import BertConfig, BertForTokenClassification
        import torch

        config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=32, num_labels=3)
        model = BertForTokenClassification(config)
        ids = torch.randint(0, 50, (2, 5))
        labels = torch.tensor([[0, 1, 2, 1, 0], [1, 2, 7, 0, -100]])  # 3 labels: 7 is out of range
        out = model(input_ids=ids, labels=labels)  # BAD
        print("not reached")
        """,
    )
    out = run([sys.executable, str(path)], tmp_path)
    err = out.stderr
    assert out.returncode == 1, err
    assert "Target 7 is out of bounds" not in err and "labelguard.TargetError" in err, err
    assert err.count("the guards are on") == 1 and ON in err, err
    assert_diagnosed(out, path)


def test_python_m_and_runpy(tmp_path):
    path = script(tmp_path, "import torch\nimport torch.nn.functional as F\n" + BAD_CALL + "\n", "pkg/train.py")
    (tmp_path / "pkg" / "__init__.py").write_text("")
    out = run([sys.executable, "-m", "pkg.train"], tmp_path)
    assert_stopped(out, path)
    out = run([sys.executable, "-c", f"import runpy; runpy.run_path({str(path)!r}, run_name='__main__')"], tmp_path)
    assert_stopped(out, path)


@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_spawned_and_forkserver_children(tmp_path, method):
    # The parent never imports torch: only the child does, in a fresh interpreter (spawn) or in
    # a process forked from the fork server.
    path = script(
        tmp_path,
        f"""
        import multiprocessing as mp
        import sys

        def child():
            import torch
            import torch.nn.functional as F
            {BAD_CALL}

        if __name__ == "__main__":
            p = mp.get_context("{method}").Process(target=child)
            p.start()
            p.join()
            sys.exit(p.exitcode)
        """,
    )
    out = run([sys.executable, str(path)], tmp_path)
    # multiprocessing prints the child's traceback itself (traceback.print_exc), past the hooks
    # that cut labelguard's frames.
    assert_stopped(out, path, traceback_cut=False)


def test_dataloader_workers_started_by_spawn(tmp_path):
    path = script(
        tmp_path,
        """
        import torch
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, Dataset

        class Labels(Dataset):
            def __len__(self):
                return 4

            def __getitem__(self, i):
                return F.one_hot(torch.tensor(7 if i == 2 else i % 3), 3)  # BAD

        if __name__ == "__main__":
            for batch in DataLoader(Labels(), batch_size=2, num_workers=1, multiprocessing_context="spawn"):
                print(batch.shape)
        """,
    )
    out = run([sys.executable, str(path)], tmp_path)
    err = out.stderr
    assert out.returncode == 1, err
    assert "Caught TargetError in DataLoader worker process 0" in err, err
    assert "one_hot" in err and "[LG" in err, err
    assert err.count("the guards are on") == 1, err


def test_torchrun_and_accelerate_launch(tmp_path):
    path = script(tmp_path, "import torch\nimport torch.nn.functional as F\n" + BAD_CALL + "\n")
    for launcher in (
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=1", str(path)],
        [sys.executable, "-m", "accelerate.commands.launch", "--cpu", "--num_processes=1", "--num_machines=1",
         "--mixed_precision=no", "--dynamo_backend=no", str(path)],
    ):
        out = run(launcher, tmp_path)
        assert_stopped(out, path)


def test_a_deepspeed_style_launcher_that_never_imports_torch(tmp_path):
    # DeepSpeed's launcher pattern (deepspeed is not installable here): a parent that starts
    # `python -u script.py --local_rank=N` children with the rank in their environment.
    path = script(tmp_path, "import sys\nimport torch\nimport torch.nn.functional as F\n" + BAD_CALL + "\n")
    launcher = script(
        tmp_path,
        f"""
        import os, subprocess, sys
        procs = []
        for rank in range(2):
            env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2")
            procs.append(subprocess.Popen([sys.executable, "-u", {str(path)!r}, f"--local_rank={{rank}}"], env=env))
        sys.exit(max(p.wait() for p in procs))
        """,
        "launch.py",
    )
    out = run([sys.executable, str(launcher)], tmp_path)
    assert_stopped(out, path)
    assert out.stderr.split("labelguard run: the command failed")[0].count("labelguard.TargetError:") == 2, out.stderr
    assert re.search(r"the guards checked [1-9]\d* calls? in 2 processes", out.stderr), out.stderr


VALID_GPT2 = """
import sys
import transformers
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=1, n_head=2)
model = GPT2LMHeadModel(config)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ids = torch.randint(0, 64, (2, 8))
for step in range(2):
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
    print({"step": step, "loss": round(loss.item(), 6)})
torch.save(model.state_dict(), sys.argv[1])
"""


def test_a_valid_twin_prints_and_saves_the_same_with_and_without_run(tmp_path):
    path = script(tmp_path, VALID_GPT2)
    plain = run([sys.executable, str(path), str(tmp_path / "plain.pt")], tmp_path, guarded=False)
    guarded = run([sys.executable, str(path), str(tmp_path / "guarded.pt")], tmp_path)
    assert plain.returncode == 0 and guarded.returncode == 0, plain.stderr + guarded.stderr
    assert guarded.stdout == plain.stdout and "'loss'" in plain.stdout
    assert ON in guarded.stderr, guarded.stderr
    assert re.search(r"the guards checked [1-9]\d* calls", guarded.stderr), guarded.stderr
    a = torch.load(tmp_path / "plain.pt")
    b = torch.load(tmp_path / "guarded.pt")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_enable_cuts_its_own_frames_and_names_the_op_once(tmp_path):
    # Without `run`: labelguard.enable() in the script itself.
    path = script(
        tmp_path,
        """
        import torch
        import torch.nn.functional as F
        import labelguard

        labelguard.enable()
        """
        + BAD_CALL
        + "\n",
    )
    out = run([sys.executable, str(path)], tmp_path, guarded=False)
    err = out.stderr
    assert out.returncode == 1, err
    assert last_frame(err) == f'File "{path}", line {bad_line(path)}, in <module>', err
    assert "labelguard.TargetError: cross_entropy (labelguard): PyTorch would" in err, err


def test_a_refusal_in_a_child_the_command_goes_on_without_is_counted(tmp_path):
    # mnist_hogwild's pattern: trainer processes started with multiprocessing, joined by a parent
    # that exits 0 whatever became of them. The refusal in the child stops that child only; the
    # run's closing summary must still say that a call was refused, never a silent success.
    path = script(
        tmp_path,
        """
        import torch
        import torch.multiprocessing as mp
        import torch.nn.functional as F

        def train():
            F.cross_entropy(torch.randn(4, 3), torch.tensor([0, 1, 2, 3]))  # BAD

        if __name__ == "__main__":
            p = mp.get_context("spawn").Process(target=train)
            p.start()
            p.join()
            print("parent done", p.exitcode)
        """,
    )
    out = run([sys.executable, str(path)], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "parent done 1" in out.stdout, out.stdout
    assert "labelguard.TargetError" in out.stderr and PYTORCH_ERROR not in out.stderr, out.stderr
    assert re.search(r"the guards checked [1-9]\d* calls? in 2 processes and refused 1 \(torch ", out.stderr), out.stderr
    assert "the command exited 0, yet 1 guarded call was refused" in out.stderr, out.stderr
