"""What the real-library tests (test_libraries*.py, test_indexing.py) assert of enable(): a bad call refused with
its rule, the user's frame (the test file's own line) and the library call named, with the fix;
a valid call raising and warning nothing, its outputs bit-identical to plain PyTorch's."""

import inspect
import os
import random
import warnings

import numpy as np
import pytest
import torch

import labelguard
from labelguard import TargetError, TargetWarning


def refusal(fn) -> TargetError:
    """The TargetError that fn raises under enable() (enable() is undone either way)."""
    labelguard.enable()
    try:
        with pytest.raises(TargetError) as info:
            fn()
    finally:
        labelguard.disable()
    return info.value


def caught(fn, code, library_call, fix):
    """Runs fn under enable(); asserts the refusal, the rule, the user's line (in the calling
    test file), the library call and the fix."""
    caller = inspect.currentframe().f_back
    here, line = os.path.basename(caller.f_code.co_filename), caller.f_lineno
    err = refusal(fn)
    text = str(err)
    assert err.code == code, text
    assert err.call_site is not None and err.call_site.user is not None, text
    assert os.path.basename(err.call_site.user[0]) == here, text
    assert f"your code: {here}:" in text and library_call in text, text
    assert fix in text, text
    # The user's frame is the test's own call (the line of the lambda passed here or a helper in its file).
    assert err.call_site.user[1] <= line
    return err


def seed():
    torch.manual_seed(1)
    np.random.seed(1)
    random.seed(1)


def identical(fn):
    """fn's outputs without and with enable(): equal bit for bit, and no error or warning."""
    seed()
    plain = fn()
    labelguard.enable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", TargetWarning)
            seed()
            checked = fn()
    finally:
        labelguard.disable()
    flat = lambda o: [t for t in (o if isinstance(o, (tuple, list)) else [o]) if isinstance(t, torch.Tensor)]
    for a, b in zip(flat(plain), flat(checked), strict=True):
        assert torch.equal(a, b)


def child_json(tmp_path, name, source):
    """Runs `source` as the script `name` in a child process (for libraries whose import changes
    global torch behaviour) and returns the JSON object its last line prints."""
    import json
    import subprocess
    import sys

    script = tmp_path / name
    script.write_text(source)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def mmseg_cross_entropy_loss():
    """mmseg's own CrossEntropyLoss, from its file: `mmseg.models`' __init__ imports every head,
    and some of them mmcv's compiled ops, which have no wheels for this torch (mmcv-lite is mmcv
    without them); the loss uses none of them, so its package is entered without its __init__."""
    import importlib
    import pathlib
    import sys
    import types

    import mmseg

    root = pathlib.Path(mmseg.__file__).parent
    for name in ("mmseg.models", "mmseg.models.losses"):
        if name not in sys.modules:
            package = types.ModuleType(name)
            package.__path__ = [str(root.joinpath(*name.split(".")[1:]))]
            sys.modules[name] = package
    return importlib.import_module("mmseg.models.losses.cross_entropy_loss").CrossEntropyLoss
