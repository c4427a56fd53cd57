"""Reports, findings and the exceptions raised for them."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from typing import Any, List, Optional, Tuple

from . import _ranks


@dataclasses.dataclass(frozen=True)
class Location:
    tensor: str
    index: Tuple[int, ...]
    value: str


@dataclasses.dataclass(frozen=True)
class Finding:
    """One problem: rule code, what PyTorch does because of it, where, the likely cause, the fix."""

    code: str
    rule: str
    severity: str
    verdict: str
    message: str
    hint: Optional[str]
    fix: str
    locations: Tuple[Location, ...]
    count: Optional[int] = None
    values: Tuple[Tuple[str, int], ...] = ()
    #: A scan's finding: the file (or folder) it is about, its split, and the rows it names
    #: (of a label table or token dataset: the first ones; `count` is how many there are).
    path: Optional[str] = None
    split: Optional[str] = None
    rows: Tuple[int, ...] = ()

    @property
    def file(self) -> Optional[str]:
        """The scanned file or folder the finding is about (the same as `path`)."""
        return self.path

    @property
    def indices(self) -> Tuple[Tuple[int, ...], ...]:
        """The coordinates of every location the finding names."""
        return tuple(l.index for l in self.locations)

    def __str__(self) -> str:
        text = f"[{self.code}] {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        if self.fix:
            text += f"\n  fix: {self.fix}"
        return text


@dataclasses.dataclass(frozen=True)
class Report:
    """What PyTorch does with one call: `verdict` is 'ok', 'silent', 'device_assert' or 'error'."""

    op: str
    verdict: str
    findings: Tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        """True when PyTorch accepts the call and the result means something."""
        return self.verdict == "ok"

    @property
    def raises(self) -> bool:
        """True when PyTorch raises (CPU) or asserts on the device (CUDA)."""
        return self.verdict in ("error", "device_assert")

    def __str__(self) -> str:
        if not self.findings:
            return f"{self.op}: ok"
        return "\n".join(str(f) for f in self.findings)

    @staticmethod
    def from_json(text: str) -> "Report":
        d = json.loads(text)
        findings = tuple(
            Finding(
                code=f["code"], rule=f["rule"], severity=f["severity"], verdict=f["verdict"],
                message=f["message"], hint=f.get("hint"), fix=f["fix"],
                locations=tuple(Location(l["tensor"], tuple(l["index"]), l["value"]) for l in f["locations"]),
                count=f.get("count"),
                values=tuple((v["value"], v["count"]) for v in f.get("values", [])),
            )
            for f in d["findings"]
        )
        return Report(op=d["op"], verdict=d["verdict"], findings=findings)


class TargetError(ValueError):
    """A call that PyTorch would reject: on CUDA a device-side assert, or an error on the host.

    `code` is the rule code of the first finding, `findings` all of them, `report` the report.
    """

    def __init__(self, report: "Report | str", where: str = "", context: str = ""):
        if isinstance(report, str):
            # Rebuilt from its message (DataLoader workers re-raise exceptions that way).
            codes = re.findall(r"\[(LG\d{3})\]", report)
            self.report, self.findings, self.code, self.call = None, [], codes[0] if codes else "", None
            from ._callsite import CallSite

            self.call_site, self.raised_in = CallSite.parse(report), None
            # Where it was raised, from its first line; the rank, when the line has none, is that
            # of the process that rebuilt it (a DataLoader worker's error in its rank's process).
            told, here = _ranks.parse(report), _ranks.place(sys._getframe(1))
            for k in ("rank", "local_rank", "world_size"):
                setattr(self, k, told[k] if told["rank"] is not None else here[k])
            self.worker, self.sample = told["worker"], told["sample"]
            super().__init__(report)
            return
        self.report = report
        self.findings: List[Finding] = [f for f in report.findings if f.verdict in ("error", "device_assert")] or list(report.findings)
        self.code = self.findings[0].code if self.findings else ""
        #: The tensors and arguments of the failing call, for `labelguard.capture`.
        self.call: Optional[Tuple[str, dict, dict]] = None
        #: Under `enable()`: the user's frame and the library calls that led to the op.
        self.call_site: Any = None
        #: Under `enable()`: the wrapped nn module (`nn.CrossEntropyLoss`) whose own forward
        #: made the bad call, until that module's wrapper has cut the traceback at the user's line.
        self.raised_in: Optional[str] = None
        #: In a multi-process job: the rank (of `world_size`, and its `local_rank`); in a
        #: DataLoader worker: the `worker` id and the `sample` index (or the batch's indices).
        place = _ranks.place(sys._getframe(1))
        self.rank, self.local_rank, self.world_size = place["rank"], place["local_rank"], place["world_size"]
        self.worker, self.sample = place["worker"], place["sample"]
        on = _ranks.describe(place)
        lead = f"{report.op}{where}{' on ' + on if on else ''}: PyTorch would " + (
            "trigger a device-side assert on CUDA (and raise on the CPU)" if report.verdict == "device_assert" else "raise"
        )
        super().__init__(lead + "\n" + "\n".join(str(f) for f in self.findings) + (f"\n{context}" if context else ""))


class TargetWarning(UserWarning):
    """A call that PyTorch accepts but whose result is garbage (NaN loss, targets outside [0, 1], ...).

    `call_site`: under `enable()`, the user's frame and the library calls that led to the op."""

    call_site: Any = None


def attach_call(err: TargetError, op: str, tensors: dict, args: dict) -> TargetError:
    err.call = (op, tensors, args)
    return err


def report_or_raise(report: Report, mode: str = "raise", where: str = "", stacklevel: int = 3, context: str = "", at: Optional[Tuple[str, int]] = None, site: Any = None) -> Report:
    """Raises TargetError for error/device_assert (or warns, in mode 'warn'); warns for silent.
    `context` (where the call came from) ends the message. A warning names the frame
    `stacklevel` up, or the (file, line) `at` (a line inside compiled code, no longer on the stack),
    and carries the call site `site`."""
    import warnings

    def warn(text: str) -> None:
        message = TargetWarning(text)
        message.call_site = site
        if at is None:
            warnings.warn(message, stacklevel=stacklevel + 1)
        else:
            warnings.warn_explicit(message, TargetWarning, at[0], at[1])

    if report.raises:
        if mode == "raise":
            raise TargetError(report, where, context)
        warn(str(TargetError(report, where, context)))
    elif report.verdict == "silent":
        tail = f"\n{context}" if context else ""
        warn(f"{report.op}{where}: PyTorch accepts this call but the result is garbage\n{report}{tail}")
    return report




# Users see and catch these as labelguard.TargetError / labelguard.TargetWarning.
TargetError.__module__ = "labelguard"
TargetWarning.__module__ = "labelguard"
