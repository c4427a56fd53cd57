"""The pip-installed `labelguard` command is the binary's equal (issue 35): Ctrl-C stops it at
once, as it stops the binary, with no output written and no Python traceback; its exit codes are
the binary's.

The command is the console script installed beside this interpreter (`make python` installs the
package into the tests' venv), run as a user runs it.
"""
import os
import pathlib
import pty
import shutil
import signal
import subprocess
import sys

import pytest
from interrupted import big_dataset, ctrl_c_mid_scan, interrupted  # tests/python (conftest.py)

ROOT = pathlib.Path(__file__).resolve().parents[2]


def command() -> str:
    found = shutil.which("labelguard", path=str(pathlib.Path(sys.executable).parent))
    assert found, f"no `labelguard` console script beside {sys.executable}: install the package (make python)"
    return found


@pytest.mark.parametrize("how", ["console script", "python -m labelguard"])
def test_ctrl_c_stops_a_scan_at_once_with_no_outputs_and_no_traceback(tmp_path, how):
    # Ended by SIGINT, as the binary is (a shell reports 128 + 2 = 130), within 2 s, nothing written.
    ctrl_c_mid_scan([command()] if how == "console script" else [sys.executable, "-m", "labelguard"], tmp_path)


def test_ctrl_c_stops_diagnose_reading_a_terminal(tmp_path):
    leader, follower = pty.openpty()
    try:
        code, err, took = interrupted([command(), "diagnose"], stdin=follower, cwd=tmp_path)
    finally:
        os.close(leader)
        os.close(follower)
    assert code == -signal.SIGINT, (code, err)
    assert took < 2.0, f"{took:.2f} s from Ctrl-C to the exit"
    assert "Traceback" not in err, err


def test_the_command_keeps_the_binary_exit_codes(tmp_path):
    example = ROOT / "examples" / "cityscapes-mini"
    found = subprocess.run([command(), "scan", str(example), "--preset", "cityscapes"], capture_output=True, text=True)
    assert found.returncode == 1, found.stderr  # errors found
    usage = subprocess.run([command(), "scan"], capture_output=True, text=True)
    assert usage.returncode == 2 and "Usage" in usage.stderr, usage.stderr
    clean = subprocess.run([command(), "scan", str(big_dataset(tmp_path, files=3)), "--num-classes", "19"],
                           capture_output=True, text=True)
    assert clean.returncode == 0, clean.stdout + clean.stderr
