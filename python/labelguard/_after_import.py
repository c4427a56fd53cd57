"""Runs a function right after a module has been imported, however it is imported: an `import`
statement in any order, `importlib.import_module`, a lazy module's attribute (transformers'
`_LazyModule`), `runpy`.

Standalone (it imports nothing of labelguard): `labelguard run` writes this file beside its
sitecustomize, which switches the guards on after `import torch` without importing labelguard
first; `enable()` uses it to prepare the torch.compile path only once `torch._dynamo` is
imported (importing dynamo itself takes seconds).

The finder stays on sys.meta_path until the module's own code has run. A probe
(`importlib.util.find_spec("torch")`, which transformers, datasets and accelerate make before
they import anything) gets a spec like any other and changes nothing: only the spec that the
import system executes runs `then`. The spec comes from the finders after this one (the next
one on sys.meta_path that knows the module), whose loader is given an `exec_module` that runs
the original and then `then`.
"""

import sys


class AfterImport:
    """`then()` once module `name` has been imported. A module that arrives another way (a
    finder ahead of this one found it, or it was being imported when this was installed) is
    seen complete at the next import of anything, and `then` runs there. `why_not` says why the
    module's loader could not be wrapped, if it could not."""

    def __init__(self, name, then):
        self.name, self.then = name, then
        self.asking = False  # while the finders after this one are asked (no recursion)
        self.done = False
        self.why_not = None

    def install(self):
        """Puts the finder first on sys.meta_path; runs `then` now if the module is imported."""
        if self.name in sys.modules and not initializing(self.name):
            self.ran()
        else:
            sys.meta_path.insert(0, self)
        return self

    def ran(self, leave=True):
        """The module's code has run: `then` (once), the finder off sys.meta_path first unless
        `leave` is False (inside an import's walk over sys.meta_path, which a removal would
        make skip the next finder: it stays, inert)."""
        if self.done:
            return
        self.done = True
        if leave and self in sys.meta_path:
            sys.meta_path.remove(self)
        self.then()

    def find_spec(self, name, path=None, target=None):
        if self.done or self.asking:
            return None
        if name != self.name:
            if self.name in sys.modules and not initializing(self.name):
                self.ran(leave=False)
            return None
        self.asking = True
        try:
            spec = self._next(name, path, target)
        finally:
            self.asking = False
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if run is not None and getattr(run, "after_import", None) is not self:
            ran = self.ran

            def exec_module(module):
                run(module)
                ran()

            exec_module.after_import = self
            try:
                loader.exec_module = exec_module
            except (AttributeError, TypeError) as e:
                self.why_not = "its loader %r cannot be wrapped (%s)" % (loader, e)
        return spec

    def _next(self, name, path, target):
        finders = sys.meta_path
        start = next((i + 1 for i, f in enumerate(finders) if f is self), 0)
        for finder in list(finders[start:]):
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                return spec
        return None


def initializing(name):
    """Whether module `name` is being imported now (its code runs: its own imports)."""
    return bool(getattr(getattr(sys.modules.get(name), "__spec__", None), "_initializing", False))
