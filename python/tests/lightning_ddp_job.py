"""A Lightning fit on 2 CPU processes (gloo) with one bad label, under `labelguard.lightning.LabelGuard`
(test_lightning.py runs it): python lightning_ddp_job.py STRATEGY LOG_DIR."""

import sys

import lightning as L
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from labelguard.lightning import LabelGuard

BAD = 9


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(4, 3)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.head(x), y)  # LOSS_LINE

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(16, 4, generator=g), torch.randint(0, 3, (16,), generator=g)
    y[BAD] = 5
    trainer = L.Trainer(max_epochs=1, accelerator="cpu", devices=2, strategy=sys.argv[1], logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, default_root_dir=sys.argv[2], callbacks=[LabelGuard()])
    trainer.fit(Classifier(), DataLoader(TensorDataset(x, y), batch_size=4))
