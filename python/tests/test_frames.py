"""Always both frames: every TargetError and TargetWarning raised under enable() names the user's
frame that led to the bad call and the library call (`your code: train.py:42 → kornia one_hot →
one_hot`), and `err.call_site` holds both, whatever the path: a plain call, a library that
labelguard has no entry for, module hooks (forward, pre-forward, full backward), trainers'
callbacks (Lightning's training_step, the HF Trainer's loss), DataLoader workers (across the
process boundary), exec'd and notebook code (eager and torch.compile'd), a program run with
`python -m` from site-packages, a script inside a library's checkout, and a library's command
line, where no frame of the user's exists (said so in the message). Real libraries drive the
calls (random-init tiny models, data made here, no downloads)."""

import os
import pickle
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch
import torch.nn.functional as F

import labelguard
from labelguard import TargetError, TargetWarning
from library_checks import refusal

HERE = os.path.basename(__file__)


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def line_with(marker: str) -> int:
    """The line of this file that ends with `# at: marker` (where the user's frame must be)."""
    with open(__file__) as f:
        lines = [i for i, text in enumerate(f, 1) if text.rstrip().endswith(f"# at: {marker}")]
    assert len(lines) == 1, marker
    return lines[0]


def your_code(err) -> str:
    """The message's `your code: ...` line."""
    return next(line for line in str(err).splitlines() if line.startswith("your code:"))


def assert_names(err, marker: str, chain: str, file: str = __file__) -> None:
    """The message names the user's line (`marker`) and the library call `chain` (`kornia
    one_hot → one_hot`), and `err.call_site` holds the same user frame."""
    line = line_with(marker) if file == __file__ else marker
    text = str(err)
    assert err.call_site is not None and err.call_site.user is not None, text
    assert (os.path.realpath(err.call_site.user[0]), err.call_site.user[1]) == (os.path.realpath(file), line), text
    assert f"your code: {os.path.basename(file)}:{line} → {chain}" in text, text


# --- libraries that labelguard has no entry for: named by their package ---------------------


def test_kornia_one_hot_names_the_users_line_and_kornia():
    import kornia

    labels = torch.tensor([[0, 1], [2, 3]])  # 3 with 3 classes
    err = refusal(lambda: kornia.losses.one_hot(labels, num_classes=3, device=torch.device("cpu"), dtype=torch.float32))  # at: kornia
    assert err.code == "LG416"  # the labels reach C: one class more than one_hot's width (issue 22's causes)
    assert_names(err, "kornia", "kornia one_hot → one_hot")
    assert [f.library for f in err.call_site.library] == ["kornia"]


@pytest.mark.parametrize("name, op", [("ArcFaceLoss", "index_put"), ("NormalizedSoftmaxLoss", "cross_entropy")])
def test_metric_learning_raw_class_ids_name_the_users_line_and_the_loss(name, op):
    from pytorch_metric_learning import losses

    torch.manual_seed(0)
    loss = getattr(losses, name)(num_classes=5, embedding_size=8)  # the second calls an nn.CrossEntropyLoss
    embeddings, labels = torch.randn(6, 8), torch.tensor([0, 1, 2, 7, 1, 0])  # raw id 7 of 5 classes
    err = refusal(lambda: loss(embeddings, labels))  # at: metric learning
    assert_names(err, "metric learning", "pytorch_metric_learning ")
    assert err.call_site.library[-1].function.endswith("forward"), err.call_site.library
    assert your_code(err).endswith(f"→ {op}"), str(err)


def test_a_direct_call_names_the_users_line():
    err = refusal(lambda: F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3])))  # at: direct
    assert_names(err, "direct", "cross_entropy")
    assert err.call_site.library == ()


# --- module hooks --------------------------------------------------------------------------


def bad_one_hot(*_):
    return F.one_hot(torch.tensor([5]), 3)  # at: hook


def test_forward_hooks_name_the_hooks_line():
    for register in ("register_forward_hook", "register_forward_pre_hook"):
        layer = torch.nn.Linear(3, 3)
        getattr(layer, register)(bad_one_hot)
        err = refusal(lambda: layer(torch.randn(1, 3)))
        assert_names(err, "hook", "one_hot")


