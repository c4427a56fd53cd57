"""A Hugging Face Trainer on 2 CPU processes (`accelerate launch --cpu --num_processes 2`) with one
bad label, under `labelguard.transformers.LabelGuardCallback` (test_transformers_callback.py runs
it): accelerate launch ... transformers_ddp_job.py OUTPUT_DIR."""

import sys

import torch
import transformers

from labelguard.transformers import LabelGuardCallback

BAD, N = 9, 16


class Samples(torch.utils.data.Dataset):
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.ids, self.labels = torch.randint(2, 50, (N, 8), generator=g), torch.randint(0, 3, (N,), generator=g)
        self.labels[BAD] = 7

    def __len__(self):
        return N

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(8, dtype=torch.long), "labels": self.labels[i]}


if __name__ == "__main__":
    transformers.logging.set_verbosity_error()
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=50, max_position_embeddings=16, num_labels=3, hidden_size=16, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=32)
    args = transformers.TrainingArguments(output_dir=sys.argv[1], per_device_train_batch_size=2, max_steps=4, report_to=[], use_cpu=True,
                                          save_strategy="no", seed=0, disable_tqdm=True, logging_strategy="no")
    trainer = transformers.Trainer(model=transformers.BertForSequenceClassification(config), args=args, train_dataset=Samples(),
                                   callbacks=[LabelGuardCallback(scan=False)])
    trainer.train()  # TRAIN_LINE
