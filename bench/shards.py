#!/usr/bin/env python3
"""`labelguard scan` of WebDataset tar shards vs the same files extracted (issue 26).

    python3 bench/shards.py --bin target/release/labelguard [--files 20000] [--per-shard 1000] [--runs 5]

Writes FILES distinct 64x64 8-bit grey PNG masks (ids 0-9, a few with an id of 12 so that the
scan has findings to report) as WebDataset samples (`000123.seg.png`), once as plain files in
one directory and once in tar shards of PER_SHARD members (`train-000000.tar`, ..., written by
Python's tarfile in its default PAX format, as webdataset.TarWriter writes them). Then, in turn,
run after run (interleaved, after one warm-up of each, page cache hot):

  extracted  labelguard scan DIR/extracted --num-classes 10 --no-config --format json -q -o OUT --jobs J
  shards     labelguard scan DIR/shards    ...the same

for --jobs 1 (one core) and --jobs ALL (every core). Prints the medians of wall and CPU
(user+sys) seconds and peak RSS (/usr/bin/time -v), the ratio shards/extracted per core and
at all cores, and checks that both reports scanned every file and found the same findings
(their names aside). The generated tree is deleted at the end.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import tarfile
import tempfile

from many_files import png_gray8


def timed(argv):
    """(wall seconds, CPU seconds, peak RSS in KiB) of one command under /usr/bin/time -v."""
    p = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed ({p.returncode}): {p.stderr[-2000:]}")
    h, m, s = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", p.stderr).groups()
    wall = int(h or 0) * 3600 + int(m) * 60 + float(s)
    cpu = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", p.stderr).group(1)) for k in ("User", "System"))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return wall, cpu, rss


def findings(report):
    """(member name, rule, message) of every finding, the shard or directory prefix cut off."""
    out = []
    for part in [report, *report.get("datasets", [])]:
        for f in part["files"]:
            name = f["path"].split(":", 1)[-1].rsplit("/", 1)[-1]
            out += [(name, x["rule"], x["message"]) for x in f["findings"]]
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard")
    ap.add_argument("--files", type=int, default=20_000)
    ap.add_argument("--per-shard", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", default=None, help="parent of the generated tree (default /tmp)")
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="lg-shards-", dir=a.dir)
    try:
        extracted = os.path.join(root, "extracted")
        shards = os.path.join(root, "shards")
        os.mkdir(extracted)
        os.mkdir(shards)
        tar = None
        for i in range(a.files):
            pixels = [((x * 7 + y * 3 + i) // 9) % 10 for y in range(64) for x in range(64)]
            if i % 97 == 0:
                pixels[i % 4096] = 12
            data = png_gray8(64, 64, pixels)
            name = f"{i:06d}.seg.png"
            with open(os.path.join(extracted, name), "wb") as f:
                f.write(data)
            if i % a.per_shard == 0:
                if tar:
                    tar.close()
                tar = tarfile.open(os.path.join(shards, f"train-{i // a.per_shard:06d}.tar"), "w")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            with open(os.path.join(extracted, name), "rb") as f:
                tar.addfile(info, f)
        tar.close()
        jobs_all = os.cpu_count()
        out = os.path.join(root, "report.json")
        results = {}
        for jobs in sorted({1, jobs_all}):
            cmd = {
                way: [a.bin, "scan", os.path.join(root, way), "--num-classes", "10", "--no-config",
                      "--format", "json", "-q", "-o", f"{out}.{way}", "--jobs", str(jobs)]
                for way in ("extracted", "shards")
            }
            for way in cmd:  # warm-up: both trees in the page cache
                timed(cmd[way])
            runs = {way: [] for way in cmd}
            for r in range(a.runs):
                for way in cmd:
                    runs[way].append(timed(cmd[way]))
                    w, c, k = runs[way][-1]
                    print(f"--jobs {jobs} run {r + 1} {way:<9} {w:6.2f} s wall {c:6.2f} s CPU  peak {k / 1024:6.1f} MiB", flush=True)
            reports = {}
            for way in cmd:
                with open(f"{out}.{way}") as f:
                    reports[way] = json.load(f)
                scanned = reports[way]["summary"]["files_scanned"]
                if scanned != a.files:
                    raise SystemExit(f"{way}: the report counted {scanned} files, not {a.files}")
            if findings(reports["extracted"]) != findings(reports["shards"]):
                raise SystemExit("the shards and the extracted files gave different findings")
            results[jobs] = {way: [statistics.median(x[i] for x in runs[way]) for i in range(3)] for way in cmd}
        print(f"\n{a.files} masks of 64x64 ({a.files // a.per_shard} shards of {a.per_shard}), {a.runs} runs each (median):")
        for jobs, r in results.items():
            for way, (w, c, k) in r.items():
                print(f"  --jobs {jobs:<3} {way:<9} {w:6.2f} s wall  {c:6.2f} s CPU  peak RSS {k / 1024:6.1f} MiB")
            print(f"  --jobs {jobs:<3} shards/extracted: {r['shards'][0] / r['extracted'][0]:.2f}x wall, {r['shards'][1] / r['extracted'][1]:.2f}x CPU")
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
