#!/usr/bin/env python3
"""Broken files through the release command line, one file per run (issue 8's judgement: no
panic, no hang beyond 2 s per file, peak memory below 512 MiB, every input unchanged).

    python3 bench/broken_corpus.py --bin target/release/labelguard --corpus DIR
    (DIR from `cargo run --release -p labelguard-fuzz --example corpus -- DIR N`; `make bench-broken`)

Every file runs under /usr/bin/time and `timeout 10`:
  tensors (.npy .npz .safetensors)  `scan FILE` and `check cross_entropy FILE`
  masks (.png .tif), tables (.csv .tsv .jsonl .parquet)  `scan FILE`
  logs (.log)                        `diagnose FILE`
  config files (.toml)               `scan examples/cityscapes-mini --config FILE`
(`scan` with `--no-config --num-classes 19 --format json -q` unless a config is the input.)
A run fails when it exits with anything but 0, 1 or 2, prints a panic, takes over 2 s, peaks
over 512 MiB, or when its input's bytes change. Prints one row per target and every failure;
exits 1 when there is one.
"""
import argparse
import collections
import hashlib
import os
import pathlib
import subprocess
import sys

SCAN = ["scan", "--no-config", "--num-classes", "19", "--format", "json", "-q"]
EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "cityscapes-mini"


def commands(path):
    ext = path.suffix
    if ext in (".npy", ".npz", ".safetensors"):
        return [SCAN + [str(path)], ["check", "cross_entropy", str(path), "--format", "json"]]
    if ext == ".log":
        return [["diagnose", str(path), "--format", "json"]]
    if ext == ".toml":
        return [["scan", str(EXAMPLE), "--config", str(path), "--format", "json", "-q"]]
    return [SCAN + [str(path)]]


def run(binary, args):
    """(exit code, wall s, peak RSS MiB, stderr) of one run."""
    p = subprocess.run(["/usr/bin/time", "-f", "%e %M", "timeout", "10", binary, *args],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.decode("utf-8", "replace").rstrip("\n").split("\n")
    wall, rss = err[-1].split()
    return p.returncode, float(wall), int(rss) / 1024, "\n".join(err[:-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--corpus", required=True)
    a = ap.parse_args()
    failures = []
    print("| target | files | runs | exit 0 / 1 / 2 | slowest s | peak RSS MiB | failures |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for folder in sorted(p for p in pathlib.Path(a.corpus).iterdir() if p.is_dir()):
        files = sorted(folder.iterdir())
        codes, slowest, peak, runs, bad = collections.Counter(), 0.0, 0.0, 0, 0
        for f in files:
            before = hashlib.sha256(f.read_bytes()).hexdigest()
            for args in commands(f):
                code, wall, rss, err = run(a.bin, args)
                runs += 1
                codes[code] += 1
                slowest, peak = max(slowest, wall), max(peak, rss)
                why = [w for w, broken in (
                    (f"exit {code}", code not in (0, 1, 2)),
                    ("panic", "panicked" in err),
                    (f"{wall:.2f} s", wall > 2.0),
                    (f"{rss:.0f} MiB", rss > 512),
                ) if broken]
                if why:
                    bad += 1
                    failures.append(f"{' '.join(args[:1])} {f}: {', '.join(why)}\n    {err[-300:]}")
            if hashlib.sha256(f.read_bytes()).hexdigest() != before:
                bad += 1
                failures.append(f"{f}: the input changed")
        print(f"| {folder.name} | {len(files)} | {runs} | {codes[0]} / {codes[1]} / {codes[2]} | {slowest:.2f} | {peak:.1f} | {bad} |")
    print(f"\n{len(failures)} failures; load average {os.getloadavg()[0]:.1f}")
    for line in failures:
        print(line)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
