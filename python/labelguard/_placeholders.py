"""Placeholder steps (`_libraries.PLACEHOLDER_STEPS`): library methods that pair a VLM's image
(video, audio) placeholder tokens with its feature vectors before the merge by `masked_scatter`,
and that check the counts themselves. `enable()` wraps the method on every subclass of the
library's base class that defines it, those defined later included (a hook on the base's
`__init_subclass__`: transformers imports its models lazily), and checks the merge the
method prepares as a `masked_scatter` call with `exact=True`, so that a mismatch is labelguard's
LG419 at the user's line, before the library's ValueError and torch's assert. Nothing here knows a
model: the step's argument names and config attributes are the table's data.
"""

from __future__ import annotations

import functools
import inspect
import sys
from typing import Any, Callable, Dict, List, Tuple

from ._after_import import AfterImport, initializing
from ._guard import check_or_raise
from ._guard import config as _config
from ._guard import state as _state
from ._libraries import PLACEHOLDER_STEPS, PlaceholderStep
from ._report import TargetError
from ._tensors import shape_view
from ._userframe import ending, hide_refusals

#: pytest leaves this module's frames out of its report of a refusal (`_userframe.hide_refusals`).
__tracebackhide__ = hide_refusals

#: (class, method name, original) of every wrapped method, for `remove`.
_wrapped: List[Tuple[type, str, Any]] = []
_HOOK = "__init_subclass__"
#: (base class, its own `__init_subclass__` or None) of every hooked base, for `remove`.
_hooks: List[Tuple[type, Any]] = []


def _token_id(config: Any, attrs: Tuple[str, ...]) -> Any:
    for attr in attrs:
        value = getattr(config, attr, None)
        if type(value) is int:
            return value
    return None


def _check(step: PlaceholderStep, model: Any, bound: dict, where: str) -> None:
    tensor = sys.modules["torch"].Tensor
    tokens, embeds = bound.get(step.tokens), bound.get(step.embeddings)
    if not isinstance(tokens, tensor) or not isinstance(embeds, tensor):
        return  # (placeholders found from the embeddings: the merge's own wrapper checks it)
    for argument, attrs in step.features:
        features = bound.get(argument)
        token_id = _token_id(getattr(model, "config", None), attrs)
        if not isinstance(features, tensor) or token_id is None:
            continue
        _state.depth += 1  # labelguard's own torch calls
        try:
            mask = (tokens == token_id).unsqueeze(-1)
        finally:
            _state.depth -= 1
        # The library casts the features to the embeddings' dtype before the merge: only the
        # counts are the step's to check.
        call = {"input": embeds, "mask": mask, "source": shape_view(embeds.dtype, features.shape), "exact": True}
        check_or_raise("masked_scatter", call, where)


def _wrap(step: PlaceholderStep, cls: type, original: Callable, is_compiling: Callable[[], bool]) -> Callable:
    signature = inspect.signature(original)
    where = f" (labelguard, {cls.__name__}.{step.method})"

    @functools.wraps(original)
    def labelguard_placeholders(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _config["active"] and not _state.depth and not is_compiling():
            try:
                bound = signature.bind(self, *args, **kwargs).arguments
            except TypeError:
                bound = None  # the library reports its own signature errors
            if bound is not None:
                try:
                    _check(step, self, bound, where)
                except TargetError as err:
                    raise ending(err) from None  # the last frame: the user's line
        return original(self, *args, **kwargs)

    labelguard_placeholders.__labelguard_original__ = original  # type: ignore[attr-defined]
    return labelguard_placeholders


def _wrap_class(cls: type, is_compiling: Callable[[], bool]) -> None:
    top = str(getattr(cls, "__module__", "")).split(".", 1)[0]
    for step in PLACEHOLDER_STEPS:
        original = cls.__dict__.get(step.method)
        if top == step.library and inspect.isfunction(original):
            _wrapped.append((cls, step.method, original))
            setattr(cls, step.method, _wrap(step, cls, original, is_compiling))


def _subclasses(root: type):
    seen, todo = set(), [root]
    while todo:
        cls = todo.pop()
        for sub in type.__subclasses__(cls):
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
                yield sub


def _base(step: PlaceholderStep, is_compiling: Callable[[], bool]) -> Any:
    """The step's base class, once its module has been imported. The module is never imported
    from here: `enable()` may run while the library imports torch, half-imported itself
    (`labelguard run` enables at `import torch`), or before the library is imported at all;
    until the module's code has run, the step waits for it (`AfterImport`), then installs."""
    module, attr = step.base.split(":")
    waiter = _waiting.get(module)
    if module not in sys.modules or (initializing(module) and not (waiter and waiter.done)):
        if waiter is None:
            _waiting[module] = AfterImport(module, lambda: _config["active"] and install(is_compiling)).install()
        return None
    return getattr(sys.modules[module], attr, None)


#: The base modules that steps wait for (one finder each, per process).
_waiting: Dict[str, AfterImport] = {}


def install(is_compiling: Callable[[], bool]) -> None:
    """Wraps the steps of the classes that exist, and of those defined from now on: a hook on
    the base class's `__init_subclass__` (transformers imports its model files lazily, at the
    first use of a model class). The hook is on the library's base class, not `nn.Module`,
    whose subclasses torch.fx makes while dynamo compiles."""
    for step in PLACEHOLDER_STEPS:
        base = _base(step, is_compiling)
        if base is None or any(b is base for b, _ in _hooks):
            continue
        for cls in [base, *_subclasses(base)]:
            _wrap_class(cls, is_compiling)
        original = base.__dict__.get(_HOOK)
        _hooks.append((base, original))

        setattr(base, _HOOK, classmethod(_subclass_hook(base, original, is_compiling)))


def _subclass_hook(base: type, original: Any, is_compiling: Callable[[], bool]) -> Callable:
    """`base.__init_subclass__`: the base's own (or object's), then the new class's wraps."""

    def init_subclass(cls: type, **kwargs: Any) -> None:
        if original is not None:
            original.__get__(None, cls)(**kwargs)
        else:
            super(base, cls).__init_subclass__(**kwargs)
        _wrap_class(cls, is_compiling)

    return init_subclass


def remove() -> None:
    """Restores every wrapped method and the base classes' own `__init_subclass__`."""
    for base, original in reversed(_hooks):
        if original is None:
            delattr(base, _HOOK)
        else:
            setattr(base, _HOOK, original)
    _hooks.clear()
    for cls, name, original in reversed(_wrapped):
        setattr(cls, name, original)
    _wrapped.clear()