def test_a_library_called_from_a_forward_hook_names_the_hook_and_the_library():
    import kornia

    def hook(module, inputs, output):
        return kornia.losses.one_hot(torch.tensor([[4]]), num_classes=3, device=output.device, dtype=output.dtype)  # at: kornia hook

    layer = torch.nn.Linear(3, 3)
    layer.register_forward_hook(hook)
    assert_names(refusal(lambda: layer(torch.randn(1, 3))), "kornia hook", "kornia one_hot → one_hot")


def test_a_full_backward_hook_names_the_hooks_line():
    layer = torch.nn.Linear(3, 3)
    layer.register_full_backward_hook(bad_one_hot)
    x = torch.randn(1, 3, requires_grad=True)
    assert_names(refusal(lambda: layer(x).sum().backward()), "hook", "one_hot")


# --- trainers' callbacks -------------------------------------------------------------------


def lightning_module(metric: bool):
    import lightning

    class Classifier(lightning.LightningModule):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.Linear(4, 3)
            if metric:
                from torchmetrics.classification import MulticlassAveragePrecision

                self.metric = MulticlassAveragePrecision(num_classes=3, thresholds=5, validate_args=False)

        def training_step(self, batch, batch_idx):
            x, y = batch
            logits = self.layer(x)
            if metric:
                self.metric(logits.softmax(-1), y)  # at: lightning metric
            return F.cross_entropy(logits, y)  # at: lightning loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    return Classifier()


def fit_lightning(tmp_path, metric: bool):
    import lightning

    torch.manual_seed(0)
    x, y = torch.randn(8, 4), torch.tensor([0, 1, 2, 0, 1, 2, 0, 3])  # 3 with 3 classes
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    trainer = lightning.Trainer(max_steps=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                                enable_progress_bar=False, enable_model_summary=False, default_root_dir=str(tmp_path))
    return refusal(lambda: trainer.fit(lightning_module(metric), loader))


def test_lightning_training_step_is_the_users_frame_not_lightnings_loop(tmp_path):
    err = fit_lightning(tmp_path, metric=False)
    assert_names(err, "lightning loss", "cross_entropy")
    assert err.call_site.library == ()  # Lightning's loop is outside: the user's method is innermost


def test_lightning_with_torchmetrics_names_the_training_step_and_the_metric(tmp_path):
    err = fit_lightning(tmp_path, metric=True)
    assert_names(err, "lightning metric", "torchmetrics ")
    assert "→ one_hot" in str(err) and err.call_site.library[-1].library == "torchmetrics"


def hf_trainer(tmp_path, trainer_class):
    import transformers

    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=32, num_labels=2)
    model = transformers.BertForSequenceClassification(config)
    rows = [{"input_ids": torch.randint(0, 50, (8,)), "labels": torch.tensor(i % 3)} for i in range(4)]  # label 2 of 2
    args = transformers.TrainingArguments(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=4,
                                          report_to=[], use_cpu=True, save_strategy="no", disable_tqdm=True)
    return trainer_class(model=model, args=args, train_dataset=rows)


def test_hf_trainer_with_the_models_own_loss_names_the_train_call_and_the_model(tmp_path):
    import transformers

    trainer = hf_trainer(tmp_path, transformers.Trainer)
    err = refusal(lambda: trainer.train())  # at: hf train
    assert_names(err, "hf train", "transformers BertForSequenceClassification.forward → cross_entropy")
    assert "(the call entered transformers at Trainer.train)" in str(err), str(err)


def test_hf_trainer_with_the_users_compute_loss_names_compute_loss(tmp_path):
    import transformers

    class MyTrainer(transformers.Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            labels = inputs.pop("labels")
            logits = model(**inputs).logits
            return F.cross_entropy(logits, labels)  # at: compute_loss

    trainer = hf_trainer(tmp_path, MyTrainer)
    err = refusal(lambda: trainer.train())
    assert_names(err, "compute_loss", "cross_entropy")


# --- DataLoader workers: across the process boundary ---------------------------------------


class OneHotDataset(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return F.one_hot(torch.tensor(i + 1), 4)  # at: dataset


def bad_collate(batch):
    return F.one_hot(torch.stack(batch), 3)  # at: collate


def test_a_worker_error_names_the_users_dataset_line_after_crossing_the_process_boundary():
    for dataset, collate, marker in ((OneHotDataset(), None, "dataset"), (list(range(4)), lambda b: bad_collate([torch.tensor(v) for v in b]), "collate")):
        loader = torch.utils.data.DataLoader(dataset, batch_size=4, num_workers=1, collate_fn=collate)
        err = refusal(lambda: list(loader))
        assert "DataLoader worker process 0" in str(err)  # rebuilt in this process from the worker's text
        assert_names(err, marker, "one_hot")
        assert err.worker == 0


def test_a_target_error_and_its_call_site_survive_pickling():
    err = refusal(lambda: F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3])))  # at: pickled
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) and again.code == err.code
    assert again.call_site == err.call_site
    assert_names(again, "pickled", "cross_entropy")


