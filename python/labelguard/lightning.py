"""`labelguard.lightning.LabelGuard`: a Lightning callback (lightning >= 2 and pytorch_lightning).

    import lightning as L
    from labelguard.lightning import LabelGuard
    trainer = L.Trainer(callbacks=[LabelGuard()])

- The guards are on for the fit and off after it (or back as they were, if `enable()` was on).
- At `on_fit_start`, the model's head (its last layer with `out_features`) against the class count
  its datamodule declares (`num_classes`, `n_classes` or `num_labels`): LG812 before any step.
- A refused call names where the fit was: epoch, batch index, the dataloader, the samples of the
  batch (when the dataloader samples indices), the line of your `training_step` (or
  `validation_step`) that was running, and in a DDP job the rank. The failing call is saved
  under the trainer's log dir (`LOG_DIR/labelguard/`, `rank{N}/` per rank) for `labelguard replay`;
  a CUDA error that the guards did not stop saves the batch there.

The class derives from the Callback of the Lightning package already imported (`lightning` or
`pytorch_lightning`, both when both are), so import Lightning before this module; with neither
imported, `lightning` is imported (else `pytorch_lightning`).
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any, Dict, Optional, Tuple

from . import _training
from ._capture import capture
from ._model import check_head
from ._report import TargetError

#: Attributes of a datamodule that declare its class count, in the order they are read.
CLASS_COUNTS = ("num_classes", "n_classes", "num_labels")


def _bases() -> Tuple[type, ...]:
    imported = [m for m in ("lightning.pytorch", "pytorch_lightning") if m in sys.modules]
    if not imported:
        for name in ("lightning.pytorch", "pytorch_lightning"):
            try:
                __import__(name)
            except ImportError:
                continue
            imported = [name]
            break
    if not imported:
        raise ImportError("labelguard.lightning needs Lightning: pip install lightning (or pytorch_lightning)")
    return tuple(sys.modules[m].Callback for m in imported)


def _head(module: Any) -> Optional[Tuple[str, int]]:
    """The last submodule with an integer `out_features` (a classifier's head) and its outputs."""
    found = None
    for name, sub in module.named_modules():
        out = getattr(sub, "out_features", None)
        if isinstance(out, int) and not isinstance(out, bool):
            found = (name or type(module).__name__, out)
    return found


def _declared(datamodule: Any) -> Optional[Tuple[str, int]]:
    for attr in CLASS_COUNTS:
        value = getattr(datamodule, attr, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return attr, value
    return None


def _code(method: Any) -> Any:
    return getattr(inspect.unwrap(getattr(method, "__func__", method)), "__code__", None)


class _LabelGuard:
    """Guards a Lightning fit (see the module's documentation).

    mode: 'raise' or 'warn' (as `labelguard.enable`); finite: also scan the logits for NaN/inf;
    capture_dir: where refused calls are saved (default: the trainer's log dir; False: nowhere);
    check_head: whether `on_fit_start` checks the head against the datamodule's class count."""

    def __init__(self, mode: str = "raise", finite: bool = False, capture_dir: Any = None, check_head: bool = True):
        if mode not in ("raise", "warn"):
            raise ValueError(f"mode must be 'raise' or 'warn', not {mode!r}")
        self.mode, self.finite, self.capture_dir, self.check_head = mode, finite, capture_dir, check_head
        self.run: Optional[_training.Run] = None
        self.batch: Any = None
        #: By phase ('train', 'validation'): the run's facts and (dataset, batch index) last set.
        self.facts: Dict[str, Dict[str, Any]] = {}
        self.positions: Dict[str, Tuple[Any, Optional[int]]] = {}
        self.phase = "train"

    # -- the run --------------------------------------------------------------------------
    def _directory(self, trainer: Any) -> Optional[str]:
        if self.capture_dir is False:
            return None
        if self.capture_dir is not None:
            return os.fspath(self.capture_dir)
        return getattr(trainer, "log_dir", None) or trainer.default_root_dir

    def on_fit_start(self, trainer: Any, pl_module: Any) -> None:
        if self.check_head:
            self._check_head(trainer, pl_module)
        run = _training.Run("Lightning's fit", self._directory(trainer))
        run.position = lambda: self.positions.get(self.phase, (None, None))
        run.steps = {c: n for n, c in ((n, _code(getattr(type(pl_module), n, None))) for n in ("training_step", "validation_step")) if c}
        self.run = run
        run.start(self.mode, self.finite)

    def _check_head(self, trainer: Any, pl_module: Any) -> None:
        datamodule = getattr(trainer, "datamodule", None)
        declared = _declared(datamodule) if datamodule is not None else None
        if declared is None:
            return  # nothing declared: the labels themselves are checked at each step
        head = _head(pl_module)
        attr, classes = declared
        if head is None:
            import warnings

            warnings.warn(
                f"labelguard: {type(datamodule).__name__}.{attr} = {classes}, but {type(pl_module).__name__} has no layer with "
                "out_features to check it against: the head is not checked before the fit (the labels still are, at each step)",
                stacklevel=2,
            )
            return
        name, rows = head
        source = f"{type(pl_module).__name__}.{name} ({rows} outputs) against {type(datamodule).__name__}.{attr} = {classes}"
        check_head(source, rows, classes)

    def _stop(self) -> None:
        if self.run is not None:
            self.run.stop()
            self.run = None
        self.batch = None

    def on_fit_end(self, trainer: Any, pl_module: Any) -> None:
        self._stop()

    def teardown(self, trainer: Any, pl_module: Any, stage: str) -> None:
        if stage == "fit":
            self._stop()

    def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
        run = self.run
        if run is not None and not isinstance(exception, TargetError):
            # A CUDA error the guards did not stop (an op they do not wrap): the batch is saved,
            # and the error says where the fit was.
            if run.directory is not None:
                capture(os.path.join(run.directory, "labelguard"))._save(exception, self.batch)
            if hasattr(exception, "add_note"):
                exception.add_note("labelguard: " + run.describe())
        self._stop()

    # -- where the fit is ---------------------------------------------------------------------
    def _at(self, phase: str, trainer: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        run = self.run
        if run is None:
            return
        self.batch = batch
        loader = "train" if phase == "train" else f"validation {dataloader_idx}"
        run.facts = {"epoch": trainer.current_epoch, "batch": batch_idx, "dataloader": loader, "global step": trainer.global_step}
        self.facts[phase] = run.facts
        loaders = getattr(trainer, "train_dataloader" if phase == "train" else "val_dataloaders", None)
        if isinstance(loaders, (list, tuple)):
            loaders = loaders[dataloader_idx] if dataloader_idx < len(loaders) else None
        self.positions[phase] = (getattr(_one_loader(loaders), "dataset", None), batch_idx)
        self.phase = phase

    def on_validation_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        if self.run is not None:
            self.run.facts = self.facts.get("train", {})
            self.phase = "train"

    def on_train_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int) -> None:
        self._at("train", trainer, batch, batch_idx)

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        # Between batches (epoch-end hooks, a callback): a refusal names no batch.
        if self.run is not None:
            self.run.facts = self.facts["train"] = {"epoch": trainer.current_epoch, "after batch": batch_idx, "global step": trainer.global_step}
            self.positions["train"] = (None, None)

    def on_validation_batch_start(self, trainer: Any, pl_module: Any, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> None:
        self._at("validation", trainer, batch, batch_idx, dataloader_idx)

    # -- pickling (ddp_spawn sends the trainer's callbacks to its processes) ---------------------
    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state.update(run=None, batch=None, facts={}, positions={})
        return state


def _one_loader(loaders: Any) -> Any:
    """The DataLoader of a fit that has one (a CombinedLoader's batch mixes several: None)."""
    if isinstance(loaders, (list, tuple)):
        return loaders[0] if len(loaders) == 1 else None
    if isinstance(loaders, dict):
        return next(iter(loaders.values())) if len(loaders) == 1 else None
    return loaders


def __getattr__(name: str) -> Any:
    if name == "LabelGuard":
        cls = type("LabelGuard", (_LabelGuard, *_bases()), {"__module__": __name__, "__doc__": _LabelGuard.__doc__})
        globals()["LabelGuard"] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
