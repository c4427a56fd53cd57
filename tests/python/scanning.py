"""Running `labelguard scan` from the tests and reading its JSON report."""

import json
import subprocess


def scan_json(labelguard: str, path, *args) -> dict:
    """`labelguard scan PATH ARGS --format json --no-config`: the report, after checking that the
    scan ended as a scan does (exit 0 or 1, no panic, within two minutes)."""
    out = subprocess.run(
        [labelguard, "scan", str(path), "--format", "json", "--no-config", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode in (0, 1), out.stderr
    assert "panic" not in out.stderr, out.stderr
    return json.loads(out.stdout)


def file_findings(report: dict):
    """Every finding of every file of the report and of its datasets."""
    for part in [report, *report.get("datasets", [])]:
        for f in part["files"]:
            for x in f["findings"]:
                yield f, x


def write_masks_with_errors_in_every_shard(directory) -> None:
    """12 label arrays for 5 classes in `directory`, every third with class 9: each of the 3 shards
    of a `--shard K/3` scan holds a file with an error (the sharding tests merge real findings)."""
    import numpy as np

    directory.mkdir()
    for i in range(12):
        a = np.zeros((8, 8), np.uint8)
        a[0, 0] = 4
        if i % 3 == 0:
            a[1, 1] = 9
        np.save(directory / f"mask_{i:03d}.npy", a)
