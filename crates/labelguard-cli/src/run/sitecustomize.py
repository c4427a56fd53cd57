"""Switches labelguard's guards on inside a Python process started by `labelguard run`.

`labelguard run` writes this file into a private directory and puts that directory first on
PYTHONPATH, so Python imports it at start-up, before the user's script. It:

1. runs the sitecustomize it shadows (the next one on sys.path: a distribution's, a conda
   environment's, or the user's), so that nothing the environment relies on is lost;
2. unless LABELGUARD_GUARD=0 (`--no-guard`), calls `labelguard.enable()` right after the program
   imports torch. It never imports torch itself: Python processes that do not use torch (pip,
   tools started by the training script) start as fast as before and are left alone;
3. with LABELGUARD_CAPTURE=DIR (`--capture DIR`), saves the failing call of an uncaught
   exception with `labelguard.capture(DIR)` (which says where it saved it).

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
    labelguard = _labelguard()
    if labelguard is None:
        return
    try:
        labelguard.enable()
    except Exception as e:
        _say("the Python guards are off: labelguard.enable() failed (%s: %s)" % (type(e).__name__, e))


class _AfterTorch:
    """A meta-path finder that runs `_enable` right after `import torch` has finished."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec("torch")
        loader = getattr(spec, "loader", None)
        if loader is not None and hasattr(loader, "exec_module"):
            run = loader.exec_module

            def exec_module(module):
                run(module)
                _enable()

            loader.exec_module = exec_module
        return spec


def _capture_uncaught(directory):
    """Saves the failing call of an uncaught exception into `directory`, then reports as usual."""
    previous = sys.excepthook

    def hook(kind, exc, tb):
        labelguard = _labelguard()
        if labelguard is not None:
            try:
                # The context manager's exit saves the call (or batch) and says where.
                labelguard.capture(directory).__exit__(kind, exc, tb)
            except Exception as e:
                _say("could not save the failing call (%s: %s)" % (type(e).__name__, e))
        previous(kind, exc, tb)

    sys.excepthook = hook


_chain()
if os.environ.get("LABELGUARD_GUARD", "1") != "0":
    if "torch" in sys.modules:
        _enable()
    else:
        sys.meta_path.insert(0, _AfterTorch())
if os.environ.get("LABELGUARD_CAPTURE"):
    _capture_uncaught(os.environ["LABELGUARD_CAPTURE"])
