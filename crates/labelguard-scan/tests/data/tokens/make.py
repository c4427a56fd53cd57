"""Writes the token-data files the Rust tests read (tests/tokens.rs) and the fuzz seeds:
`datasets` 5.2.0's save_to_disk (Arrow IPC stream), to_parquet and to_json. Rerun to refresh:
`/work/main/.venv/bin/python make.py` (the output is deterministic).

Rows: 6, vocabulary assumed 50. Row 1 has id 50 (beyond), row 2 labels -1, row 3 all -100,
row 4 an attention mask of 2, row 5 a mask one shorter than its ids."""
import pathlib
import shutil

import datasets

here = pathlib.Path(__file__).parent
rows = {
    "input_ids": [[1, 2, 3], [4, 50, 6, 7], [8, 9], [10, 11, 12], [13, 14], [15, 16, 17]],
    "labels": [[1, 2, 3], [4, 5, 6, 7], [-100, 9], [-100, -100, -100], [13, 14], [15, 16, -1]],
    "attention_mask": [[1, 1, 1], [1, 1, 1, 1], [1, 1], [1, 1, 1], [1, 2], [1, 1]],
}
rows["labels"][2] = [-1, 9]
rows["labels"][5] = [15, 16, 17]
feats = datasets.Features({
    "input_ids": datasets.List(datasets.Value("int32")),
    "labels": datasets.List(datasets.Value("int64")),
    "attention_mask": datasets.List(datasets.Value("int8")),
})
ds = datasets.Dataset.from_dict(rows, features=feats)
out = here / "disk"
shutil.rmtree(out, ignore_errors=True)
ds.save_to_disk(str(out))
for f in out.iterdir():
    if f.name == "state.json":
        # The fingerprint is random: fixed so that the file is the same on every run.
        import json
        s = json.loads(f.read_text())
        s["_fingerprint"] = "0" * 16
        f.write_text(json.dumps(s, indent=2, sort_keys=True))
ds.to_parquet(str(here / "tokens.parquet"))
ds.to_json(str(here / "tokens.jsonl"), lines=True)
