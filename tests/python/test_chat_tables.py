"""Chat columns in tables (issue 42): the same conversations as test_chat_templates.py's JSONL
files, written by `datasets` as TRL / Hugging Face SFT datasets ship them: a Parquet file
(`Dataset.to_parquet`) and a `save_to_disk` folder (Arrow), with a `messages` column of
`list<struct<role, content>>` or ShareGPT `conversations` of `list<struct<from, value>>`, beside
other columns (`prompt`, `id`). labelguard's token counts (through LG805 against a 1-position
model) must equal transformers' `apply_chat_template(tokenize=True)`, rows named as in JSONL; a
clean dataset exits 0 and is never read as a label table.
"""

import random

import pytest
from test_chat_templates import (
    CHATML,
    LLAMA2,
    WORDS,
    ZEPHYR,
    by_code,
    conversation,
    exit_code,
    lengths,
    model_dir,
    run,
    tokenizer,
    truth,
)

datasets = pytest.importorskip("datasets")

# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def write(tmp_path, name, rows, how):
    """`rows` as a dataset on disk: a Parquet file or a save_to_disk folder (two shards)."""
    ds = datasets.Dataset.from_list(rows)
    if how == "parquet":
        path = tmp_path / f"{name}.parquet"
        ds.to_parquet(str(path))
    else:
        path = tmp_path / name
        ds.save_to_disk(str(path), num_shards=min(2, len(rows)))
    return path


@pytest.mark.parametrize("how", ["parquet", "arrow"])
@pytest.mark.parametrize("kind,template", [("wordlevel", "chatml"), ("bytebpe", "llama2"), ("bytebpe", "zephyr")])
def test_token_counts_equal_apply_chat_template(labelguard, tmp_path, how, kind, template):
    tok = tokenizer(kind, {"chatml": CHATML, "llama2": LLAMA2, "zephyr": ZEPHYR}[template])
    model = model_dir(tmp_path, "m", tok, positions=1)
    r = random.Random(f"{kind}-{template}-{how}")
    convs = [conversation(r, r.randint(1, 6), system=template != "llama2" and r.random() < 0.5) for _ in range(5)]
    # Other columns beside the conversation, as SFT datasets have them.
    rows = [{"id": i, "prompt": c[0]["content"], "messages": c} for i, c in enumerate(convs)]
    data = write(tmp_path, "chat", rows, how)
    assert lengths(labelguard, data, model) == truth(tok, convs)


@pytest.mark.parametrize("how", ["parquet", "arrow"])
def test_sharegpt_columns_are_converted_as_trl_converts_them(labelguard, tmp_path, how):
    tok = tokenizer("bytebpe", CHATML)
    model = model_dir(tmp_path, "m", tok, positions=1)
    r = random.Random(5)
    convs = [conversation(r, r.randint(2, 5), system=i == 2) for i in range(5)]
    share = [{"conversations": [{"from": {"user": "human", "assistant": "gpt"}.get(m["role"], m["role"]),
                                 "value": m["content"]} for m in c], "id": i} for i, c in enumerate(convs)]
    data = write(tmp_path, "sharegpt", share, how)
    assert lengths(labelguard, data, model) == truth(tok, convs)


@pytest.mark.parametrize("how", ["parquet", "arrow"])
def test_a_too_long_conversation_is_named_and_a_clean_table_exits_0(labelguard, tmp_path, how):
    tok = tokenizer("wordlevel", CHATML)
    r = random.Random(8)
    convs = [conversation(r, 2) for _ in range(12)]
    limit = max(truth(tok, convs).values())
    model = model_dir(tmp_path, "m", tok, positions=limit)
    clean = write(tmp_path, "clean", [{"messages": c, "id": i} for i, c in enumerate(convs)], how)
    assert by_code(run(labelguard, clean, model)) == {}
    assert exit_code(labelguard, clean, model) == 0
    # Without a model: a warning that nothing was checked, never a label table missing its label.
    found = by_code(run(labelguard, clean))
    assert set(found) == {"LG815"}, found
    assert exit_code(labelguard, clean) == 0
    # Row 7 (in the second shard of the Arrow folder) grows one turn past the position table.
    long = convs[7] + [{"role": "user", "content": " ".join(WORDS[:40])}]
    assert len(tok.apply_chat_template(long, tokenize=True, return_dict=True)["input_ids"]) > limit
    bad = write(tmp_path, "long", [{"messages": long if i == 7 else c, "id": i} for i, c in enumerate(convs)], how)
    found = by_code(run(labelguard, bad, model))
    assert set(found) == {"LG805"}, found
    assert [loc["index"][0] for loc in found["LG805"][0]["locations"]] == [7]
    assert exit_code(labelguard, bad, model) == 1


@pytest.mark.parametrize("how", ["parquet", "arrow"])
def test_a_conversation_the_template_refuses_is_named(labelguard, tmp_path, how):
    tok = tokenizer("wordlevel", LLAMA2)
    model = model_dir(tmp_path, "m", tok, positions=512)
    r = random.Random(9)
    convs = [conversation(r, 4) for _ in range(6)]
    convs[4] = [convs[4][0], convs[4][0]]  # two user turns in a row
    with pytest.raises(Exception, match="must alternate"):
        tok.apply_chat_template(convs[4], tokenize=True)
    data = write(tmp_path, "chat", [{"messages": c} for c in convs], how)
    found = by_code(run(labelguard, data, model))
    assert set(found) == {"LG816"}, found
    assert [loc["index"][0] for loc in found["LG816"][0]["locations"]] == [4]