# --- warnings ------------------------------------------------------------------------------


def test_a_warning_names_both_frames_and_carries_the_call_site():
    import kornia

    labelguard.enable(mode="warn")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", TargetWarning)
            try:
                kornia.losses.one_hot(torch.tensor([[3]]), num_classes=3, device=torch.device("cpu"), dtype=torch.float32)  # at: warned
            except RuntimeError:
                pass  # torch's own error, once the warning is given
    finally:
        labelguard.disable()
    warned = [w for w in caught if issubclass(w.category, TargetWarning)]
    assert len(warned) == 1, [str(w.message) for w in caught]
    assert (os.path.basename(warned[0].filename), warned[0].lineno) == (HERE, line_with("warned"))
    assert_names(warned[0].message, "warned", "kornia one_hot → one_hot")


# --- exec'd and notebook code --------------------------------------------------------------

EXECED = "import torch, torch.nn.functional as F\ndef step(y):\n    return F.cross_entropy(torch.randn(2, 3), y)\n"


@pytest.mark.parametrize("filename", ["<string>", "<ipython-input-3-0123456789ab>"])
@pytest.mark.parametrize("compiled", [False, True])
def test_execd_code_is_the_users_frame(filename, compiled):
    scope: dict = {}
    exec(compile(EXECED, filename, "exec"), scope)
    step = torch.compile(scope["step"], backend="eager") if compiled else scope["step"]
    torch._dynamo.reset()
    err = refusal(lambda: step(torch.tensor([0, 3])))
    assert err.call_site.user == (filename, 3), str(err)
    assert f"your code: {filename}:3 → cross_entropy" in str(err), str(err)


# --- how the user's code is run: python -m from site-packages, a library's checkout, a CLI --

BAD_STEP = """\
import torch, torch.nn.functional as F
def main():
    return F.one_hot(torch.tensor([0, 3]), 3)
"""

REPORT = """\
import json, labelguard
labelguard.enable()
try:
    {call}
except labelguard.TargetError as err:
    print(json.dumps({{"text": str(err), "user": err.call_site.user, "library": [f.library for f in err.call_site.library]}}))
"""


def run_child(args, cwd, env=None):
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    import json

    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_package_in_site_packages_run_with_python_m_is_the_users_code(tmp_path):
    site = tmp_path / "lib" / "site-packages"  # where pip would install it
    (site / "mytrainer").mkdir(parents=True)
    (site / "mytrainer" / "__init__.py").write_text("")
    (site / "mytrainer" / "steps.py").write_text(BAD_STEP)
    (site / "mytrainer" / "train.py").write_text(REPORT.format(call="from mytrainer.steps import main; main()"))
    path = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    out = run_child([sys.executable, "-m", "mytrainer.train"], tmp_path, {"PYTHONPATH": path})
    assert out["user"] == [str(site / "mytrainer" / "steps.py"), 3], out
    assert "your code: steps.py:3 → one_hot" in out["text"], out["text"]


def test_a_script_inside_a_librarys_checkout_is_the_users_and_the_library_is_the_librarys(tmp_path):
    import shutil

    import segmentation_models_pytorch

    checkout = tmp_path / "smp-checkout"
    shutil.copytree(os.path.dirname(segmentation_models_pytorch.__file__), checkout / "segmentation_models_pytorch")
    (checkout / "examples").mkdir()
    call = ("sys.path.insert(0, {root!r}); import segmentation_models_pytorch as smp; assert smp.__file__.startswith({root!r}); "
            "smp.losses.DiceLoss('multiclass')(torch.randn(1, 3, 2, 2), torch.tensor([[[0, 1], [2, 3]]]))").format(root=str(checkout))
    (checkout / "examples" / "train.py").write_text("import sys, torch\n" + REPORT.format(call=call))
    out = run_child([sys.executable, "examples/train.py"], checkout)
    assert out["user"] == [str(checkout / "examples" / "train.py"), 5], out
    assert out["library"] and set(out["library"]) == {"segmentation_models_pytorch"}, out
    assert "your code: train.py:5 → segmentation_models_pytorch " in out["text"], out["text"]


