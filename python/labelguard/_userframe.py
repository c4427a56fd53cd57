"""The user's line as the last frame of a refusal raised inside `torch.compile`d code.

A bad call inside a compiled function is refused from labelguard's check, deep under dynamo's,
AOTAutograd's and inductor's frames (the graph's op, or the wrapper of a call that runs eagerly
after a graph break); the user's line of that call is no live frame at all once the graph runs.
A user reads a traceback's last frame first, so the error is raised again from a one-statement
frame that stands for the user's line (its file, line and function: the source line that
`traceback` prints is the user's own), and dynamo's own shortening of backend tracebacks
(`torch/_dynamo/eval_frame.py`: an exception that is a `ShortenTraceback` is re-raised by the
compiled function's wrapper from its `first_useful_frame`, torch 2.15) cuts every frame between
the compiled function's call and that one. What remains: the caller's frames, dynamo's one
wrapper frame, the user's line.

Only when a compiled function is on the stack (dynamo's wrapper is a live caller).

An eager refusal (`at_line`, `ending`) ends at the user's line too, caught or not (issues 41, 42:
`traceback.print_exc()`, `logging.exception`, a trainer's handler, a DataLoader worker's text,
`traceback.extract_tb(err.__traceback__)[-1]`): the check raises the error with a traceback of
one entry, the user's live frame at the line of the call (`types.TracebackType`: the frame
itself, so a debugger or pytest's `-l` sees its locals), and the wrapper that called the check
raises it again with only that entry (`ending`), so that the check's frames are gone. Python
puts an entry for every Python frame that an exception leaves at the head of its traceback:
the wrapper's own frame stays, the one labelguard frame of the traceback, between the user's
call and the same line again at the end (`_callsite.cut_own_frames` cuts the two off an
uncaught error; pytest's report leaves it out: `hide_refusals`). No frame at all would need a wrapper that is no Python function (a native
callable, which dynamo cannot trace as it traces the wrappers today: see
docs/guide/python.md).
"""

from __future__ import annotations

import re
import sys
from types import CodeType, FrameType, TracebackType
from typing import Any, List, Optional, Tuple

from ._callsite import top_module

_CLASS: List[type] = []  # the TargetError that dynamo shortens, made once per process


def _shortening(error_class: type) -> Optional[type]:
    """A TargetError that is also dynamo's ShortenTraceback (named and shown as TargetError,
    pickled as a plain TargetError: its frame does not cross a process boundary), or None where
    this torch has no such class."""
    if _CLASS:
        return _CLASS[0]
    shorten = getattr(getattr(getattr(sys.modules.get("torch"), "_dynamo", None), "exc", None), "ShortenTraceback", None)
    if shorten is None or not hasattr(shorten, "remove_dynamo_frames"):
        return None

    def __reduce__(self: Any) -> Tuple[Any, ...]:
        state = {k: v for k, v in self.__dict__.items() if k != "first_useful_frame"}
        return (error_class, (str(self),), state)

    def remove_dynamo_frames(self: Any) -> Any:
        """Dynamo's cut, left undone (not its AssertionError) where the user's frame is no longer
        in the traceback (a handler re-raised the error with a traceback of its own)."""
        tb = self.__traceback__
        while tb is not None and tb.tb_frame is not self.first_useful_frame:
            tb = tb.tb_next
        return self if tb is None else self.with_traceback(tb)

    members = {"__reduce__": __reduce__, "remove_dynamo_frames": remove_dynamo_frames, "__module__": error_class.__module__, "__qualname__": error_class.__qualname__}
    made = type(error_class.__name__, (error_class, shorten), members)
    _CLASS.append(made)
    return made


def _compiled_caller() -> bool:
    """Whether a compiled function's dynamo wrapper is among the live callers (only when a call
    has been refused: a walk up the stack)."""
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if code.co_name in _WRAPPERS and code.co_filename.endswith(_EVAL_FRAME):
            return True
        frame = frame.f_back
    return False


_WRAPPERS = frozenset(("compile_wrapper",))  # the wrapper that shortens (not `disable`'s `_fn`)
_EVAL_FRAME = ("_dynamo/eval_frame.py", "_dynamo\\eval_frame.py")


def _statement(file: str, line: int, function: str) -> CodeType:
    """One `raise` at `line` of `file`, in a code object named `function`. The statement spans
    the user's line exactly (padded inside its parentheses), so that `traceback` marks no part of
    the user's line as the failing expression."""
    import linecache

    text = linecache.getline(file, line).rstrip("\n").rstrip()
    indent = len(text) - len(text.lstrip()) if line > 1 else 0
    body = "raise (_error)"
    width = len(text) - indent
    if width > len(body):
        body = "raise (_error" + " " * (width - len(body)) + ")"
    head = "\n" * (line - 2) + "if 1:\n" if indent else "\n" * (line - 1)
    code = compile(head + " " * indent + body + "\n", file, "exec")
    return code.replace(co_name=function_name(function.rsplit(".", 1)[-1]))


def raise_at(err: BaseException, user: Optional[Tuple[str, int, str]]) -> None:
    """Raises `err` (a TargetError) from a frame standing for the user's line `user` (file, line,
    function), with the frames between the compiled function's call and that line cut, when a
    compiled function is running and the user's line is known; else returns (the caller raises
    as it would without a compiled function)."""
    made = _shortening(type(err)) if user is not None and user[0] and user[1] >= 1 and _compiled_caller() else None
    if made is None:
        return
    err.__class__ = made
    try:
        exec(_statement(*user), {"_error": err.with_traceback(None)})  # noqa: S102 - a constant raise
    except made as raised:
        tb = raised.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next  # the statement's frame, the last one
        raised.first_useful_frame = tb.tb_frame if tb is not None else None
        raise raised.with_traceback(tb) from None


def function_name(name: str) -> str:
    """The user's function for a code name: dynamo's resume functions after a graph break
    (`torch_dynamo_resume_in_step_at_5`) by the function they resume."""
    match = _RESUME.fullmatch(name)
    return match.group(1) if match else name


_RESUME = re.compile(r"torch_dynamo_resume_in_(.+)_at_\d+")


def at_line(err: BaseException, frame: FrameType) -> BaseException:
    """`err` with a traceback of one entry: the live `frame` at the line it runs now (the call
    that is refused); no traceback where the frame has no line now."""
    line = frame.f_lineno
    return err.with_traceback(None if line is None else TracebackType(None, frame, frame.f_lasti, line))


def ending(err: BaseException) -> BaseException:
    """What a wrapper raises again when its check refused a call: `err` with its traceback cut to
    its last entry when that is the user's frame (`at_line`), so that the wrapper's own frame is
    the only labelguard frame before it; else (a refusal inside a compiled function, whose
    frames `raise_at` placed, or raised without a user's frame) `err` as a bare `raise` would
    raise it (without the wrapper's entry, which raising adds back)."""
    head = err.__traceback__
    last = head
    while last is not None and last.tb_next is not None:
        last = last.tb_next
    if getattr(err, "first_useful_frame", None) is None and last is not None and top_module(last.tb_frame) != "labelguard":
        return err.with_traceback(last)
    return err.with_traceback(head.tb_next if head is not None else None)


def hide_refusals(info: Any) -> bool:
    """pytest's `__tracebackhide__` of the modules whose wrappers raise refusals again: pytest's
    report of a TargetError leaves their frames out (as it leaves out its own); any other error
    (PyTorch's own, a bug of labelguard's) keeps them."""
    from ._report import TargetError

    return isinstance(getattr(info, "value", None), TargetError)
