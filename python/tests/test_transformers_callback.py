"""`labelguard.transformers.LabelGuardCallback` in real Hugging Face `Trainer.train` runs, on the
CPU with tiny random-init BERTs built from configs (nothing downloaded): a bad batch stops the
training at that step with the global step and the samples named and the call saved for replay;
a valid run's losses and weights are bitwise those of the same run without the callback; a
tokenizer grown past the embedding table, and a dataset row with a label beyond the head, stop
the training before step 1."""

import os
import re
import warnings

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

import labelguard  # noqa: E402
from labelguard.transformers import LabelGuardCallback  # noqa: E402

transformers.logging.set_verbosity_error()
SMALL = dict(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
VOCAB, CLASSES, N, BAD = 50, 3, 16, 9


class Samples(torch.utils.data.Dataset):
    """N token sequences with a class label each; sample `bad` has label 7 (beyond 3 classes)."""

    def __init__(self, bad=None, vocab=VOCAB):
        g = torch.Generator().manual_seed(0)
        self.ids, self.labels = torch.randint(2, vocab, (N, 8), generator=g), torch.randint(0, CLASSES, (N,), generator=g)
        if bad is not None:
            self.labels[bad] = 7

    def __len__(self):
        return N

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(8, dtype=torch.long), "labels": self.labels[i]}


def model(vocab=VOCAB):
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=vocab, max_position_embeddings=16, num_labels=CLASSES, **SMALL)
    return transformers.BertForSequenceClassification(config)


def make_trainer(tmp_path, train, callbacks=(), net=None, **kw):
    args = transformers.TrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=4, max_steps=6, report_to=[], use_cpu=True,
                                          save_strategy="no", seed=0, disable_tqdm=True, logging_strategy="no")
    return transformers.Trainer(model=net or model(), args=args, train_dataset=train, callbacks=list(callbacks), **kw)


def losses_of(net):
    """The loss of every forward (training mode), recorded by a forward hook."""
    seen = []
    net.register_forward_hook(lambda module, args, out: seen.append(out.loss.detach().clone()) if module.training else None)
    return seen


def test_a_bad_batch_stops_the_training_at_that_step_naming_it(tmp_path):
    trainer = make_trainer(tmp_path, Samples(bad=BAD), [LabelGuardCallback(scan=False)])
    seen = losses_of(trainer.model)
    with pytest.raises(labelguard.TargetError) as caught:
        trainer.train()  # TRAIN_LINE
    err = caught.value
    text = str(err)
    assert err.code == "LG101"
    # The Trainer's shuffle is its own (seeded): the step is the one whose batch holds sample 9.
    row = err.findings[0].locations[0].index[0]
    assert len(err.sample) == 4 and err.sample[row] == BAD
    step = err.training["global step"]
    assert step == len(seen) + 1 and err.training["batch"] == step - 1 and err.training["epoch"] == 0
    assert f"in the Trainer's train: global step {step}, epoch 0, batch {step - 1}, samples [{', '.join(map(str, err.sample))}]" in text
    train_line = next(i for i, line in enumerate(open(__file__), 1) if line.rstrip().endswith("# TRAIN_LINE"))
    assert f"at {__file__}:{train_line}" in text  # the user's line
    path = err.labelguard_capture
    assert os.path.dirname(path) == os.path.join(str(tmp_path), "labelguard")
    assert [f.code for f in labelguard.replay(path).findings] == ["LG101"]
    assert not labelguard.is_enabled() and "training_step" not in vars(trainer)


def run_losses(tmp_path, callbacks):
    trainer = make_trainer(tmp_path, Samples(), callbacks)
    seen = losses_of(trainer.model)
    trainer.train()
    return seen, [p.detach().clone() for p in trainer.model.parameters()]


def test_a_valid_training_is_bitwise_the_same_with_the_callback(tmp_path):
    plain, plain_weights = run_losses(tmp_path / "plain", [])
    guarded, guarded_weights = run_losses(tmp_path / "guarded", [LabelGuardCallback(scan=False)])
    assert len(plain) == 6
    assert len(plain) == len(guarded) and all(torch.equal(a, b) for a, b in zip(plain, guarded))
    assert len(plain_weights) == len(guarded_weights) and all(torch.equal(a, b) for a, b in zip(plain_weights, guarded_weights))
    assert not labelguard.is_enabled()


def grown_tokenizer():
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(["the cat sat on the mat", "a dog ate my homework"], trainers.WordLevelTrainer(special_tokens=["[PAD]", "[UNK]"]))
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]")
    size = len(fast)
    fast.add_tokens(["<new_a>", "<new_b>"])  # ... and no resize_token_embeddings
    return fast, size


