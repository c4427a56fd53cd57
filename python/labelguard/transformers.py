"""`labelguard.transformers.LabelGuardCallback`: a Hugging Face `TrainerCallback`.

    from labelguard.transformers import LabelGuardCallback
    trainer = Trainer(model=model, args=args, train_dataset=train, processing_class=tokenizer,
                      callbacks=[LabelGuardCallback()])

At `on_train_begin`, before step 1:
- `check_model(model, processing_class)`: a tokenizer grown past the embedding table (LG809),
  special tokens beyond it (LG810), an `lm_head` smaller than the vocabulary (LG812);
- `labelguard.scan(dataset, model=model)` of `train_dataset` and `eval_dataset`: token ids,
  labels, positions and image tokens against the model (the rules of `labelguard scan --model`).
Either stops the training with a TargetError that names the rows. Then the guards are on for the
training (off after it, or back as they were); a refused call names the global step, the epoch,
the batch's position in it and the dataset indices of its samples, and is saved under
`OUTPUT_DIR/labelguard/` (`rank{N}/` per process under `accelerate launch` or torchrun) for
`labelguard replay`.

The callback finds its Trainer on the stack of `on_train_begin` (the Trainer calls it), for the
datasets and to follow each micro-batch (`training_step`, wrapped on that Trainer object only,
unwrapped when the training ends or raises).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, List, Optional

from transformers import TrainerCallback

from . import _training
from ._model import check_model
from ._report import TargetError

#: The Trainer's methods that the callback follows (on the Trainer object, for one training).
_FOLLOWED = ("training_step", "_evaluate")
#: How many rows of a dataset finding the stop message names.
_ROWS = 16


def _trainer_on_stack() -> Any:
    trainer_class = getattr(sys.modules.get("transformers"), "Trainer", None)
    frame = sys._getframe(2)
    while frame is not None and trainer_class is not None:
        candidate = frame.f_locals.get("self")
        if isinstance(candidate, trainer_class):
            return candidate
        frame = frame.f_back
    return None


def _tokenizer(processing_class: Any) -> Any:
    """The tokenizer of a tokenizer or of a processor (`processor.tokenizer`), else None."""
    for candidate in (processing_class, getattr(processing_class, "tokenizer", None)):
        if candidate is not None and hasattr(candidate, "get_vocab") and hasattr(candidate, "__len__"):
            return candidate
    return None


class LabelGuardCallback(TrainerCallback):
    """Guards a Hugging Face Trainer's training (see the module's documentation).

    mode: 'raise' or 'warn' (as `labelguard.enable`); finite: also scan the logits for NaN/inf;
    capture_dir: where refused calls are saved (default: `args.output_dir`; False: nowhere);
    check_model / scan: the checks of `on_train_begin`; scan_settings: more settings for
    `labelguard.scan` (`ignore_index=...`)."""

    def __init__(self, mode: str = "raise", finite: bool = False, capture_dir: Any = None, check_model: bool = True, scan: bool = True, **scan_settings: Any):
        if mode not in ("raise", "warn"):
            raise ValueError(f"mode must be 'raise' or 'warn', not {mode!r}")
        self.mode, self.finite, self.capture_dir = mode, finite, capture_dir
        self.check_model, self.scan, self.scan_settings = check_model, scan, scan_settings
        self.run: Optional[_training.Run] = None
        self.trainer: Any = None
        self.batch_in_epoch = -1
        self.in_step = False
        self.epoch = 0
        self.state: Any = None

    # -- before step 1 ---------------------------------------------------------------------
    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, processing_class: Any = None, **kwargs: Any) -> None:
        self._stop()  # a run left open by a training that raised
        trainer = _trainer_on_stack()
        stop = "stopped by labelguard.transformers.LabelGuardCallback at on_train_begin, before step 1"
        tokenizer = _tokenizer(processing_class)
        if self.check_model and model is not None and tokenizer is not None:
            try:
                check_model(model, tokenizer)
            except TargetError as err:
                if err.report is None:
                    raise
                raise TargetError(err.report, " (labelguard, check_model)", stop).with_traceback(None) from None
        if self.scan and model is not None:
            self._scan_datasets(trainer, model, stop)
        self.trainer, self.state, self.epoch, self.batch_in_epoch = trainer, state, int(state.epoch or 0), -1
        directory = None if self.capture_dir is False else os.fspath(self.capture_dir or args.output_dir or ".")
        run = _training.Run("the Trainer's train", directory)
        dataset = getattr(kwargs.get("train_dataloader"), "dataset", None)
        run.position = lambda: (dataset, self.batch_in_epoch if self.in_step else None)
        self.run = run
        if trainer is not None:
            self._follow(trainer)
        run.start(self.mode, self.finite)
        self.between_batches()

    def _scan_datasets(self, trainer: Any, model: Any, stop: str) -> None:
        import labelguard

        if trainer is None:
            warnings.warn("labelguard: LabelGuardCallback found no Trainer calling it: the datasets are not scanned before training (the batches are checked as they are trained)", stacklevel=3)
            return
        scan = getattr(labelguard, "scan", None)
        named = [("train_dataset", trainer.train_dataset)]
        evals = trainer.eval_dataset
        named += [(f"eval_dataset[{k!r}]", v) for k, v in evals.items()] if isinstance(evals, dict) else [("eval_dataset", evals)]
        for name, dataset in named:
            if dataset is None:
                continue
            if scan is None:
                warnings.warn(f"labelguard: this labelguard has no labelguard.scan: {name} is not scanned before training (the batches are checked as they are trained)", stacklevel=3)
                return
            try:
                report = scan(dataset, model=model, **self.scan_settings)
            except (TypeError, ValueError, OSError) as e:  # a dataset the scan cannot read (a torch Dataset)
                warnings.warn(f"labelguard: {name} ({type(dataset).__name__}) was not scanned before training: {e}", stacklevel=3)
                continue
            if report.raises:
                rows = _rows_named(report.findings)
                raise TargetError(report, f" (labelguard, {name})", "\n".join([*rows, stop])).with_traceback(None) from None

    # -- during training ---------------------------------------------------------------------
    def _follow(self, trainer: Any) -> None:
        """Wraps this Trainer object's `training_step` (it counts the micro-batches of the epoch)
        and `_evaluate`: an exception leaving either closes the run, since no `on_train_end`
        follows an exception."""
        for name in _FOLLOWED:
            original = getattr(trainer, name, None)
            if original is not None:
                setattr(trainer, name, self._closing(original, counting=name == "training_step"))

    def _closing(self, original: Any, counting: bool) -> Any:
        callback = self

        def followed(*args: Any, **kwargs: Any) -> Any:
            if counting:
                callback.enter_batch()
            try:
                return original(*args, **kwargs)
            except BaseException:
                callback._stop()
                raise
            finally:
                if counting:
                    callback.between_batches()

        followed.labelguard_original = original  # type: ignore[attr-defined]
        return followed

    def enter_batch(self) -> None:
        self.batch_in_epoch += 1
        self.in_step = True
        if self.run is not None and self.state is not None:
            self.run.facts = {"global step": self.state.global_step + 1, "epoch": self.epoch, "batch": self.batch_in_epoch}

    def between_batches(self) -> None:
        """After a micro-batch: a refusal now (an evaluation, a callback) names no batch."""
        self.in_step = False
        if self.run is not None and self.state is not None:
            if self.batch_in_epoch >= 0:
                where = {"outside training_step, after batch": self.batch_in_epoch, "epoch": self.epoch}
            else:
                where = {"outside training_step, before the first batch of epoch": self.epoch}
            self.run.facts = {**where, "global step": self.state.global_step}

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.between_batches()  # (the global step is the one just completed)

    def on_epoch_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self.run is not None and self.batch_in_epoch >= 0:
            self.epoch += 1
        self.batch_in_epoch = -1

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._stop()

    def _stop(self) -> None:
        trainer, self.trainer = self.trainer, None
        for name in _FOLLOWED:
            if trainer is not None and name in vars(trainer):
                delattr(trainer, name)
        if self.run is not None:
            self.run.stop()
            self.run = None


def _rows_named(findings: Any) -> List[str]:
    lines = []
    for f in findings:
        rows = tuple(getattr(f, "rows", ()) or ())
        if rows and getattr(f, "verdict", "error") in ("error", "device_assert"):
            shown = ", ".join(str(r) for r in rows[:_ROWS]) + (", ..." if len(rows) > _ROWS else "")
            split = f" (split {f.split})" if getattr(f, "split", None) else ""
            lines.append(f"[{f.code}] rows{split}: {shown}")
    return lines
