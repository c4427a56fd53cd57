import pathlib
import sys

import pytest

# The foundation's random-call generator (tests/python/differential.py) drives the Python API too.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "python"))


@pytest.fixture(autouse=True)
def _disabled_after_each_test():
    import labelguard

    yield
    labelguard.disable()


@pytest.fixture(scope="session")
def cli() -> str:
    """The `labelguard` binary under test: $LABELGUARD_BIN, else the workspace's release build."""
    import os

    binary = os.environ.get("LABELGUARD_BIN", str(pathlib.Path(__file__).resolve().parents[2] / "target" / "release" / "labelguard"))
    if not pathlib.Path(binary).exists():
        pytest.skip(f"no labelguard binary at {binary} (set LABELGUARD_BIN)")
    return binary


def pytest_configure(config):
    # Also in pytest.ini (which a run from python/ does not read).
    config.addinivalue_line("markers", "slow: compiles with inductor on the CPU or runs long (deselect with -m 'not slow')")
