"""What the trainer callbacks add to a valid run (issue 36): a Lightning fit with and without
`labelguard.lightning.LabelGuard`, and a Hugging Face `Trainer.train` with and without
`labelguard.transformers.LabelGuardCallback(scan=False)`, on the CPU, in pairs run one after the
other (plain, then guarded, then plain, ...) so that a machine whose speed drifts moves both
sides of a pair alike. The figures are per training step: the medians of each side, and the
median of the pairs' differences and ratios, in wall seconds and in CPU seconds (this process's
user + system, which a busy machine inflates less).

    python bench/trainer_callbacks.py [--pairs 5] [--lightning-steps 200] [--hf-steps 40]
"""

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
import warnings


def lightning_fit(steps: int, guarded: bool, root: str) -> None:
    import lightning as L
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset

    from labelguard.lightning import LabelGuard

    class MLP(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))

        def training_step(self, batch, batch_idx):
            x, y = batch
            return F.cross_entropy(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(steps * 64, 32, generator=g), torch.randint(0, 10, (steps * 64,), generator=g))
    trainer = L.Trainer(max_epochs=1, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, default_root_dir=root, callbacks=[LabelGuard()] if guarded else [])
    trainer.fit(MLP(), DataLoader(data, batch_size=64, shuffle=True))


def hf_train(steps: int, guarded: bool, root: str) -> None:
    import torch
    import transformers

    from labelguard.transformers import LabelGuardCallback

    class Samples(torch.utils.data.Dataset):
        def __init__(self):
            g = torch.Generator().manual_seed(0)
            self.ids, self.labels = torch.randint(2, 100, (steps * 8, 32), generator=g), torch.randint(0, 3, (steps * 8,), generator=g)

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, i):
            return {"input_ids": self.ids[i], "attention_mask": torch.ones(32, dtype=torch.long), "labels": self.labels[i]}

    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=100, max_position_embeddings=64, num_labels=3, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64)
    args = transformers.TrainingArguments(output_dir=root, per_device_train_batch_size=8, max_steps=steps, report_to=[], use_cpu=True,
                                          save_strategy="no", seed=0, disable_tqdm=True, logging_strategy="no")
    transformers.Trainer(model=transformers.BertForSequenceClassification(config), args=args, train_dataset=Samples(),
                         callbacks=[LabelGuardCallback(scan=False)] if guarded else []).train()


def timed(run, steps: int, guarded: bool) -> tuple:
    with tempfile.TemporaryDirectory() as root:
        wall, cpu = time.perf_counter(), time.process_time()
        run(steps, guarded, root)
        return (time.perf_counter() - wall) / steps, (time.process_time() - cpu) / steps


def measure(name: str, run, steps: int, pairs: int) -> None:
    timed(run, steps, False), timed(run, steps, True)  # warm-up: imports, first-call costs
    plain, guarded = [], []
    for _ in range(pairs):
        plain.append(timed(run, steps, False))
        guarded.append(timed(run, steps, True))
    for i, unit in enumerate(("wall", "cpu")):
        p, g = [x[i] for x in plain], [x[i] for x in guarded]
        diff = statistics.median(b - a for a, b in zip(p, g))
        ratio = statistics.median(b / a for a, b in zip(p, g))
        print(f"{name} ({steps} steps, {pairs} pairs) {unit}: plain {statistics.median(p) * 1e3:.2f} ms/step, "
              f"guarded {statistics.median(g) * 1e3:.2f} ms/step, difference {diff * 1e3:+.2f} ms/step, ratio {ratio:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--lightning-steps", type=int, default=200)
    parser.add_argument("--hf-steps", type=int, default=40)
    a = parser.parse_args()
    warnings.filterwarnings("ignore")
    logging.disable(logging.WARNING)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    measure("lightning fit", lightning_fit, a.lightning_steps, a.pairs)
    measure("transformers train", hf_train, a.hf_steps, a.pairs)


if __name__ == "__main__":
    main()