def test_a_librarys_command_line_has_no_user_frame_and_says_so(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = next(venv.glob("lib/python*/site-packages"))
    # This interpreter's packages (torch, labelguard) seen from the new environment.
    (site / "_parent.pth").write_text("\n".join(p for p in sys.path if p and os.path.isdir(p)))
    (site / "traintool").mkdir()
    (site / "traintool" / "steps.py").write_text(BAD_STEP)
    (site / "traintool" / "__init__.py").write_text("def main():\n" + textwrap.indent(REPORT.format(call="from traintool.steps import main; main()"), "    "))
    # A console script as pip writes it (the entry point `traintool = traintool:main`).
    launcher = venv / "bin" / "traintool"
    launcher.write_text(f"#!{venv / 'bin' / 'python'}\nimport re\nimport sys\nfrom traintool import main\nif __name__ == '__main__':\n    sys.exit(main())\n")
    out = run_child([str(venv / "bin" / "python"), str(launcher)], tmp_path, {"PYTHONPATH": ""})
    assert out["user"] is None, out
    assert set(out["library"]) == {"traintool"}, out
    assert "your code: none (the whole call came from traintool, run as traintool) → traintool main → one_hot" in out["text"], out["text"]


def test_a_described_call_site_reads_back_from_its_text():
    from labelguard._callsite import CallSite, LibraryFrame

    frames = (LibraryFrame("transformers", "BertEmbeddings.forward", "x"), LibraryFrame("transformers", "BertModel.forward", "y"))
    for site in (
        CallSite("embedding", ("/w/my train.py", 42), frames, "call model.resize_token_embeddings(len(tokenizer))", ("peft",)),
        CallSite("cross_entropy", ("<ipython-input-3-ab>", 2), (), None),
        CallSite("one_hot", None, frames[:1], None, (), "traintool"),
        CallSite("one_hot", None, (), None),
    ):
        back = CallSite.parse("Caught TargetError in DataLoader worker process 0.\n" + "[LG101] ...\n" + site.describe() + "\n")
        assert back is not None, site.describe()
        assert (back.op, back.user, back.through, back.fix, back.program) == (site.op, site.user, site.through, site.fix, site.program), site.describe()
        assert [f.function for f in back.library] == [f.function for f in (site.library[:1] + site.library[-1:] if len(site.library) > 1 else site.library)]


def test_a_compiled_call_into_a_library_without_an_entry_names_the_users_line_and_the_library():
    import kornia

    def step(labels):
        return kornia.losses.one_hot(labels, num_classes=3, device=labels.device, dtype=torch.float32).sum()  # at: compiled kornia

    compiled = torch.compile(step, backend="eager")
    torch._dynamo.reset()
    err = refusal(lambda: compiled(torch.tensor([[0, 1], [2, 3]])))
    assert_names(err, "compiled kornia", "kornia one_hot → one_hot")


# --- the user's line is the last frame of a refusal the user's code catches -----------------
# (issues 41 and 42: `traceback.print_exc()`, `logging.exception`, trainers' handlers and
# DataLoader workers print the traceback of a caught error; its last frame is the user's line)


def functional_cross_entropy():
    return F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))  # at: caught cross_entropy


def functional_embedding():
    return F.embedding(torch.tensor([1, 4]), torch.randn(4, 2))  # at: caught embedding


def functional_gather():
    return torch.gather(torch.randn(3, 4), 1, torch.tensor([[4], [0], [1]]))  # at: caught torch.gather


def method_gather():
    return torch.randn(3, 4).gather(1, torch.tensor([[4], [0], [1]]))  # at: caught Tensor.gather


def method_scatter():
    return torch.zeros(3, 4).scatter_(1, torch.tensor([[4], [0], [1]]), 1.0)  # at: caught Tensor.scatter_


def indexing():
    return torch.randn(3, 4)[torch.tensor([0, 5])]  # at: caught indexing


