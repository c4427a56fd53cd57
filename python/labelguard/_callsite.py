"""Where a bad call came from: the user's frame that led to it and, when the call was made
inside a known library, that library's function and its library-level fix. Runs only when a
check has failed (never on the valid path)."""

from __future__ import annotations

import dataclasses
import linecache
import os
import sys
import sysconfig
from types import FrameType
from typing import AbstractSet, Any, Callable, Iterable, Iterator, List, Optional, Tuple

from ._libraries import LIBRARIES, library_fix

# Frames of these top-level modules are plumbing between the user and the op.
# (`<generated>`: code that dynamo or FX wrote, named by `module_of_file`.)
PLUMBING = frozenset(("labelguard", "torch", "functools", "contextlib", "typing", "<generated>"))
# Where installed code lives: this interpreter's own directories and every site-packages on the
# path (a venv that sees another's packages through a .pth file).
_INSTALLED = tuple(
    os.path.normcase(os.path.realpath(p)) + os.sep
    for p in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], sysconfig.get_paths()["stdlib"]}
    | {p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")}
)


@dataclasses.dataclass(frozen=True)
class LibraryFrame:
    library: str
    function: str
    line: str


@dataclasses.dataclass(frozen=True)
class CallSite:
    """`user`: (file, line) of the user's frame, if any; `library`: the frames inside a known
    library, innermost first; `fix`: the library-level fix, when one is known."""

    op: str
    user: Optional[Tuple[str, int]]
    library: Tuple[LibraryFrame, ...]
    fix: Optional[str]

    def describe(self) -> str:
        """`your code: train.py:42 → transformers BertEmbeddings.forward → embedding`, and the fix."""
        if not self.library:
            return ""
        inner, outer = self.library[0], self.library[-1]
        user = f"{os.path.basename(self.user[0])}:{self.user[1]}" if self.user else "(no frame outside the library)"
        text = f"your code: {user} → {inner.library} {inner.function} → {self.op}"
        if outer.function != inner.function:
            text += f"\n  (the call entered {inner.library} at {outer.function})"
        if self.user is not None:
            text += f"\n  at {self.user[0]}:{self.user[1]}"
        if self.fix:
            text += f"\n  {inner.library} fix: {self.fix}"
        return text


def _top_module(frame: FrameType) -> str:
    return str(frame.f_globals.get("__name__", "")).split(".", 1)[0]


def _qualname(frame: FrameType) -> str:
    return getattr(frame.f_code, "co_qualname", frame.f_code.co_name)


def _is_installed_file(file: str) -> bool:
    return os.path.normcase(os.path.realpath(file)).startswith(_INSTALLED) or file.startswith("<frozen")


def first_outside(frame: Optional[FrameType], modules: AbstractSet[str]) -> Tuple[Optional[FrameType], int]:
    """The first frame from `frame` outward whose top-level module is not in `modules`, and how
    many frames out it is (0: `frame` itself)."""
    steps = 0
    while frame is not None and _top_module(frame) in modules:
        frame, steps = frame.f_back, steps + 1
    return frame, steps


def call_site(op: str, rules: List[str], start: Optional[FrameType] = None) -> CallSite:
    """Walks outward from `start` (the caller's frame by default)."""
    return traced_call_site(op, rules, _live(start or sys._getframe(1)))


def _live(frame: Optional[FrameType]) -> Iterator[Tuple[str, str, int, str, Callable[[], str]]]:
    while frame is not None:
        f = frame
        yield _top_module(f), f.f_code.co_filename, f.f_lineno, _qualname(f), lambda: linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
        frame = frame.f_back


def traced_call_site(op: str, rules: List[str], frames: Iterable[Tuple[str, str, int, str, Any]]) -> CallSite:
    """The call site from frames innermost first, each (top-level module, file, line, function,
    source line or a function that reads it); a `torch.compile`d call's frames are the ones
    dynamo traced (`module_of_file` names their modules)."""
    libs: List[LibraryFrame] = []
    user = None
    for top, file, lineno, function, line in frames:
        if top in LIBRARIES:
            libs.append(LibraryFrame(LIBRARIES[top], function, line() if callable(line) else line))
        elif top not in PLUMBING and not _is_installed_file(file):
            user = (file, lineno)
            break
    # Only the innermost library counts (a library called by another: the callee made the call);
    # its decorators' wrappers (`can_return_tuple.<locals>.wrapper`) name nothing.
    libs = [f for f in libs if f.library == libs[0].library] if libs else []
    libs = [f for f in libs if "<locals>" not in f.function] or libs
    return CallSite(op, user, tuple(libs), _fix(op, rules, libs))


_OWN = os.path.normcase(os.path.dirname(os.path.realpath(__file__))) + os.sep


def module_of_file(path: str) -> str:
    """The top-level module of a file that dynamo traced: '' for the user's own code; `<generated>`
    for code that dynamo or FX generated (`<eval_with_key>.3`)."""
    if path.startswith("<") and not path.startswith(("<stdin>", "<ipython")):
        return "<generated>"
    real = os.path.normcase(os.path.realpath(path))
    if real.startswith(_OWN):
        return "labelguard"
    for root in _INSTALLED:
        if real.startswith(root):
            return real[len(root):].split(os.sep, 1)[0].split(".", 1)[0] or "<installed>"
    return ""


def _fix(op: str, rules: List[str], libs: List[LibraryFrame]) -> Optional[str]:
    """The library's fix by rule and frames alone (`_guard` refines it with the findings' causes)."""
    entry = library_fix(op, rules, (), libs)
    return entry.fix if entry else None
