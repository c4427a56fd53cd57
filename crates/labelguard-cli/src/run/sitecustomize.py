"""Switches labelguard's guards on inside a Python process started by `labelguard run`.

`labelguard run` writes this file into a private directory and puts that directory first on
PYTHONPATH, so Python imports it at start-up, before the user's script. It:

1. runs the sitecustomize it shadows (the next one on sys.path: a distribution's, a conda
   environment's, or the user's), so that nothing the environment relies on is lost;
2. unless LABELGUARD_GUARD=0 (`--no-guard`), calls `labelguard.enable()` right after the program
   imports torch, however it does (`_labelguard_after_import.py`, written beside this file: the
   package's `_after_import.py`): any import order, transformers' and datasets' `find_spec`
   probes, `importlib.import_module`, lazy modules, `runpy`. It never imports torch itself:
   Python processes that do not use torch (pip, tools started by the training script) start as
   fast as before and are left alone. The first process of the run whose guards come on says so
   on stderr, with torch's version; each process leaves its count of checked calls for `run`'s
   closing summary (`run/guards.rs`); a process that imported torch and could not switch the
   guards on says why (once per run), and so does the summary;
3. with LABELGUARD_CAPTURE=DIR (`--capture DIR`), saves the failing call of an uncaught
   exception with `labelguard.capture(DIR)` (which says where it saved it; each rank of a
   multi-process job under DIR/rank{N}/), and that of a TargetError in a DataLoader worker;
4. in one rank of a multi-process job (WORLD_SIZE > 1, or an initialised process group of more
   than one rank), ends the process EXIT_GRACE seconds after an uncaught exception was printed
   if it has not ended by then: Python's own shutdown can wait forever (a non-daemon thread, a
   process group's destructor waiting for its peers), and while the failed rank lives the
   others wait for it in their next collective until its timeout (30 minutes for gloo, 10 for
   NCCL) instead of failing at once;
5. when a rank ends with an error (an uncaught exception, a failure under mp.spawn, a non-zero
   sys.exit), leaves a file `ended-RANK-PID` in LABELGUARD_RUN_DIR: `labelguard run`'s
   --hang-timeout starts from that, not from an error being printed (a rank may catch a
   TargetError, print it and go on).

Every process of the job runs it: torchrun, `python -m torch.distributed.run` and `accelerate
launch` start their workers with this environment, and so do `torch.multiprocessing.spawn` and
DataLoader workers started by spawn or forkserver (forked workers inherit the enabled guards).

When `import labelguard` fails it prints one line on stderr saying that the guards are off and
why, once per process tree (DataLoader workers and other child processes stay quiet), and the
program runs on unguarded. It never stops the program.
"""

import os
import sys


def _say(message):
    sys.stderr.write("labelguard run: " + message + "\n")
    sys.stderr.flush()


