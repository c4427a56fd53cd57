#!/usr/bin/env python3
"""`labelguard scan s3://bucket/masks` on a local S3 server vs `labelguard scan masks/` on disk
(see docs/benchmarks-history.md, issue 26).

    python3 bench/bucket.py --bin target/release/labelguard --rclone .venv/bin/rclone \
        [--files 1000] [--size 512] [--runs 3] [--jobs 8,32]

Writes FILES distinct SIZE x SIZE 8-bit grey PNG masks (ids 0-18, 4x4 blocks of classes that
differ per file, so each decodes for real) into a folder that is also the backend of
`rclone serve s3` (started here on 127.0.0.1, a free port, an access key pair). Then, in
turn, run after run:

  disk   labelguard scan DIR/bucket/masks --num-classes 19 --no-config --format json -q -o OUT
  s3     the same on s3://bucket/masks, AWS_ENDPOINT_URL at the server, for each --jobs J

Prints each run's wall seconds and peak RSS (/usr/bin/time -v), the medians, files per second
and the ratio s3/disk throughput; checks that every report counted every file and that the
findings are the same. The files stay in the page cache (the server reads them from it too):
this measures the protocol, the server and the client's parallelism, not the disk.
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from many_files import png_gray8, timed  # noqa: E402

KEY, SECRET = "bench-key", "bench-secret"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mask(i, size):
    """A mask whose class blocks depend on i (ids 0-18; every 50th has a block of id 200)."""
    px = bytearray(size * size)
    block = 4
    for y in range(size):
        row = y * size
        for x in range(size):
            px[row + x] = ((x // block) * 3 + (y // block) * 5 + i) % 19
    if i % 50 == 0:
        for y in range(block):
            px[y * size : y * size + block] = bytes([200]) * block
    return png_gray8(size, size, px)


def findings(report):
    """(rule, file name) of every finding, the file named by its path under the root."""
    out = []
    for f in report.get("files", []):
        name = f["path"].rsplit("masks/", 1)[-1]
        for x in f.get("findings", []):
            out.append((x["code"], name))
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard")
    ap.add_argument("--rclone", default=".venv/bin/rclone")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", default="8,32", help="the --jobs values of the s3 scans")
    a = ap.parse_args()
    jobs = [int(j) for j in a.jobs.split(",")]
    root = tempfile.mkdtemp(prefix="lg-bucket-")
    masks = os.path.join(root, "bucket", "masks")
    os.makedirs(masks)
    for i in range(a.files):
        with open(os.path.join(masks, f"m{i:06d}.png"), "wb") as f:
            f.write(mask(i, a.size))
    total = sum(os.path.getsize(os.path.join(masks, n)) for n in os.listdir(masks))
    port = free_port()
    server = subprocess.Popen(
        [a.rclone, "serve", "s3", "--config", "/dev/null", "--auth-key", f"{KEY},{SECRET}",
         "--addr", f"127.0.0.1:{port}", root],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    env = dict(os.environ, AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}", AWS_ACCESS_KEY_ID=KEY,
               AWS_SECRET_ACCESS_KEY=SECRET, AWS_REGION="us-east-1", HOME="/nonexistent")
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        out = os.path.join(root, "report.json")
        common = ["--num-classes", "19", "--no-config", "--format", "json", "-q", "-o", out]
        cases = [("disk", [a.bin, "scan", masks] + common)]
        cases += [(f"s3 --jobs {j}", [a.bin, "scan", "s3://bucket/masks", "--jobs", str(j)] + common) for j in jobs]
        times = {name: [] for name, _ in cases}
        rss = {name: [] for name, _ in cases}
        seen = {}
        print(f"{a.files} masks of {a.size}x{a.size}, {total / 1e6:.1f} MB, {os.cpu_count()} cores, "
              f"rclone serve s3 on 127.0.0.1:{port}")
        for run in range(a.runs):
            for name, argv in cases:
                old = dict(os.environ)
                os.environ.clear()
                os.environ.update(env)
                try:
                    wall, kib, _ = timed(argv)
                finally:
                    os.environ.clear()
                    os.environ.update(old)
                with open(out) as f:
                    report = json.load(f)
                files = report["summary"]["files_scanned"]
                if files != a.files:
                    raise SystemExit(f"{name}: scanned {files} files, expected {a.files}")
                seen.setdefault(name, findings(report))
                times[name].append(wall)
                rss[name].append(kib)
                print(f"run {run + 1} {name:>14}: {wall:6.2f} s  {kib / 1024:6.1f} MiB")
        for name in seen:
            if seen[name] != seen["disk"]:
                raise SystemExit(f"{name}: the findings differ from the disk scan's")
        disk = statistics.median(times["disk"])
        print(f"\nmedians of {a.runs} runs (the findings of every scan are the same: {len(seen['disk'])}):")
        for name, _ in cases:
            m = statistics.median(times[name])
            print(f"  {name:>14}: {m:6.2f} s  {a.files / m:8.0f} files/s  {total / m / 1e6:6.1f} MB/s  "
                  f"peak RSS {statistics.median(rss[name]) / 1024:6.1f} MiB  throughput vs disk {disk / m:5.2f}x")
    finally:
        server.terminate()
        server.wait()
        subprocess.run(["rm", "-rf", root])


if __name__ == "__main__":
    main()
