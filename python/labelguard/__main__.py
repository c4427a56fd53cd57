"""`python -m labelguard ...`: the same commands as the `labelguard` binary."""

import sys

from . import _native


def main() -> int:
    return _native.cli(["labelguard", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
