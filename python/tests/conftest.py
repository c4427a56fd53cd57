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
    config.addinivalue_line("markers", "slow: a test that takes more than about 20 s (deselect with -m 'not slow')")
