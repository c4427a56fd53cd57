"""Benchmark: `labelguard scan DATA --model MODEL` on a tokenized dataset of >= 1 GB of ids,
side by side with the loop a user writes with `datasets` + numpy for the same checks.

    make bench-tokens            # or: .venv/bin/python bench/tokens.py [--gib 1.0] [--runs 3]

The dataset (made once, kept in $LABELGUARD_BENCH_DIR or /tmp/labelguard-bench-tokens): packed
rows of 512 tokens, `input_ids` int32 (>= 1 GiB of them), `labels` int64 (the type `datasets`
infers from a tokenizer's lists), `attention_mask` int8, written through pyarrow in chunks and
saved with `datasets`' `save_to_disk` (Arrow IPC stream shards of 500 MB). A few defects are
planted so that both sides have something to count: ids beyond the vocabulary, labels padded
with -1, rows whose labels are all -100, attention-mask values of 2.

Both sides run pinned to one core (`taskset -c 0`; labelguard with `--jobs 1`), from the page
cache (one untimed warm-up each), `--runs` times; the medians of wall and CPU time and the peak
RSS (`wait4`'s `ru_maxrss`) are printed, with both sides' counts, which must agree.
"""

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
VOCAB = 32000
SEQ = 512
IGNORE = -100


def make_dataset(out: pathlib.Path, gib: float) -> None:
    import datasets
    import numpy as np
    import pyarrow as pa

    rows = int(gib * (1 << 30) / 4 / SEQ)
    chunk = 16384
    rng = np.random.default_rng(0)
    raw = out.parent / (out.name + ".raw.arrow")
    schema = pa.schema([
        ("input_ids", pa.list_(pa.int32())),
        ("labels", pa.list_(pa.int64())),
        ("attention_mask", pa.list_(pa.int8())),
    ])
    with pa.OSFile(str(raw), "wb") as sink, pa.ipc.new_stream(sink, schema) as w:
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            ids = rng.integers(0, VOCAB, size=(n, SEQ), dtype=np.int32)
            labels = ids.astype(np.int64)
            labels[:, : SEQ // 4] = IGNORE  # a masked prompt
            mask = np.ones((n, SEQ), dtype=np.int8)
            if start == 0:
                ids[3, 10] = VOCAB + 5  # LG801
                ids[70, 0] = VOCAB
                labels[5, -4:] = -1  # LG803
                labels[9, :] = IGNORE  # LG804
                mask[11, 7] = 2  # LG807
            if start + n == rows:
                labels[n - 1, :] = IGNORE
            offsets = pa.array(np.arange(0, (n + 1) * SEQ, SEQ, dtype=np.int32))

            def lists(values):
                return pa.ListArray.from_arrays(offsets, pa.array(values.reshape(-1)))

            w.write_batch(pa.record_batch([lists(ids), lists(labels), lists(mask)], schema=schema))
    ds = datasets.Dataset.from_file(str(raw))
    ds.save_to_disk(str(out), max_shard_size="500MB")
    del ds
    raw.unlink()


def make_model(out: pathlib.Path) -> None:
    """A config.json is what the checks read: a Llama of VOCAB ids and 4096 positions."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps({
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": VOCAB,
        "max_position_embeddings": 4096, "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "pad_token_id": 0,
    }))


def user_loop(data: str) -> None:
    """What a user writes with `datasets` and numpy for the same checks; prints the counts."""
    import datasets
    import numpy as np

    ds = datasets.load_from_disk(data).with_format("numpy")
    bad_ids = neg_labels = beyond_labels = all_ignored = bad_mask = too_long = mismatched = 0
    for batch in ds.iter(batch_size=1000):
        ids, labels, mask = batch["input_ids"], batch["labels"], batch["attention_mask"]
        bad_ids += int(((ids < 0) | (ids >= VOCAB)).sum())
        neg_labels += int(((labels < 0) & (labels != IGNORE)).sum())
        beyond_labels += int((labels >= VOCAB).sum())
        all_ignored += int((labels == IGNORE).all(axis=1).sum())
        bad_mask += int(((mask != 0) & (mask != 1)).sum())
        too_long += int(ids.shape[1] > 4096) * len(ids)
        mismatched += int(mask.shape != ids.shape) + int(labels.shape != ids.shape)
    print(json.dumps({"LG801": bad_ids, "LG802": beyond_labels, "LG803": neg_labels,
                      "LG804": all_ignored, "LG807": bad_mask}))


def counts_of(report: dict) -> dict:
    out = {}
    for f in report["files"]:
        for x in f["findings"]:
            if x["code"].startswith("LG80"):
                out[x["code"]] = x["count"]
    return out


def run(cmd):
    """Wall seconds, CPU seconds, peak RSS (MiB) and stdout of one run."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    assert os.waitstatus_to_exitcode(status) in (0, 1), cmd
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=1.0, help="GiB of input_ids (int32)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--user-loop", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.user_loop:
        return user_loop(a.user_loop)
    base = pathlib.Path(os.environ.get("LABELGUARD_BENCH_DIR", "/tmp/labelguard-bench-tokens"))
    data, model = base / f"data-{a.gib}", base / "model"
    if not (data / "state.json").exists():
        shutil.rmtree(data, ignore_errors=True)
        base.mkdir(parents=True, exist_ok=True)
        print(f"making {data} ...", file=sys.stderr)
        make_dataset(data, a.gib)
    make_model(model)
    lg = os.environ.get("LABELGUARD_BIN", str(ROOT / "target" / "release" / "labelguard"))
    pin = ["taskset", "-c", "0"]
    sides = {
        "labelguard": pin + [lg, "scan", str(data), "--model", str(model), "--no-config",
                             "--jobs", "1", "--format", "json"],
        "datasets+numpy": pin + [sys.executable, __file__, "--user-loop", str(data)],
    }
    ids_bytes = sum(f.stat().st_size for f in data.glob("*.arrow"))
    print(f"dataset: {data} ({ids_bytes / 2**30:.2f} GiB of Arrow files, "
          f"{a.gib:.2f} GiB of input_ids), {a.runs} runs, pinned to CPU 0")
    results, counts = {}, {}
    for name, cmd in sides.items():
        run(cmd)  # warm-up: the page cache
        runs = [run(cmd) for _ in range(a.runs)]
        out = runs[-1][3]
        counts[name] = counts_of(json.loads(out)) if name == "labelguard" else json.loads(out)
        results[name] = [statistics.median(r[i] for r in runs) for i in range(3)]
        w, c, m = results[name]
        print(f"{name:>15}: wall {w:7.2f} s  cpu {c:7.2f} s  peak RSS {m:8.1f} MiB  "
              f"{ids_bytes / 2**30 / w:6.2f} GiB/s")
    lgw, lgc, _ = results["labelguard"]
    pw, pc, _ = results["datasets+numpy"]
    print(f"ratio (datasets+numpy / labelguard): wall {pw / lgw:.1f}x, cpu {pc / lgc:.1f}x")
    want = {k: v for k, v in counts["datasets+numpy"].items() if v}
    print(f"counts: labelguard {counts['labelguard']}, datasets+numpy {want}")
    if counts["labelguard"] != want:
        sys.exit("the two sides disagree")


if __name__ == "__main__":
    main()