def _chain():
    """Executes the next sitecustomize on sys.path, the one this file shadows."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    # What `import sitecustomize` returns from now on is the module this one stands in for.
    sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # the same leniency as site.py: report and carry on
        _say("error in %s: %s: %s" % (spec.origin, type(e).__name__, e))


def _labelguard():
    """The labelguard package, or None after saying (once per process tree) why not."""
    try:
        import labelguard
    except Exception as e:
        if not os.environ.get("LABELGUARD_RUN_WARNED"):
            os.environ["LABELGUARD_RUN_WARNED"] = "1"  # inherited: child processes stay quiet
            _say(
                "the Python guards are off: `import labelguard` failed in %s (%s: %s); "
                "install the labelguard package into this environment to switch them on"
                % (sys.executable, type(e).__name__, e)
            )
        return None
    return labelguard


def _enable():
    """Switches the guards on, and says so once per run (or why not, once per process tree)."""
    labelguard = _labelguard()
    if labelguard is None:
        return
    try:
        labelguard.enable()
    except Exception as e:
        _off("labelguard.enable() failed (%s: %s)" % (type(e).__name__, e))
        return
    _count_at_exit()
    if _first("guards-on"):
        _say("the guards are on (torch %s): each guarded call is checked before it runs" % _torch_version())
    _write("guards-on", _torch_version())


def _off(why):
    _write("guards-off-%d" % os.getpid(), why)
    if _first("guards-off"):
        _say("the Python guards are off: torch %s was imported, but %s" % (_torch_version(), why))


def _after_torch():
    _STATE["after_torch"] = True
    if os.environ.get("LABELGUARD_GUARD", "1") != "0":
        _enable()
    _end_spawned_ranks()
    if os.environ.get("LABELGUARD_CAPTURE"):
        _capture_in_workers(os.environ["LABELGUARD_CAPTURE"])


def _capture_in_workers(directory):
    """A DataLoader worker hands its exception to the main process as text (torch._utils.
    ExceptionWrapper), so the failing call is lost there: the worker saves it itself, when the
    wrapper is made."""
    utils = sys.modules.get("torch._utils")
    cls = getattr(utils, "ExceptionWrapper", None)
    if cls is None or getattr(cls.__init__, "labelguard", False):
        return
    init = cls.__init__

    def __init__(self, exc_info=None, where="in background"):
        kind, exc, tb = exc_info or sys.exc_info()
        if getattr(exc, "call", None) is not None and "DataLoader worker" in str(where):
            _save(directory, kind, exc, tb)
        init(self, exc_info, where)

    __init__.labelguard = True
    cls.__init__ = __init__


def _end_spawned_ranks():
    """torch.multiprocessing.spawn runs each rank in `_wrap`, which catches the rank's exception,
    hands it to the parent and calls sys.exit(1): no excepthook runs. Wrapped here (under the
    same name, so that spawn's pickling finds it) so that such a rank ends too, and its failing
    call is saved under --capture."""
    spawn = sys.modules.get("torch.multiprocessing.spawn")
    original = getattr(spawn, "_wrap", None)
    if original is None or getattr(original, "labelguard", False):
        return

    def _wrap(fn, i, args, error_file, *rest, **kwargs):
        def rank(*a, **k):
            try:
                return fn(*a, **k)
            except Exception:
                if os.environ.get("LABELGUARD_CAPTURE"):
                    _save(os.environ["LABELGUARD_CAPTURE"], *sys.exc_info())
                raise

        try:
            return original(rank, i, args, error_file, *rest, **kwargs)
        except SystemExit as e:
            if e.code not in (0, None) and _one_of_several_ranks():
                _ending(i)
            raise

    _wrap.__module__, _wrap.__qualname__, _wrap.labelguard = original.__module__, original.__qualname__, True
    spawn._wrap = _wrap


#: `after_torch`: `_after_torch` has run in this process; `base`, `refused_base`: the counts of
#: checked and refused calls that a forked child inherited from its parent.
_STATE = {"after_torch": False, "base": 0, "refused_base": 0}


def _torch_version():
    return getattr(sys.modules.get("torch"), "__version__", "of unknown version")


def _checked(counter="checked", base="base"):
    """The calls the guards of this process checked (or, with `refused`, refused), or None
    without the counter."""
    count = getattr(sys.modules.get("labelguard._guard"), counter, None)
    try:
        return None if count is None else count() - _STATE[base]
    except Exception:
        return None


def _refused():
    return _checked("refused", "refused_base")


def _run_file(name):
    directory = os.environ.get("LABELGUARD_RUN_DIR")
    return os.path.join(directory, name) if directory else None


def _first(name):
    """True in the first process of the run to ask for `name` (a file made in LABELGUARD_RUN_DIR:
    ranks and workers started side by side say a thing once between them)."""
    path = _run_file(name)
    if path is None:
        key = "LABELGUARD_RUN_" + name.upper().replace("-", "_")
        first = not os.environ.get(key)
        os.environ[key] = "1"
        return first
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        return True
    except FileExistsError:
        return False
    except OSError:
        return True


def _write(name, text):
    path = _run_file(name)
    if path is None:
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError:
        pass


def _count_at_exit():
    """Leaves this process's count of checked calls in LABELGUARD_RUN_DIR for `run`'s closing
    summary, as it exits: through atexit, and through multiprocessing's finalizers in a process
    that multiprocessing started (a DataLoader worker, a fork server's child: they end with
    os._exit, which runs no atexit), a forked one counting from the fork."""
    import atexit

    def leave():
        n = _checked()
        if n is not None:
            _write("checked-%d" % os.getpid(), "%d %d" % (n, _refused() or 0))

    atexit.register(leave)

    def forked():
        _STATE["base"] += _checked() or 0
        _STATE["refused_base"] += _refused() or 0

    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=forked)
    try:
        import multiprocessing.util as util  # (torch has imported it already)
    except ImportError:
        return
    util.Finalize(None, leave, exitpriority=0)
    # A process forked later by multiprocessing, once it has cleared the parent's finalizers.
    util.register_after_fork(_STATE_HOLDER, lambda _: util.Finalize(None, leave, exitpriority=0))


class _Holder:
    """What multiprocessing's after-fork registry keys on (it keeps a weak reference)."""


_STATE_HOLDER = _Holder()


#: Seconds a rank may take to end after its uncaught exception was printed.
EXIT_GRACE = 3.0


def _one_of_several_ranks():
    try:
        if int(os.environ.get("WORLD_SIZE", "1")) > 1:
            return True
    except ValueError:
        pass
    dist = sys.modules.get("torch.distributed")
    try:
        return bool(dist and dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1)
    except Exception:
        return False


def _rank(default=None):
    dist = sys.modules.get("torch.distributed")
    try:
        if dist and dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except Exception:
        pass
    rank = os.environ.get("RANK", "")
    return int(rank) if rank.isdigit() else default


def _ending(rank=None):
    """This rank is ending with an error: tells `labelguard run` (a file in its private
    directory) and makes sure the process ends."""
    directory = os.environ.get("LABELGUARD_RUN_DIR")
    if directory:
        rank = _rank(rank)
        name = "ended-%s-%d" % ("" if rank is None else rank, os.getpid())
        try:
            open(os.path.join(directory, name), "w").close()
        except OSError:
            pass
    _end_soon()


def _on_exit():
    """A rank that calls sys.exit with an error status (after printing its own traceback, say)
    ends as one with an uncaught exception does."""
    original = sys.exit

    def exit(status=None):
        if status not in (0, None) and _one_of_several_ranks():
            _ending()
        original(status)

    sys.exit = exit


def _end_soon():
    import threading

    def end():
        sys.stderr.flush()
        os._exit(1)  # the status of an uncaught exception

    timer = threading.Timer(EXIT_GRACE, end)
    timer.daemon = True
    timer.start()


def _save(directory, kind, exc, tb):
    """Saves the failing call (or batch) of an exception with `labelguard.capture(directory)`,
    whose exit says where."""
    labelguard = _labelguard()
    if labelguard is not None:
        try:
            labelguard.capture(directory).__exit__(kind, exc, tb)
        except Exception as e:
            _say("could not save the failing call (%s: %s)" % (type(e).__name__, e))


def _on_uncaught(directory):
    """Saves the failing call of an uncaught exception into `directory` (when given), reports
    as usual, and makes sure that a failed rank ends."""
    previous = sys.excepthook

    def hook(kind, exc, tb):
        if directory:
            _save(directory, kind, exc, tb)
        previous(kind, exc, tb)
        if not issubclass(kind, KeyboardInterrupt) and _one_of_several_ranks():
            _ending()

    sys.excepthook = hook


def _at_exit():
    """torch was imported and nothing switched the guards on (its loader could not be wrapped,
    or a finder ahead of labelguard's found it and no import came after): the run must not look
    guarded."""
    if "torch" in sys.modules and not _STATE["after_torch"] and os.environ.get("LABELGUARD_GUARD", "1") != "0":
        loader = getattr(getattr(sys.modules["torch"], "__spec__", None), "loader", None)
        _off(_AFTER_TORCH.why_not or "the guards never saw it arrive (it was loaded by %r)" % (loader,))


_chain()
# Beside this file (`labelguard run` writes both): the finder that runs `_after_torch`.
import _labelguard_after_import as _after_import  # noqa: E402

_AFTER_TORCH = _after_import.AfterImport("torch", _after_torch).install()
if not _STATE["after_torch"]:
    import atexit

    atexit.register(_at_exit)
_on_uncaught(os.environ.get("LABELGUARD_CAPTURE"))
_on_exit()