def module_cross_entropy():
    return torch.nn.CrossEntropyLoss()(torch.randn(2, 3), torch.tensor([0, 3]))  # at: caught nn.CrossEntropyLoss


def module_embedding():
    return torch.nn.Embedding(4, 2)(torch.tensor([1, 4]))  # at: caught nn.Embedding


CAUGHT = {
    "cross_entropy": functional_cross_entropy,
    "embedding": functional_embedding,
    "torch.gather": functional_gather,
    "Tensor.gather": method_gather,
    "Tensor.scatter_": method_scatter,
    "indexing": indexing,
    "nn.CrossEntropyLoss": module_cross_entropy,
    "nn.Embedding": module_embedding,
}

PACKAGE = os.path.dirname(labelguard.__file__) + os.sep


def caught_by_the_user(fn):
    """The TargetError of fn() under enable(), caught by an `except` of the user's (this frame)."""
    labelguard.enable()
    try:
        fn()
    except TargetError as err:
        return err
    finally:
        labelguard.disable()
    raise AssertionError(f"{fn.__name__}: no TargetError")


def assert_last_frame_is_the_users(frames, fn, marker):
    """The last frame is the user's line (file, line, function); before it, at most the one frame
    of labelguard's wrapper (a Python function always leaves its frame in a traceback): none of
    the check's frames."""
    assert (frames[-1].filename, frames[-1].lineno, frames[-1].name) == (__file__, line_with(marker), fn.__name__), frames
    own = [f.name for f in frames if f.filename.startswith(PACKAGE)]
    assert len(own) <= 1 and not any(name in ("judge", "check_or_raise", "report_or_raise") for name in own), frames


@pytest.mark.parametrize("case", sorted(CAUGHT))
def test_a_caught_refusal_ends_at_the_users_line(case):
    import traceback

    fn = CAUGHT[case]
    err = caught_by_the_user(fn)
    assert_last_frame_is_the_users(traceback.extract_tb(err.__traceback__), fn, "caught " + case)
    assert err.call_site.user == (__file__, line_with("caught " + case)), str(err)
    # What a handler prints (traceback.print_exc, logging.exception): the user's line last.
    printed = "".join(traceback.format_exception(type(err), err, err.__traceback__)).splitlines()
    last = max(i for i, text in enumerate(printed) if text.startswith("  File "))
    assert printed[last : last + 2] == [f'  File "{__file__}", line {line_with("caught " + case)}, in {fn.__name__}',
                                        "    " + open(__file__).read().splitlines()[line_with("caught " + case) - 1].strip()], printed


@pytest.mark.parametrize("case", ["cross_entropy", "Tensor.gather", "indexing", "nn.CrossEntropyLoss"])
def test_a_refusal_caught_in_a_thread_ends_at_the_users_line(case):
    import threading
    import traceback

    fn, out = CAUGHT[case], {}

    def run():
        try:
            fn()
        except TargetError as err:
            out["frames"] = traceback.extract_tb(err.__traceback__)

    labelguard.enable()
    try:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(60)
    finally:
        labelguard.disable()
    assert_last_frame_is_the_users(out["frames"], fn, "caught " + case)


class CaughtDataset(torch.utils.data.Dataset):
    """Sample i makes CAUGHT's i-th bad call (the worker catches the refusal and sends its
    traceback's text to the parent)."""

    def __len__(self):
        return len(CAUGHT)

    def __getitem__(self, i):
        return CAUGHT[sorted(CAUGHT)[i]]()


@pytest.mark.parametrize("case", ["cross_entropy", "Tensor.scatter_", "indexing", "nn.Embedding"])
def test_a_worker_refusal_sent_to_the_parent_ends_at_the_users_line(case):
    import re

    subset = torch.utils.data.Subset(CaughtDataset(), [sorted(CAUGHT).index(case)])
    err = caught_by_the_user(lambda: list(torch.utils.data.DataLoader(subset, batch_size=None, num_workers=1)))
    text = str(err)
    assert "DataLoader worker process 0" in text, text  # the worker's traceback, as text
    files = re.findall(r'^  File "(.*)", line (\d+), in (.*)$', text, re.M)
    assert files[-1] == (__file__, str(line_with("caught " + case)), CAUGHT[case].__name__), text
    assert sum(f.startswith(PACKAGE) for f, _, _ in files) <= 1, text


