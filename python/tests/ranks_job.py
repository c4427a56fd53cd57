"""A small data-parallel training job on the CPU (gloo) for test_ranks.py, launched by torchrun
(`env://`) or by itself with torch.multiprocessing.spawn (`--spawn N`).

Each rank trains a DDP linear model for a few steps on its own 16 samples. `--bad-rank R` gives
rank R a class id out of range at sample 11: in the loss of the main process (`--where loss`),
or in `F.one_hot` inside the Dataset, which runs in a DataLoader worker with `--workers N`
(`--where worker`). `--hang` makes the bad rank hold a non-daemon thread, so that its process
does not end after the exception (as a process group's destructor or a logging thread can).
Every rank prints its final weights' checksum.
"""

import argparse
import os
import sys
import threading
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

CLASSES = 3


class Samples(Dataset):
    def __init__(self, rank: int, bad: bool, one_hot: bool):
        self.rank, self.bad, self.one_hot = rank, bad, one_hot

    def __len__(self) -> int:
        return 16

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(1000 * self.rank + i)
        x = torch.randn(4, generator=g)
        y = torch.randint(0, CLASSES, (), generator=g)
        if self.bad and i == 11:
            y = torch.tensor(CLASSES + 4)
        if self.one_hot:
            return x, F.one_hot(y, CLASSES).float()
        return x, y


def train(rank: int, world: int, args: argparse.Namespace) -> None:
    if args.spawn:
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(args.port)
        dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=args.timeout))
    else:
        dist.init_process_group("gloo", timeout=timedelta(seconds=args.timeout))
    rank = dist.get_rank()
    bad = rank == args.bad_rank
    if bad and args.hang:
        threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = Samples(rank, bad, one_hot=args.where == "worker")
    loader = DataLoader(data, batch_size=4, num_workers=args.workers)
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    checksum = sum(float(p.double().sum()) for p in model.parameters())
    print(f"rank {rank} final {checksum!r}", flush=True)
    dist.destroy_process_group()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bad-rank", type=int, default=-1)
    parser.add_argument("--where", choices=("loss", "worker"), default="loss")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--spawn", type=int, default=0, help="start this many ranks with mp.spawn")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.spawn:
        torch.multiprocessing.spawn(train, args=(args.spawn, args), nprocs=args.spawn, join=True)
    else:
        train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), args)


if __name__ == "__main__":
    sys.exit(main())
