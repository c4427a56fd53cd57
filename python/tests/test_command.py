"""The pip-installed `labelguard` command is the binary's equal (issue 35): Ctrl-C stops it at
once, as it stops the binary, with no output written and no Python traceback; its exit codes are
the binary's.

The command is the console script installed beside this interpreter (`make python` installs the
package into the tests' venv), run as a user runs it.
"""
import os
import pathlib
import random
import pty
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def command() -> str:
    found = shutil.which("labelguard", path=str(pathlib.Path(sys.executable).parent))
    assert found, f"no `labelguard` console script beside {sys.executable}: install the package (make python)"
    return found


def png_mask(width: int, height: int, classes: int) -> bytes:
    """An 8-bit greyscale PNG of random class ids below `classes` (random, so that zlib cannot
    shrink it and every copy costs a real decode)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ids = bytes(range(classes)) * (256 // classes + 1)
    noise = random.Random(0)
    rows = b"".join(b"\x00" + noise.randbytes(width).translate(ids[:256]) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def big_dataset(root: pathlib.Path, files: int = 20_000) -> pathlib.Path:
    """`files` 1024x1024 masks of random ids (hard links of one file: quick to make, each read
    and decoded by the scan): minutes of scanning on a quiet machine, so that a signal lands
    mid-scan (512x512 masks of one value were scanned in under a second on a quiet CI machine)."""
    masks = root / "data" / "masks"
    masks.mkdir(parents=True)
    first = masks / "m0.png"
    first.write_bytes(png_mask(1024, 1024, 19))
    for i in range(1, files):
        os.link(first, masks / f"m{i}.png")
    return root / "data"


def interrupted(args, *, stdin=None, cwd=None, settle=1.0):
    """Starts `args`, sends SIGINT after `settle` seconds (the command must still be running),
    and returns (returncode, stderr, seconds from the signal to the exit)."""
    proc = subprocess.Popen(args, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    time.sleep(settle)
    assert proc.poll() is None, "the command ended before the signal: the dataset is too small"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("the command ignored SIGINT for 10 s")
    return proc.returncode, err.decode(errors="replace"), time.monotonic() - sent


@pytest.mark.parametrize("how", ["console script", "python -m labelguard"])
def test_ctrl_c_stops_a_scan_at_once_with_no_outputs_and_no_traceback(tmp_path, how):
    data = big_dataset(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    start = [command()] if how == "console script" else [sys.executable, "-m", "labelguard"]
    args = [*start, "scan", str(data), "--num-classes", "19", "-o", str(out / "r.json"), "--html", str(out / "r.html")]
    code, err, took = interrupted(args, cwd=tmp_path)
    # Ended by SIGINT, as the binary is (a shell reports 128 + 2 = 130).
    assert code == -signal.SIGINT, (code, err)
    assert took < 2.0, f"{took:.2f} s from Ctrl-C to the exit"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert list(out.iterdir()) == [], "outputs written after Ctrl-C"


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
