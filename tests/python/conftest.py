import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def labelguard_bin() -> str:
    """The CLI under test: $LABELGUARD_BIN, else a fresh release build of the workspace."""
    env = os.environ.get("LABELGUARD_BIN")
    if env:
        return env
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "labelguard-cli"], cwd=ROOT, check=True)
    return str(ROOT / "target" / "release" / "labelguard")


@pytest.fixture(scope="session")
def labelguard() -> str:
    return labelguard_bin()

