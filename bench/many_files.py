#!/usr/bin/env python3
"""`labelguard scan` on 200,000 small masks in one directory (see docs/benchmarks-history.md, issue 8).

    python3 bench/many_files.py --bin target/release/labelguard [--files 200000] [--runs 3]

Writes one 64x32 8-bit grey PNG (ids 0-9) and hard-links it FILES times (a fresh copy every
50,000: ext4's link limit is 65,000) into one directory
under --dir (default: a new folder in /tmp), so that the tree costs one file's blocks and a
directory's entries on disk. Then, in turn, run after run:

  find   find DIR -type f | wc -l                        the floor: a plain walk of the directory
  scan   labelguard scan DIR --num-classes 10 --no-config --format json -q -o OUT --jobs J

Prints each run's wall seconds and peak RSS (/usr/bin/time -v), the medians and the ratio
scan/find, checks that the report counted every file, and deletes the tree at the end.
Hard links share one inode, so every read after the first hits the same cached page: this
measures the walk, the per-file open/read/decode and the fold, not the disk.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import tempfile
import zlib


def png_gray8(w, h, pixels):
    """A minimal 8-bit greyscale PNG (PNG spec: signature, IHDR, IDAT of filtered rows, IEND)."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\0" + bytes(pixels[y * w : (y + 1) * w]) for y in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


LINKS_PER_COPY = 50_000


def timed(argv, shell=False):
    """(wall seconds, peak RSS in KiB, stdout) of one command under /usr/bin/time -v."""
    cmd = ["/usr/bin/time", "-v"] + (["sh", "-c", argv] if shell else argv)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed ({p.returncode}): {p.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr)
    h, m, s = wall.groups()
    seconds = int(h or 0) * 3600 + int(m) * 60 + float(s)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return seconds, rss, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard")
    ap.add_argument("--files", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--dir", default=None, help="parent of the generated tree (default /tmp)")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="lg-many-files-", dir=a.dir)
    try:
        masks = os.path.join(root, "masks")
        os.mkdir(masks)
        data = png_gray8(64, 32, [(i // 7) % 10 for i in range(64 * 32)])
        for i in range(a.files):
            path = os.path.join(masks, f"m{i:07d}.png")
            if i % LINKS_PER_COPY == 0:  # ext4 allows 65,000 links to one inode
                first = path
                with open(first, "wb") as f:
                    f.write(data)
            else:
                os.link(first, path)
        out = os.path.join(root, "report.json")
        find = f"find {masks} -type f | wc -l"
        scan = [a.bin, "scan", masks, "--num-classes", "10", "--no-config", "--format", "json",
                "-q", "-o", out, "--jobs", str(a.jobs)]
        times = {"find": [], "scan": []}
        rss = {"find": [], "scan": []}
        timed(scan)  # warm-up: the directory and the inode in the page cache
        for r in range(a.runs):
            for way in ("find", "scan"):
                s, k, stdout = timed(find, shell=True) if way == "find" else timed(scan)
                if way == "find" and int(stdout.strip()) != a.files:
                    raise SystemExit(f"find counted {stdout.strip()} files, not {a.files}")
                times[way].append(s)
                rss[way].append(k)
                print(f"run {r + 1} {way:<5} {s:7.2f} s  peak {k / 1024:7.1f} MiB", flush=True)
        with open(out) as f:
            report = json.load(f)
        counted = report["summary"]["files_scanned"]
        if counted != a.files:
            raise SystemExit(f"the report counted {counted} files, not {a.files}")
        print(f"\n{a.files} masks, --jobs {a.jobs}, {a.runs} runs each (median):")
        for way in ("find", "scan"):
            print(f"  {way:<5} {statistics.median(times[way]):7.2f} s  peak RSS {statistics.median(rss[way]) / 1024:7.1f} MiB (max {max(rss[way]) / 1024:.1f})")
        print(f"  scan/find {statistics.median(times['scan']) / statistics.median(times['find']):.1f}x")
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
