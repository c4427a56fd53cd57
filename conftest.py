"""Shared by tests/python and python/tests: with -m "not slow" (`make test-fast`), a module marked
slow (`pytestmark = pytest.mark.slow`, see pytest.ini) is not even imported, since the fast lane's
venv has neither torch nor the libraries its imports need."""

import re

# The marker line itself, at the start of a line (a module-level assignment).
SLOW_MARK = re.compile(r"^pytestmark = pytest\.mark\.slow$", re.M)


def pytest_ignore_collect(collection_path, config):
    if collection_path.suffix != ".py" or "not slow" not in (config.getoption("markexpr") or ""):
        return None
    return bool(SLOW_MARK.search(collection_path.read_text(encoding="utf-8"))) or None
