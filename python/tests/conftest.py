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


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: compiles with inductor on the CPU or runs long (deselect with -m 'not slow')")
