#!/usr/bin/env python3
"""`labelguard scan` on a 100,000-file YOLO label set against a per-file Python parser in a
multiprocessing pool, on the same cores (see docs/benchmarks-history.md, issue 24).

    python3 bench/yolo.py --bin target/release/labelguard --floor-bin target/release/labelguard-bench
                          [--files 100000] [--jobs 2] [--runs 3]

The tree (under --dir, default bench/out/yolo-100k) is generated if absent, deterministically
(random.Random(24)): an ultralytics layout, `data.yaml` with 80 names, `images/train/NNNNNN.jpg`
placeholders of 4 bytes (the scan does not decode YOLO images, it only checks they exist) and
`labels/train/NNNNNN.txt` with 5-15 box lines each (10 on average). One file in 100 has a
planted defect, in turn: a class id beyond nc, pixel coordinates, a zero-width box, a 6-column
line, a duplicated line; one file in 200 has no image.

Each round runs, in turn (interleaved, so that both see the same machine load):

  labelguard   labelguard scan DIR --no-config --format json -q -o OUT --jobs N
  python       this file's baseline: the same walk (labels and images listed, each label paired
               with its image), then multiprocessing.Pool(N).imap_unordered over the label files
               (chunksize 256), each parsed with open/read/split/float and checked as the scan
               checks it: column count, numbers, integer class id within [0, nc), coordinates
               within ultralytics' [-0.01, 1.01], w and h > 0 and finite, duplicate lines, boxes
               vs polygons; the per-class object counts and per-rule file counts are folded.
  floor        `labelguard-bench floor DIR .txt N`: the tree listed on N threads and every label
               file opened, read to its end and closed on N threads, nothing else: what the
               kernel's listing and file reads alone cost, the floor of any scan of the tree.

Prints each run's wall and CPU seconds (user + sys, the tool's and its workers'), the medians
and the ratios python / labelguard and python / floor, and checks that both scans counted the
same objects per class and found the same files per rule, and that the floor read every label
file.
"""
import argparse
import json
import math
import multiprocessing
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

NC = 80