def test_a_tokenizer_grown_past_the_embedding_stops_before_step_1(tmp_path):
    tokenizer, size = grown_tokenizer()
    net = model(vocab=size)
    seen = losses_of(net)
    trainer = make_trainer(tmp_path, Samples(vocab=size), [LabelGuardCallback(scan=False)], net=net, processing_class=tokenizer)
    with pytest.raises(labelguard.TargetError) as caught:
        trainer.train()
    assert caught.value.code == "LG809" and seen == []
    assert "before step 1" in str(caught.value)
    assert not labelguard.is_enabled()
    # Resized, the same training runs.
    net.resize_token_embeddings(len(tokenizer))
    make_trainer(tmp_path, Samples(vocab=size), [LabelGuardCallback(scan=False)], net=net, processing_class=tokenizer).train()
    assert len(seen) == 6


def test_a_dataset_row_with_a_label_beyond_the_head_stops_before_step_1(tmp_path):
    datasets = pytest.importorskip("datasets")
    rows = Samples(bad=BAD)
    train = datasets.Dataset.from_dict({"input_ids": rows.ids.tolist(), "attention_mask": [[1] * 8] * N, "labels": rows.labels.tolist()})
    net = model()
    seen = losses_of(net)
    with pytest.raises(labelguard.TargetError) as caught:
        make_trainer(tmp_path, train, [LabelGuardCallback()], net=net).train()
    text = str(caught.value)
    assert seen == [] and "before step 1" in text
    assert any(BAD in f.rows for f in caught.value.findings), text
    assert re.search(rf"\[LG802\] rows[^:\n]*: {BAD}$", text, re.M), text
    assert not labelguard.is_enabled()


def test_a_dataset_the_scan_cannot_read_is_said_not_scanned(tmp_path):
    trainer = make_trainer(tmp_path, Samples(), [LabelGuardCallback()])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.train()
    said = [str(w.message) for w in caught if "labelguard" in str(w.message)]
    assert any("train_dataset" in m and "not scanned" in m for m in said), said


@pytest.mark.slow
def test_accelerate_launch_on_two_processes_names_the_rank(tmp_path):
    """`accelerate launch` of 2 CPU processes (gloo): the rank whose batch holds sample 9 refuses
    it, names itself, the global step and its samples, and saves the call under rank{N}/."""
    import pathlib
    import subprocess
    import sys

    launcher = pathlib.Path(sys.executable).with_name("accelerate")
    if not launcher.exists():
        pytest.skip(f"no accelerate command beside {sys.executable}")
    job = pathlib.Path(__file__).with_name("transformers_ddp_job.py")
    package = os.path.dirname(os.path.dirname(labelguard.__file__))
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    env["PYTHONPATH"] = os.pathsep.join([package, env.get("PYTHONPATH", "")])
    command = [str(launcher), "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no",
               "--dynamo_backend", "no", str(job), str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=400, env=env)
    assert done.returncode != 0
    text = re.sub(r"^\[rank\d\]: ", "", done.stderr, flags=re.M)
    found = re.search(r"cross_entropy \(labelguard, nn.CrossEntropyLoss\) on rank (\d) of 2: .*?first: target\[(\d+)\] = 7.*?"
                      r"in the Trainer's train: global step (\d+), epoch 0, batch \d+, samples \[([\d, ]+)\]", text, re.S)
    assert found, text[-4000:]
    rank, row, samples = int(found[1]), int(found[2]), [int(s) for s in found[4].split(", ")]
    assert samples[row] == BAD
    train_line = next(i for i, line in enumerate(open(job), 1) if line.rstrip().endswith("# TRAIN_LINE"))
    assert f"at {job}:{train_line}" in text
    saved = list((tmp_path / "labelguard" / f"rank{rank}").glob("*.safetensors"))
    assert len(saved) == 1 and [f.code for f in labelguard.replay(str(saved[0])).findings] == ["LG101"]


def test_a_refusal_in_an_evaluation_names_no_training_batch(tmp_path):
    """An evaluation during training runs between micro-batches: its refusal names the last batch
    trained and the global step, not a batch (nor samples) of the training set."""
    args = transformers.TrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=4, per_device_eval_batch_size=4, max_steps=4,
                                          eval_strategy="steps", eval_steps=2, report_to=[], use_cpu=True, save_strategy="no", seed=0,
                                          disable_tqdm=True, logging_strategy="no")
    trainer = transformers.Trainer(model=model(), args=args, train_dataset=Samples(), eval_dataset=Samples(bad=BAD),
                                   callbacks=[LabelGuardCallback(scan=False, capture_dir=False)])
    with pytest.raises(labelguard.TargetError) as caught:
        trainer.train()
    assert "in the Trainer's train: outside training_step, after batch 1, epoch 0, global step 2\n" in str(caught.value) + "\n"
    assert caught.value.sample is None and not labelguard.is_enabled()
