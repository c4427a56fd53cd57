"""`%load_ext labelguard`: the guards on for a notebook's kernel, and the diagnosis in the cell.

Loading the extension calls `enable()`, so a bad loss or indexing call raises a TargetError at
the user's line before any kernel runs, and installs an IPython exception handler
(`set_custom_exc`) for TargetError and RuntimeError. For a TargetError, or a RuntimeError that
is a device-side assert (or another CUDA error that kills the context), the failing cell's output
shows the diagnosis before the traceback: the cause and the fix, the cell and line of the user's
code, and whether the CUDA context survived. After a device-side assert it does not: every later
CUDA call of the kernel fails, so the output says to restart the kernel, and names the capture to
replay after the restart when the error carries one (`labelguard.capture`). Any other exception
gets IPython's own traceback. `%unload_ext labelguard` turns both off.

A device-side assert is diagnosed by `labelguard diagnose`, run inside the kernel on the
exception's traceback (the kernel's stderr, where CUDA prints the assertion lines, is not in the
notebook).
"""

from __future__ import annotations

import html
import json
import os
import tempfile
import traceback
from typing import Any, List, Optional, Tuple

from . import _command
from ._enable import disable, enable
from ._report import TargetError

#: The error texts of CUDA errors after which the context is unusable (PyTorch's
#: c10/cuda/CUDAException.h message starts "CUDA error: " + cudaGetErrorString; the sticky
#: errors per the CUDA runtime API's error list: device-side assert, illegal address, launch failure).
_DEAD_CONTEXT = (
    "device-side assert triggered",
    "an illegal memory access was encountered",
    "unspecified launch failure",
    "misaligned address",
)


def load(ipython: Any) -> None:
    enable()
    ipython.set_custom_exc((TargetError, RuntimeError), _handler)
    _say(ipython, "labelguard: guards on for this kernel; a bad target or index is reported in the cell before CUDA sees it.")


def unload(ipython: Any) -> None:
    ipython.set_custom_exc((), None)
    disable()


def _say(ipython: Any, text: str) -> None:
    from IPython.display import display

    display({"text/plain": text}, raw=True)


def dead_context(exc: BaseException) -> bool:
    text = str(exc)
    return isinstance(exc, RuntimeError) and any(t in text for t in _DEAD_CONTEXT)


def _handler(self: Any, etype: type, value: BaseException, tb: Any, tb_offset: Optional[int] = None) -> None:
    """IPython's custom exception handler: the diagnosis, then IPython's traceback."""
    if isinstance(value, TargetError) or dead_context(value):
        try:
            text, page = diagnosis(self, value, tb)
        except Exception as e:  # noqa: BLE001 - never hide the user's error behind ours
            text = f"labelguard: could not diagnose this error ({type(e).__name__}: {e}); the traceback follows."
            page = f"<pre>{html.escape(text)}</pre>"
        from IPython.display import display

        display({"text/plain": text, "text/html": page}, raw=True)
    self.showtraceback((etype, value, tb), tb_offset=tb_offset)


def cell_line(ipython: Any, tb: Any) -> Optional[Tuple[str, int, str]]:
    """(cell, line, code) of the innermost frame of the traceback that is a notebook cell: the
    user's line (`In [3]`, as IPython names the cell), None when no frame is a cell's."""
    import linecache

    names = getattr(getattr(ipython, "compile", None), "_filename_map", {}) or {}
    found = None
    for frame, line in traceback.walk_tb(tb):
        name = frame.f_code.co_filename
        if name in names:
            found = (f"In [{names[name]}]", line, linecache.getline(name, line).strip())
    return found


def diagnosis(ipython: Any, exc: BaseException, tb: Any) -> Tuple[str, str]:
    """The diagnosis of `exc` as text and as HTML."""
    where = cell_line(ipython, tb)
    lines: List[str] = []
    if isinstance(exc, TargetError):
        first, _, rest = str(exc).partition("\n")
        lines.append("labelguard stopped this call before it ran: " + first)
        if not exc.findings:  # rebuilt from its text (a DataLoader worker's): the findings are in it
            lines += [l for l in rest.splitlines() if l.strip()]
        for f in exc.findings:
            lines.append(f"cause: [{f.code}] {f.message}")
            if f.hint:
                lines.append(f"  why: {f.hint}")
            lines.append(f"fix: {f.fix}")
    else:
        lines += _diagnose_log(exc, tb)
    if where is not None:
        lines.append(f"your code: {where[0]}, line {where[1]}: {where[2]}")
    capture = getattr(exc, "labelguard_capture", None)
    if dead_context(exc):
        lines.append(
            "The CUDA context of this kernel is dead: every later CUDA call in it fails with the same error. "
            "Restart the kernel (Kernel > Restart), run `%load_ext labelguard` first, and run the cells again: "
            "the guards then stop the bad call at its line before CUDA sees it."
        )
        if capture:
            lines.append(f"After the restart, replay the captured failing batch: labelguard.replay({capture!r}) (or `labelguard replay {capture}`)")
        else:
            lines.append("No capture was written: wrap the training step in `with labelguard.capture('dumps') as cap: cap.batch = batch` to keep the batch for `labelguard replay`.")
    else:
        lines.append("Nothing ran on the GPU: the CUDA context is fine; fix the data or the call and run the cell again.")
        if capture:
            lines.append(f"The failing call was captured: labelguard.replay({capture!r})")
    text = "\n".join(lines)
    return text, _page(lines)


def _page(lines: List[str]) -> str:
    items = "".join(f"<li>{html.escape(l)}</li>" for l in lines[1:])
    return (
        '<div class="labelguard-diagnosis" style="border-left:4px solid #d00;padding:4px 10px">'
        f"<b>{html.escape(lines[0])}</b><ul>{items}</ul></div>"
    )


def _diagnose_log(exc: BaseException, tb: Any) -> List[str]:
    """`labelguard diagnose` of the exception's traceback: each finding's message, cause and fix."""
    log = "".join(traceback.format_exception(type(exc), exc, tb))
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as f:
        f.write(log)
    try:
        code, out, err = _command.run(["diagnose", "--format", "json", f.name])
    finally:
        os.unlink(f.name)
    if code not in (0, 1):
        return [f"labelguard diagnose could not read the traceback: {err.strip()}"]
    report = json.loads(out)
    lines = [f"labelguard: a CUDA error ({str(exc).splitlines()[0]}): diagnosis"]
    for x in report.get("findings", []):
        lines.append(f"cause: [{x['code']}] {x['message']}")
        if x.get("cause"):
            lines.append(f"  why: {x['cause']}")
        lines.append(f"fix: {x['fix']}")
    return lines
