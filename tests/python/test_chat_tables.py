"""Chat columns in tables (issue 42): the same conversations as test_chat_templates.py's JSONL
files, written by `datasets` as TRL / Hugging Face SFT datasets ship them: a Parquet file
(`Dataset.to_parquet`) and a `save_to_disk` folder (Arrow), with a `messages` column of
`list<struct<role, content>>` or ShareGPT `conversations` of `list<struct<from, value>>`, beside
other columns (`prompt`, `id`). labelguard's token counts (through LG805 against a 1-position
model) must equal transformers' `apply_chat_template(tokenize=True)`. ShareGPT columns, a too-long
row named as in JSONL, a clean table exiting 0 (never read as a label table) and a refused
conversation are test_chat_templates.py's tests, run on all three formats (`HOW`).
"""

import random

import pytest
from test_chat_templates import CHATML, LLAMA2, ZEPHYR, conversation, lengths, model_dir, tokenizer, truth, write_rows

datasets = pytest.importorskip("datasets")

# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("how", ["parquet", "arrow"])
@pytest.mark.parametrize("kind,template", [("wordlevel", "chatml"), ("bytebpe", "llama2"), ("bytebpe", "zephyr")])
def test_token_counts_equal_apply_chat_template(labelguard, tmp_path, how, kind, template):
    tok = tokenizer(kind, {"chatml": CHATML, "llama2": LLAMA2, "zephyr": ZEPHYR}[template])
    model = model_dir(tmp_path, "m", tok, positions=1)
    r = random.Random(f"{kind}-{template}-{how}")
    convs = [conversation(r, r.randint(1, 6), system=template != "llama2" and r.random() < 0.5) for _ in range(5)]
    # Other columns beside the conversation, as SFT datasets have them.
    rows = [{"id": i, "prompt": c[0]["content"], "messages": c} for i, c in enumerate(convs)]
    data = write_rows(tmp_path, "chat", rows, how)
    assert lengths(labelguard, data, model) == truth(tok, convs)