def generate(root, files):
    rnd = random.Random(24)
    os.makedirs(os.path.join(root, "images", "train"), exist_ok=True)
    os.makedirs(os.path.join(root, "labels", "train"), exist_ok=True)
    names = ", ".join(f"c{i}" for i in range(NC))
    with open(os.path.join(root, "data.yaml"), "w") as f:
        f.write(f"path: .\ntrain: images/train\nval: images/train\nnames: [{names}]\n")
    defects = ["class", "pixels", "flat", "six", "dup"]
    for i in range(files):
        stem = f"{i:06d}"
        lines = []
        for _ in range(rnd.randint(5, 15)):
            w, h = rnd.uniform(0.02, 0.4), rnd.uniform(0.02, 0.4)
            cx, cy = rnd.uniform(w / 2, 1 - w / 2), rnd.uniform(h / 2, 1 - h / 2)
            lines.append(f"{rnd.randrange(NC)} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
        if i % 100 == 7:
            kind = defects[(i // 100) % len(defects)]
            if kind == "class":
                lines[0] = f"{NC + 3} 0.5 0.5 0.1 0.1"
            elif kind == "pixels":
                lines[0] = "3 320 240 64 48"
            elif kind == "flat":
                lines[0] = "3 0.5 0.5 0 0.1"
            elif kind == "six":
                lines[0] = "3 0.5 0.5 0.1 0.1 0.93"
            else:
                lines.append(lines[1])
        with open(os.path.join(root, "labels", "train", stem + ".txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        if i % 200 != 13:
            with open(os.path.join(root, "images", "train", stem + ".jpg"), "wb") as f:
                f.write(b"\xff\xd8\xff\xe0")
    with open(os.path.join(root, ".complete"), "w") as f:
        f.write(f"{files}\n")


# --- The Python baseline ------------------------------------------------------------------------

IMAGE_EXTS = {"jpg", "jpeg", "png", "bmp", "tif", "tiff", "webp"}


def check_file(path):
    """(per-class counts, rules found) of one label file, as labelguard checks it."""
    counts = {}
    rules = set()
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return counts, {"LG601"}
    if not data:
        return counts, rules
    if b"\0" in data[:8192]:
        return counts, {"LG602"}
    seen = set()
    boxes = polygons = 0
    for line in data.decode("utf-8", "replace").split("\n"):
        tokens = line.split()
        if not tokens:
            continue
        try:
            values = [float(t) for t in tokens]
        except ValueError:
            rules.add("LG709")
            continue
        n = len(values)
        is_box = n == 5
        if not is_box and not (n >= 7 and (n - 1) % 2 == 0):
            rules.add("LG709")
            continue
        c = values[0]
        if not math.isfinite(c) or c != int(c):
            rules.add("LG709")
            continue
        c = int(c)
        coords = values[1:]
        if not all(math.isfinite(v) for v in coords):
            rules.add("LG705")
        else:
            if any(v < -0.01 or v > 1.01 for v in coords):
                rules.add("LG706")
            if is_box and (coords[2] <= 0 or coords[3] <= 0):
                rules.add("LG705")
        if is_box:
            boxes += 1
        else:
            polygons += 1
        if c < 0 or c >= NC:
            rules.add("LG701")
        counts[c] = counts.get(c, 0) + 1
        key = tuple(values)
        if key in seen:
            rules.add("LG711")
        seen.add(key)
    if boxes and polygons:
        rules.add("LG710")
    return counts, rules


def python_scan(root, jobs):
    labels_dir = os.path.join(root, "labels", "train")
    images_dir = os.path.join(root, "images", "train")
    images = set()
    for e in os.scandir(images_dir):
        stem, _, ext = e.name.rpartition(".")
        if ext.lower() in IMAGE_EXTS:
            images.add(stem)
    paths = []
    rules_files = {}
    for e in os.scandir(labels_dir):
        if e.name.endswith(".txt"):
            paths.append(e.path)
            if e.name[:-4] not in images:
                rules_files["LG707"] = rules_files.get("LG707", 0) + 1
    counts = {}
    with multiprocessing.Pool(jobs) as pool:
        for c, rules in pool.imap_unordered(check_file, paths, chunksize=256):
            for k, v in c.items():
                counts[k] = counts.get(k, 0) + v
            for r in rules:
                rules_files[r] = rules_files.get(r, 0) + 1
    return counts, rules_files


# --- The runs ------------------------------------------------------------------------------------


def labelguard_scan(binary, root, jobs, out):
    cmd = [binary, "scan", root, "--no-config", "--format", "json", "-q", "-o", out, "--jobs", str(jobs)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed ({p.returncode}): {p.stderr[-2000:]}")


def labelguard_counts(out):
    """(per-class counts, files per rule, files scanned) of labelguard's JSON report."""
    with open(out) as f:
        report = json.load(f)
    counts = {
        int(row["id"]): row["count"]
        for row in report["histogram"]["classes"]
        if row["count"]
    }
    rules = {}
    for f in report["files"]:
        for code in {x["code"] for x in f["findings"]}:
            rules[code] = rules.get(code, 0) + 1
    return counts, rules, report["summary"]["files_scanned"]


def floor_scan(binary, root, jobs):
    p = subprocess.run([binary, "floor", root, ".txt", str(jobs)], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{binary} floor failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads(p.stdout)


def cpu(who):
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def timed(run):
    """(result, wall s, CPU s of this process and its children) of run()."""
    kids, me = resource.RUSAGE_CHILDREN, resource.RUSAGE_SELF
    t, c = time.perf_counter(), cpu(kids) + cpu(me)
    out = run()
    return out, time.perf_counter() - t, cpu(kids) + cpu(me) - c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/labelguard")
    ap.add_argument("--floor-bin", default="target/release/labelguard-bench")
    ap.add_argument("--dir", default="bench/out/yolo-100k")
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    marker = os.path.join(a.dir, ".complete")
    if not (os.path.exists(marker) and open(marker).read().strip() == str(a.files)):
        t = time.perf_counter()
        generate(a.dir, a.files)
        print(f"generated {a.files} label files under {a.dir} in {time.perf_counter() - t:.1f} s")
    # Warm the page cache: every side then reads from memory.
    subprocess.run(["sh", "-c", f"find {a.dir} -type f -exec cat {{}} + > /dev/null"], check=True)
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    sides = {"labelguard": [], "python": [], "floor": []}
    for i in range(a.runs):
        _, *lg = timed(lambda: labelguard_scan(a.bin, a.dir, a.jobs, out))
        lg_counts, lg_rules, scanned = labelguard_counts(out)
        (py_counts, py_rules), *py = timed(lambda: python_scan(a.dir, a.jobs))
        floor, *fl = timed(lambda: floor_scan(a.floor_bin, a.dir, a.jobs))
        for name, t in (("labelguard", lg), ("python", py), ("floor", fl)):
            sides[name].append(t)
        print(
            f"run {i + 1}: labelguard {lg[0]:.2f} s ({lg[1]:.2f} s CPU), python {py[0]:.2f} s ({py[1]:.2f} s CPU), "
            f"floor {fl[0]:.2f} s ({fl[1]:.2f} s CPU: listing {floor['list_seconds']:.2f} s, reading {floor['read_seconds']:.2f} s)"
        )
    os.unlink(out)
    same = lg_counts == py_counts and lg_rules == py_rules
    print(f"labelguard scanned {scanned} files; objects {sum(lg_counts.values())} (python {sum(py_counts.values())}); "
          f"the floor read {floor['files']} files, {floor['bytes']} bytes")
    print(f"files per rule: labelguard {dict(sorted(lg_rules.items()))}")
    print(f"                python     {dict(sorted(py_rules.items()))}")
    med = {k: (statistics.median(t[0] for t in v), statistics.median(t[1] for t in v)) for k, v in sides.items()}
    (lw, lc), (pw, pc), (fw, fc) = med["labelguard"], med["python"], med["floor"]
    print(f"medians over {a.runs} runs, --jobs {a.jobs}     wall s   CPU s")
    print(f"  labelguard                         {lw:7.2f} {lc:7.2f}")
    print(f"  python Pool({a.jobs})                     {pw:7.2f} {pc:7.2f}")
    print(f"  floor (list + open/read/close)     {fw:7.2f} {fc:7.2f}")
    print(f"ratio python / labelguard: {pw / lw:.1f}x wall, {pc / lc:.1f}x CPU")
    print(f"ratio python / floor:      {pw / fw:.1f}x wall, {pc / fc:.1f}x CPU (the most any scan can reach)")
    print(f"ratio labelguard / floor:  {lw / fw:.1f}x wall, {lc / fc:.1f}x CPU")
    print(f"load average after the runs: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if not same:
        print("MISMATCH: the two scans disagree")
        sys.exit(1)
    if floor["files"] != sum(1 for _ in os.scandir(os.path.join(a.dir, "labels", "train"))):
        print("MISMATCH: the floor did not read every label file")
        sys.exit(1)


if __name__ == "__main__":
    main()
