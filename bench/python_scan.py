"""Benchmark: what `labelguard.scan` costs over the command it runs (issue 36).

    make bench-python-scan       # or: python bench/python_scan.py [--rows 50000] [--runs 5]

A tokenized dataset (`--rows` rows of 128 ids, int32 `input_ids`, int64 `labels`, one id beyond
the vocabulary) is saved with `save_to_disk` beside a tiny BERT config. Timed, interleaved,
`--runs` times each after one untimed warm-up (the page cache holds the files):

- `cli`: `labelguard scan DIR --model M --format json` as a subprocess (the command line);
- `path`: `labelguard.scan(DIR, model=M)` (the same scan in this process, plus the HTML page and
  the text report rendered from the JSON by `merge`);
- `dataset`: `labelguard.scan(load_from_disk(DIR), model=M)` (read in place: the same folder);
- `selected`: `labelguard.scan(ds.select(range(rows)), model=M)` (an indices mapping: saved to a
  temporary folder first, the cost of a copy).

The medians of wall time are printed, with every side's findings, which must agree.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB, SEQ = 1000, 128


def make(folder: pathlib.Path, rows: int):
    import datasets
    import numpy as np
    import transformers

    rng = np.random.default_rng(0)
    ids = rng.integers(0, VOCAB, size=(rows, SEQ), dtype=np.int32)
    ids[rows // 2, 5] = VOCAB + 3
    ds = datasets.Dataset.from_dict({"input_ids": ids.tolist(), "labels": ids.astype(np.int64).tolist()})
    ds.save_to_disk(str(folder / "data"))
    transformers.BertConfig(vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, max_position_embeddings=SEQ).save_pretrained(folder / "model")


def findings(report: dict):
    return sorted((x["code"], tuple(l["index"][0] for l in x["locations"])) for f in report["files"] for x in f["findings"])


def main() -> None:
    import datasets
    import labelguard

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50000)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    binary = os.environ.get("LABELGUARD_BIN", str(ROOT / "target" / "release" / "labelguard"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        make(tmp, a.rows)
        data, model = str(tmp / "data"), str(tmp / "model")
        ds = datasets.load_from_disk(data)
        sides = {
            "cli": lambda: json.loads(subprocess.run([binary, "scan", data, "--model", model, "--format", "json"], capture_output=True, text=True).stdout),
            "path": lambda: labelguard.scan(data, model=model).to_dict(),
            "dataset": lambda: labelguard.scan(ds, model=model).to_dict(),
            "selected": lambda: labelguard.scan(ds.select(range(a.rows)), model=model).to_dict(),
        }
        seen = {name: findings(run()) for name, run in sides.items()}  # warm-up, and the answers
        times = {name: [] for name in sides}
        for _ in range(a.runs):
            for name, run in sides.items():
                t = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - t)
    base = statistics.median(times["cli"])
    print(f"{a.rows} rows x {SEQ} ids, {a.runs} runs, median wall seconds (ratio to cli):")
    for name in sides:
        m = statistics.median(times[name])
        print(f"  {name:9s} {m:8.3f}  x{m / base:5.2f}   findings {seen[name]}")
    assert all(v == seen["cli"] for v in seen.values()), "the sides disagree"


if __name__ == "__main__":
    main()
