"""Ctrl-C mid-scan, checked from outside the command (issue 35): the pip-installed `labelguard`
must stop as the binary does, at once, with no output written and no Python traceback.

Shared by python/tests/test_command.py (the tests' venv) and tools/smoke_wheel.py (each built
wheel in a fresh venv, make test-dist): plain asserts, no pytest, any CPython from 3.9.
"""

import os
import pathlib
import random
import signal
import struct
import subprocess
import time
import zlib


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


def interrupted(args, *, stdin=None, cwd=None, env=None, settle=3.0):
    """Starts `args` (in `env`, default this process's), sends SIGINT after `settle` seconds (the
    command must still be running), and returns (returncode, stderr, seconds from the signal to
    the exit). 3 s, not less: at load 13 on 2 cores CPython's start and the package's import took
    over 1 s, and a SIGINT then is Python's KeyboardInterrupt, not the command's."""
    proc = subprocess.Popen(args, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env)
    time.sleep(settle)
    assert proc.poll() is None, "the command ended before the signal: the dataset is too small"
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the command ignored SIGINT for 10 s") from None
    return proc.returncode, err.decode(errors="replace"), time.monotonic() - sent


def ctrl_c_mid_scan(start, root: pathlib.Path, env=None) -> float:
    """Runs `start + ["scan", ...]` (a big dataset made under `root`, with -o and --html) and
    interrupts it: it must end by SIGINT (a shell reports 130) within 2 s, print no traceback and
    write no output. Returns the seconds from the signal to the exit."""
    data = big_dataset(root)
    out = root / "out"
    out.mkdir()
    args = [*start, "scan", str(data), "--num-classes", "19", "-o", str(out / "r.json"), "--html", str(out / "r.html")]
    code, err, took = interrupted(args, cwd=root, env=env)
    assert code == -signal.SIGINT, (code, err)
    assert took < 2.0, f"{took:.2f} s from Ctrl-C to the exit"
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert list(out.iterdir()) == [], "outputs written after Ctrl-C"
    return took
