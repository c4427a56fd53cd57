"""Where in a trainer's run a refused call was made, for the trainer callbacks
(`labelguard.lightning`, `labelguard.transformers`).

A callback opens a `Run` when training starts (`start`: the guards on, their previous state kept)
and keeps its facts current (epoch, batch index, dataloader, global step, the batch's position
in its epoch); `stop` closes it and puts the guards back as they were. While a run is open, a
refusal of the guards (`_guard.check_or_raise`) names it in the error's text (`place_line`:
`in Lightning's fit: epoch 0, batch 2 of the train dataloader, samples [8, 9, 10, 11]`), and
`refused` saves the failing call under the run's directory for `labelguard replay`, with the same
facts in the file's metadata. Nothing here runs on a valid call.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Callable, Dict, List, Optional

from . import _sampled

#: The runs open now, the innermost last (a trainer run inside another's hook is rare, but the
#: innermost is the one training).
_RUNS: List["Run"] = []


class Run:
    """One trainer's run under a labelguard callback.

    `trainer`: how the text names it (`Lightning's fit`, `the Trainer's train`); `directory`:
    where refused calls are saved (None: nowhere); `facts`: what is known now, in the order the
    text names them (`epoch`, `batch`, `dataloader`, `global step`); `position`: a function
    giving (the dataset, the batch's position in its pass over it) for the sample indices."""

    def __init__(self, trainer: str, directory: Optional[str]):
        self.trainer = trainer
        self.directory = directory
        self.facts: Dict[str, Any] = {}
        self.position: Optional[Callable[[], Any]] = None
        self.previous: Any = None
        self.captures: List[str] = []
        #: The code of the user's step methods (`training_step`) and how the text names them.
        self.steps: Dict[Any, str] = {}

    def start(self, mode: str = "raise", finite: bool = False) -> None:
        from . import _enable  # (this module is a leaf: `_guard`, which `_enable` imports, imports it)

        self.previous = _enable.held()
        _enable.enable(mode, None, finite)
        _sampled.start(self)
        _RUNS.append(self)

    def stop(self) -> None:
        """Closes the run (once): the guards go back to their previous state."""
        if self not in _RUNS:
            return
        _RUNS.remove(self)
        _sampled.stop(self)
        from . import _enable

        _enable.restore(self.previous)

    def samples(self) -> Optional[List[int]]:
        """The dataset indices of the batch in training, None when not known."""
        dataset, position = self.position() if self.position is not None else (None, None)
        return _sampled.indices(dataset, position)

    def in_batch(self) -> bool:
        """Whether a batch is in training now (else the code runs between batches)."""
        return self.position is not None and self.position()[1] is not None

    def step_line(self) -> Optional[str]:
        """`training_step at train.py:31`: the user's step method running now, if one is on the stack."""
        frame = sys._getframe(1)
        while frame is not None:
            name = self.steps.get(frame.f_code)
            if name is not None:
                return f"{name} at {frame.f_code.co_filename}:{frame.f_lineno}"
            frame = frame.f_back
        return None

    def describe(self) -> str:
        parts = [f"{name} {value}" for name, value in self.facts.items() if value is not None]
        samples = self.samples()
        if samples is not None:
            parts.append("samples [" + ", ".join(str(i) for i in samples[:_SHOWN]) + (", ..." if len(samples) > _SHOWN else "") + "]")
        elif self.in_batch():
            parts.append("samples not known (no DataLoader index sampler was seen for this batch)")
        step = self.step_line()
        return f"in {self.trainer}: " + ", ".join(parts) + (f"\n  {step}" if step else "")


#: How many sample indices a message lists.
_SHOWN = 16


def current() -> Optional[Run]:
    return _RUNS[-1] if _RUNS else None


def place_line(context: str) -> str:
    """`context` with the open run's place as its last line (unchanged when no run is open)."""
    run = current()
    if run is None:
        return context
    return "\n".join(t for t in (context, run.describe()) if t)


def refused(err: Any) -> None:
    """A TargetError of the guards while a run is open: the run's facts go onto the error
    (`err.training`, `err.sample` the batch's indices) and the failing call is saved under the
    run's directory (`err.labelguard_capture`)."""
    run = current()
    if run is None:
        return
    err.training = {"trainer": run.trainer, **run.facts}
    samples = run.samples()
    if samples is not None and err.sample is None:
        err.sample = samples
    if run.directory is None or err.call is None or getattr(err, "labelguard_capture", None):
        return
    from ._capture import save

    op, tensors, args = err.call
    extra = {"labelguard." + re.sub(r"[^a-z0-9]+", "_", name).strip("_"): str(value) for name, value in err.training.items() if value is not None}
    try:
        err.labelguard_capture = save(os.path.join(run.directory, "labelguard"), tensors, op, args, err, extra)
    except OSError as e:  # a full or read-only disk: the refusal itself must still reach the user
        print(f"labelguard: could not save the failing call under {run.directory}: {e}", file=sys.stderr)
        return
    run.captures.append(err.labelguard_capture)
