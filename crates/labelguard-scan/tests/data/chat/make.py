"""Writes the chat datasets the Rust tests read (tests/chat_tables.rs): the same five rows as
`datasets`' save_to_disk (Arrow IPC stream), to_parquet and to_json, as SFT datasets ship them
(a `messages` column of list<struct<role, content>> beside `id` and `prompt`). Rerun to
refresh: `/work/main/.venv/bin/python make.py` (the output is deterministic).

Row 2's assistant message has no content (null), row 3 has an empty `messages` list."""
import json
import pathlib
import shutil

import datasets

here = pathlib.Path(__file__).parent
rows = [
    {"id": 0, "prompt": "hi", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hi there"}]},
    {"id": 1, "prompt": "sky", "messages": [{"role": "system", "content": "blue"}, {"role": "user", "content": "sky"},
                                            {"role": "assistant", "content": "blue sky"}]},
    {"id": 2, "prompt": "there", "messages": [{"role": "user", "content": "there"}, {"role": "assistant", "content": None}]},
    {"id": 3, "prompt": "none", "messages": []},
    {"id": 4, "prompt": "é", "messages": [{"role": "user", "content": "é \"quoted\"\n"}]},
]
ds = datasets.Dataset.from_list(rows)
out = here / "disk"
shutil.rmtree(out, ignore_errors=True)
ds.save_to_disk(str(out))
state = out / "state.json"
s = json.loads(state.read_text())
# The fingerprint is random: fixed so that the file is the same on every run.
s["_fingerprint"] = "0" * 16
state.write_text(json.dumps(s, indent=2, sort_keys=True))
ds.to_parquet(str(here / "chat.parquet"))
ds.to_json(str(here / "chat.jsonl"), lines=True, force_ascii=False)
