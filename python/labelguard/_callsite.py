"""Where a bad call came from: the user's frame that led to it, the library calls on the way,
and that library's fix when one is known. Runs only when a check has failed (never on the valid
path).

The one rule, for live frames and for those dynamo traced alike (`owner`): walking out from the
bad call, the user's frame is the first frame that runs neither plumbing nor a library's code.
- Plumbing: labelguard, torch, Python's standard library, code that dynamo or FX generated
  (`<eval_with_key>.3`) and the launchers pip writes for console scripts (`bin/NAME`).
- A library: a package installed in site-packages (named by its top-level package: `kornia`,
  `pytorch_metric_learning`), and a known library of `_libraries.LIBRARIES` wherever it is
  imported from (a source checkout, an editable install).
- Everything else is the user's: a script (also one inside a library's checkout: the script is
  yours, the library's package is not), a package of your own outside site-packages (an editable
  install of your project), and code without a file (`exec`, `python -c`, `<string>`,
  `<ipython-input-…>`), unless its module is a library's (a dataclass's generated `__init__`).
- The package run with `python -m pkg.train` is the user's even when it is installed in
  site-packages (it is the program), unless it is a known library (`python -m lightning`).
- No user frame (a library's command line, a thread a library started): the message says so
  (`your code: none (the whole call came from traintool, run as bin/traintool)`).
Only the innermost library made the call (`library`); the libraries it was called through,
outermost first, are `through` (`your code: train.py:9 → peft → transformers
BertEmbeddings.forward → embedding`).
"""

from __future__ import annotations

import dataclasses
import linecache
import os
import re
import sys
import sysconfig
from types import FrameType
from typing import AbstractSet, Any, Callable, Iterable, Iterator, List, Optional, Tuple

from ._libraries import LIBRARIES, library_fix

#: Owners of plumbing frames (`owner`): between the user and the op, named by nobody.
PLUMBING = frozenset(("labelguard", "torch", "functools", "contextlib", "typing", "<generated>", "<stdlib>", "<launcher>"))


@dataclasses.dataclass(frozen=True)
class LibraryFrame:
    library: str
    function: str
    line: str


@dataclasses.dataclass(frozen=True)
class CallSite:
    """`user`: (file, line) of the user's frame, None when no frame is the user's; `library`: the
    frames of the library that made the call, innermost first; `through`: the libraries it was
    called through, outermost first; `fix`: the library-level fix, when one is known; `program`:
    how the process was started (`sys.argv[0]`), named when no frame is the user's."""

    op: str
    user: Optional[Tuple[str, int]]
    library: Tuple[LibraryFrame, ...]
    fix: Optional[str]
    through: Tuple[str, ...] = ()
    program: str = ""

    def describe(self) -> str:
        """`your code: train.py:42 → transformers BertEmbeddings.forward → embedding`, where the
        user's line is, where the call entered the library, and the library's fix."""
        chain = list(self.through)
        if self.library:
            inner, outer = self.library[0], self.library[-1]
            chain.append(f"{inner.library} {inner.function}")
        if self.user is not None:
            user = f"{os.path.basename(self.user[0])}:{self.user[1]}"
        elif chain:
            first = self.through[0] if self.through else self.library[0].library
            user = f"none (the whole call came from {first}" + (f", run as {self.program})" if self.program else ")")
        else:
            user = "none (no frame outside labelguard, torch and Python's standard library)"
        text = "your code: " + " → ".join([user, *chain, self.op])
        if self.library and outer.function != inner.function:
            text += f"\n  (the call entered {inner.library} at {outer.function})"
        if self.user is not None:
            text += f"\n  at {self.user[0]}:{self.user[1]}"
        if self.fix:
            text += f"\n  {self.library[0].library} fix: {self.fix}"
        return text

    @staticmethod
    def parse(message: str) -> Optional["CallSite"]:
        """The call site that `describe` wrote into a message, read back (a DataLoader worker's
        error reaches the main process as its text only): the user's frame, the library call and
        where it entered the library (the frames between are not in the text)."""
        found = list(_DESCRIBED.finditer(message))
        if not found:
            return None
        m = found[-1]  # the exception's own text comes after the worker's traceback
        names = m["chain"].split(" → ")
        op, named = names[-1], names[:-1]
        library: Tuple[LibraryFrame, ...] = ()
        if named and " " in named[-1]:
            lib, function = named.pop().split(" ", 1)
            library = (LibraryFrame(lib, function, ""),)
            if m["entered"]:
                library += (LibraryFrame(lib, m["entered"], ""),)
        user = (m["file"], int(m["line"])) if m["file"] else None
        return CallSite(op, user, library, m["fix"], tuple(named), m["program"] or "")


