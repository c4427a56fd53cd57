"""Where in a multi-process job a call runs: its rank (torch.distributed's when a process group is
initialised, else the launcher's RANK / LOCAL_RANK / WORLD_SIZE, which torchrun and accelerate
set), and, inside a DataLoader worker, the worker and the sample it was loading.

A TargetError carries it (`err.rank`, `err.local_rank`, `err.world_size`, `err.worker`,
`err.sample`) and names it in its first line (`cross_entropy on rank 1 of 4: ...`), which is
what `labelguard diagnose` reads to tell which rank failed; `capture` files it under
`DIR/rank{N}/` with the same facts in the file's metadata. Only read when an error is built:
nothing here runs on a valid call.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Dict, Optional

#: The DataLoader's fetcher, whose frames hold the index being loaded (`idx`) or the batch's
#: indices (`possibly_batched_index`, while collate_fn runs).
_FETCH = os.path.join("torch", "utils", "data", "_utils", "fetch.py")
#: How many indices of a batch a message lists.
_SHOWN = 8


def _env_int(name: str) -> Optional[int]:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None


def _sample(frame: Any) -> Any:
    """The index the DataLoader was loading when `frame` ran, or the batch's indices."""
    batch = None
    while frame is not None:
        if frame.f_code.co_filename.endswith(_FETCH):
            names = frame.f_locals
            if "idx" in names:
                return names["idx"]
            if batch is None and "possibly_batched_index" in names:
                batch = names["possibly_batched_index"]
        frame = frame.f_back
    return batch


def place(frame: Any = None) -> Dict[str, Any]:
    """rank, local_rank, world_size, worker (DataLoader worker id) and sample (index, or the
    batch's indices) of the running code; a fact that is not known is None."""
    rank, local, world = _env_int("RANK"), _env_int("LOCAL_RANK"), _env_int("WORLD_SIZE")
    torch = sys.modules.get("torch")
    dist = getattr(torch, "distributed", None)
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            rank, world = dist.get_rank(), dist.get_world_size()
    except Exception:  # noqa: BLE001 - a broken process group must not hide the TargetError
        pass
    worker = None
    data = sys.modules.get("torch.utils.data")
    if data is not None:
        info = data.get_worker_info()
        worker = info.id if info is not None else None
    sample = _sample(frame if frame is not None else sys._getframe(1))
    if hasattr(sample, "tolist"):
        sample = sample.tolist()
    if world is not None and world <= 1 and not rank:
        rank = local = world = None  # one process: nothing to tell apart
    return {"rank": rank, "local_rank": local, "world_size": world, "worker": worker, "sample": sample}


def describe(p: Dict[str, Any]) -> str:
    """`rank 1 of 4, DataLoader worker 0, sample 17`; empty when nothing is known."""
    parts = []
    if p["rank"] is not None:
        text = f"rank {p['rank']}" + (f" of {p['world_size']}" if p["world_size"] else "")
        if p["local_rank"] is not None and p["local_rank"] != p["rank"]:
            text += f" (local rank {p['local_rank']})"
        parts.append(text)
    if p["worker"] is not None:
        parts.append(f"DataLoader worker {p['worker']}")
    sample = p["sample"]
    if isinstance(sample, (list, tuple)):
        shown = ", ".join(str(s) for s in sample[:_SHOWN]) + (", ..." if len(sample) > _SHOWN else "")
        parts.append(f"samples [{shown}]")
    elif sample is not None:
        parts.append(f"sample {sample}")
    return ", ".join(parts)


#: What `describe` wrote into a TargetError's first line: ` on rank 1 of 4 (local rank 1),
#: DataLoader worker 0, sample 17: PyTorch would ...`.
_PLACE = re.compile(
    r" on (?:rank (?P<rank>\d+)(?: of (?P<world>\d+))?(?: \(local rank (?P<local>\d+)\))?(?:, )?)?"
    r"(?:DataLoader worker (?P<worker>\d+)(?:, )?)?"
    r"(?:samples \[(?P<samples>[^\]\n]*)\]|sample (?P<sample>[^:\n]+))?: PyTorch would"
)


def _number(text: str) -> Any:
    return int(text) if text.lstrip("-").isdigit() else text


def parse(message: str) -> Dict[str, Any]:
    """The facts `describe` put into a TargetError's message, read back (a DataLoader worker's
    error reaches the main process as its text only); a fact the line does not give is None."""
    m = _PLACE.search(message)  # torch puts its own lines first: "Caught TargetError in ..."
    g = m.groupdict() if m else {}
    as_int = {k: int(g[k]) if g.get(k) else None for k in ("rank", "world", "local", "worker")}
    if g.get("samples") is not None:
        sample: Any = [_number(x) for x in g["samples"].split(", ") if x and x != "..."]
    else:
        sample = _number(g["sample"]) if g.get("sample") else None
    local = as_int["local"] if as_int["local"] is not None else as_int["rank"]
    return {"rank": as_int["rank"], "local_rank": local, "world_size": as_int["world"], "worker": as_int["worker"], "sample": sample}


def metadata(p: Dict[str, Any]) -> Dict[str, str]:
    """The facts as a capture file's metadata (`labelguard.rank`, ...)."""
    return {f"labelguard.{k}": str(v) for k, v in p.items() if v is not None}


def rank_directory(directory: str, p: Dict[str, Any]) -> str:
    """`directory/rank{N}` in a multi-process job, so that ranks never share a capture folder."""
    return os.path.join(directory, f"rank{p['rank']}") if p["rank"] is not None else directory

