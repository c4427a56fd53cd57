"""`python -m labelguard ...`: the same commands as the `labelguard` binary.

The command runs inside the extension and never returns to Python's signal check until it is
done, so Python's SIGINT handler (which only raises `KeyboardInterrupt` at the next Python
instruction) would let Ctrl-C go unseen: a scan would run to its end and write its outputs, and
`diagnose` reading a terminal would wait for Ctrl-D. The command process restores the default
action instead, which is what the binary has: Ctrl-C ends it at once, before any output is
written, with the status a shell reports as 130, and no traceback. (`labelguard run` installs
its own handlers to pass signals on to its child, as the binary does.)
"""

import signal
import sys

from . import _native


def main() -> int:
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        return _native.cli(["labelguard", *sys.argv[1:]])
    except KeyboardInterrupt:
        # Ctrl-C in the instant before the default action is back: the same status.
        return 130


if __name__ == "__main__":
    sys.exit(main())