_DESCRIBED = re.compile(
    r"^your code: (?:none \((?:[^\n]*?, run as (?P<program>[^\n)]*))?[^\n]*?\)|[^\n]*?:\d+) → (?P<chain>[^\n]+)"
    r"(?:\n  \(the call entered \S+ at (?P<entered>[^\n)]+)\))?"
    r"(?:\n  at (?P<file>[^\n]+):(?P<line>\d+))?"
    r"(?:\n  \S+ fix: (?P<fix>[^\n]+))?",
    re.M,
)


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _roots() -> Tuple[Tuple[str, ...], Tuple[str, ...], Tuple[str, ...]]:
    """(site-packages roots, standard library roots, console-script folders), each ending in a
    separator; read when a check has failed (sys.path may have changed since import)."""
    paths = sysconfig.get_paths()
    site = {paths["purelib"], paths["platlib"]} | {p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")}
    stdlib = {paths["stdlib"], paths["platstdlib"]}
    scripts = {paths["scripts"], os.path.dirname(sys.executable)}
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        scripts.add(sysconfig.get_paths(user_scheme)["scripts"])
    return tuple(tuple(_real(p) + os.sep for p in group) for group in (site, stdlib, scripts))  # type: ignore[return-value]


_OWN = _real(os.path.dirname(__file__)) + os.sep


def _program_package() -> str:
    """The top-level package of the module run with `python -m` ('' for a script)."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return str(getattr(spec, "name", "") or "").split(".", 1)[0]


def owner(module: Optional[str], file: str, roots: Optional[Tuple[Tuple[str, ...], ...]] = None) -> str:
    """Whose code a frame runs (the rule in this module's doc): '' for the user's, a name in
    PLUMBING, or a library's top-level package. `module`: the frame's `__name__` (None when only
    the file is known: a node of an FX graph)."""
    site, stdlib, scripts = roots or _roots()
    top = (module or "").split(".", 1)[0]
    if top == "__main__":
        top = _program_package() or top
    if file.startswith("<") and not file.startswith(("<string>", "<stdin>", "<ipython-input")):
        return "<stdlib>" if file.startswith("<frozen") else "<generated>"
    if file.startswith("<"):
        # No file: the code is where its module is (exec'd into a library's module), else yours.
        file = getattr(sys.modules.get(module or ""), "__file__", None) or ""
        if not file:
            return ""
    real = _real(file)
    if real.startswith(_OWN):
        return "labelguard"
    if top in PLUMBING or top in LIBRARIES:
        return top
    if top and top == _program_package():
        return ""  # the program run with `python -m`
    for root in site:
        if real.startswith(root):
            return top if top and top != "__main__" else real[len(root):].split(os.sep, 1)[0].split(".", 1)[0]
    if real.startswith(stdlib):
        return "<stdlib>"
    if top == "__main__" and real.startswith(scripts):
        return "<launcher>"
    return ""


def module_of_file(path: str) -> str:
    """`owner` of a frame known by its file only."""
    return owner(None, path)


def top_module(frame: FrameType) -> str:
    """The top-level package of the code `frame` runs (`labelguard`, `torch`, `__main__`)."""
    return str(frame.f_globals.get("__name__", "")).split(".", 1)[0]


def _qualname(frame: FrameType) -> str:
    return getattr(frame.f_code, "co_qualname", frame.f_code.co_name)


def first_outside(frame: Optional[FrameType], modules: AbstractSet[str]) -> Tuple[Optional[FrameType], int]:
    """The first frame from `frame` outward whose top-level module is not in `modules`, and how
    many frames out it is (0: `frame` itself)."""
    steps = 0
    while frame is not None and top_module(frame) in modules:
        frame, steps = frame.f_back, steps + 1
    return frame, steps


def call_site(op: str, rules: List[str], start: Optional[FrameType] = None) -> Tuple[CallSite, Optional[int]]:
    """Walks outward from `start` (the caller's frame by default); also how many frames out of
    `start` the user's frame is (None: not on this stack)."""
    site = traced_call_site(op, rules, _live(start or sys._getframe(1)))
    frame, steps = start or sys._getframe(1), 0
    while frame is not None and site.user is not None and (frame.f_code.co_filename, frame.f_lineno) != site.user:
        frame, steps = frame.f_back, steps + 1
    return site, (steps if frame is not None and site.user is not None else None)


def _live(frame: Optional[FrameType]) -> Iterator[Tuple[str, str, int, str, Callable[[], str]]]:
    roots = _roots()
    while frame is not None:
        f = frame
        file = f.f_code.co_filename
        yield owner(f.f_globals.get("__name__"), file, roots), file, f.f_lineno, _qualname(f), lambda: linecache.getline(file, f.f_lineno).strip()
        frame = frame.f_back


def traced_call_site(op: str, rules: List[str], frames: Iterable[Tuple[str, str, int, str, Any]]) -> CallSite:
    """The call site from frames innermost first, each (owner, file, line, function, source line
    or a function that reads it); a `torch.compile`d call's frames are the ones dynamo traced."""
    libs: List[LibraryFrame] = []
    user = None
    for who, file, lineno, function, line in frames:
        if not who:
            user = (file, lineno)
            break
        if who not in PLUMBING:
            libs.append(LibraryFrame(LIBRARIES.get(who, who), function, line() if callable(line) else line))
    # The innermost library made the call (a library called by another: the callee did); the
    # others it came through are named, outermost first. Its decorators' wrappers
    # (`can_return_tuple.<locals>.wrapper`) name nothing.
    through = [] if not libs else [f.library for f in reversed(libs) if f.library != libs[0].library]
    through = [name for i, name in enumerate(through) if i == 0 or through[i - 1] != name]
    libs = [f for f in libs if f.library == libs[0].library] if libs else []
    libs = [f for f in libs if "<locals>" not in f.function] or libs
    program = "" if user is not None else os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return CallSite(op, user, tuple(libs), _fix(op, rules, libs), tuple(through), program)


def _fix(op: str, rules: List[str], libs: List[LibraryFrame]) -> Optional[str]:
    """The library's fix by rule and frames alone (`_guard` refines it with the findings' causes)."""
    entry = library_fix(op, rules, (), libs)
    return entry.fix if entry else None


def cut_own_frames(exc: Optional[BaseException]) -> None:
    """Ends the traceback of each TargetError in `exc`'s chain at the frame that called into
    labelguard, as pytest hides its own frames: the wrapper that raised and the check are cut
    off (in place: every printer of the exception sees the cut), so the last frame printed is the
    line that made the bad call: its first entry, when the traceback ends at it again
    (`_userframe.ending`: the wrapper's frame between). A traceback of labelguard's frames only
    is left as it is."""
    from ._report import TargetError

    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, TargetError):
            last, tb = None, exc.__traceback__
            while tb is not None:
                if top_module(tb.tb_frame) != "labelguard":
                    last = tb
                tb = tb.tb_next
            tb = exc.__traceback__
            while last is not None and tb is not None and tb.tb_frame is not last.tb_frame:
                tb = tb.tb_next
            if last is not None and tb is not None:
                tb.tb_next = None
        exc = exc.__cause__ or exc.__context__
