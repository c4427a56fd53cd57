"""The `labelguard` command run inside this process, through the extension (`_native.cli`, the
engine of the wheel's `labelguard` command), with what it prints captured instead of written to
the process's stdout and stderr (which a notebook's kernel does not show in the cell)."""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from typing import Sequence, Tuple

from . import _native


#: One command at a time: the descriptors 1 and 2 are the process's, and two runs that swapped
#: them at once could restore each other's temporary files.
_LOCK = threading.Lock()


def run(argv: Sequence[str]) -> Tuple[int, str, str]:
    """Runs `labelguard ARGV`; returns its exit code, stdout and stderr."""
    if not hasattr(_native, "cli"):
        raise RuntimeError(
            "this build of labelguard has no `labelguard` command in its extension (built without the "
            "`command` feature of crates/labelguard-py): install the wheel, or `pip install ./python`"
        )
    with _LOCK, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = (os.dup(1), os.dup(2))
        try:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            code = _native.cli(["labelguard", *argv])
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        texts = []
        for f in (out, err):
            f.seek(0)
            texts.append(f.read().decode("utf-8", "replace"))
    return code, texts[0], texts[1]