def refuse_in_a_child(case, queue):
    """A spawned process's work: the user's code there catches the refusal and reports its frames."""
    import traceback

    err = caught_by_the_user(CAUGHT[case])
    queue.put([(f.filename, f.lineno, f.name) for f in traceback.extract_tb(err.__traceback__)])


def test_a_refusal_caught_in_a_spawned_child_ends_at_the_users_line():
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    child = context.Process(target=refuse_in_a_child, args=("Tensor.gather", queue))
    child.start()
    frames = queue.get(timeout=300)
    child.join(60)
    assert frames[-1] == (__file__, line_with("caught Tensor.gather"), "method_gather"), frames
    assert sum(f.startswith(PACKAGE) for f, _, _ in frames) <= 1, frames


def test_a_torch_error_of_a_call_labelguard_finds_valid_keeps_its_whole_traceback():
    import traceback

    x, index = torch.randn(3, 4), torch.tensor([[0], [0], [1]])
    labelguard.enable()
    try:
        with pytest.raises(RuntimeError) as info:
            torch.gather(x, 1, index, out=torch.empty(3, 1, dtype=torch.int64))  # at: torch's own error
    finally:
        labelguard.disable()
    assert "Expected out tensor to have dtype float" in str(info.value) and not isinstance(info.value, TargetError)
    frames = traceback.extract_tb(info.value.__traceback__)
    # Nothing cut, nothing added: the user's line, then the wrapper's call of PyTorch's op.
    assert [(f.filename, f.lineno) for f in frames[-2:-1]] == [(__file__, line_with("torch's own error"))], frames
    assert frames[-1].filename.startswith(PACKAGE) and frames[-1].name == "labelguard_checked", frames


UNCAUGHT = """\
import threading
import torch, torch.nn.functional as F, labelguard
labelguard.enable()
def step():
    return F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))
thread = threading.Thread(target=step)
thread.start()
thread.join()
step()
"""


def test_an_uncaught_refusal_prints_the_users_line_once_and_last(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(UNCAUGHT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    printed = done.stderr.splitlines()
    files = [text for text in printed if text.startswith("  File ")]
    assert done.returncode == 1 and len([t for t in printed if t.startswith("Traceback")]) == 2, done.stderr
    assert files.count(f'  File "{script}", line 5, in step') == 2, done.stderr  # the thread's and the main thread's
    assert not any("labelguard" + os.sep in text for text in files), done.stderr
    thread_end = printed.index(next(t for t in printed if t.startswith("labelguard.TargetError")))
    assert [t for t in printed[:thread_end] if t.startswith("  File ")][-1] == f'  File "{script}", line 5, in step', done.stderr
    assert files[-1] == f'  File "{script}", line 5, in step', done.stderr


PYTEST_CASE = """\
import torch, torch.nn.functional as F, labelguard

def test_a_bad_loss():
    labelguard.enable()
    F.cross_entropy(torch.randn(2, 3), torch.tensor([0, 3]))

def test_torchs_own_error():
    labelguard.enable()
    torch.gather(torch.randn(3, 4), 1, torch.tensor([[0]]), out=torch.empty(1, 1, dtype=torch.int64))
"""


def test_pytests_report_of_a_refusal_leaves_labelguards_frames_out(tmp_path):
    (tmp_path / "test_user.py").write_text(PYTEST_CASE)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--tb=long", "test_user.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    report = done.stdout
    refusal, torchs = report.split("test_torchs_own_error ___")
    assert "E       labelguard.TargetError: cross_entropy (labelguard)" in refusal and "_enable.py" not in refusal, report
    assert "test_user.py:5: TargetError" in refusal, report
    assert "_enable.py" in torchs and "RuntimeError" in torchs, report  # PyTorch's own error: every frame


def test_a_refusal_through_a_trainers_loop_ends_at_the_training_steps_line(tmp_path):
    import traceback

    # Lightning's loop catches the error (its interrupt handling) and raises it again.
    frames = traceback.extract_tb(fit_lightning(tmp_path, metric=False).__traceback__)
    assert (frames[-1].filename, frames[-1].lineno, frames[-1].name) == (__file__, line_with("lightning loss"), "training_step"), frames
    assert [f.name for f in frames if f.filename.startswith(PACKAGE)] == ["labelguard_checked"], frames
