"""Chat datasets (issue 42): `messages` / ShareGPT `conversations` rows (JSONL; also Parquet and
`save_to_disk` folders in the tests parametrized by `HOW`) scanned against a model directory whose tokenizer carries a chat template. labelguard renders each conversation with the
template and tokenizes it; the truth is transformers' `tokenizer.apply_chat_template(messages,
tokenize=True)` on the same tiny tokenizers (WordLevel and byte-level BPE, trained here offline),
with templates in the shapes real models ship (ChatML with `trim`, Llama-2 with `raise_exception`
and `.strip()`, a multi-line template with `{% generation %}` and whitespace control).

Token counts come back through LG805: against a 1-position model every conversation is too long
and each finding location carries its row's length (the first five rows).
"""

import json
import random
import subprocess

import pytest
from scanning import file_findings, scan_json

transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

transformers.logging.set_verbosity_error()
_r = random.Random(11)
WORDS = [f"{a}{b}" for a in "bcdfgklmnprst" for b in ["a", "e", "o", "ul", "in", "ar"]]
CORPUS = [" ".join(_r.choice(WORDS) for _ in range(_r.randint(4, 20))) for _ in range(200)]
SPECIALS = ["<unk>", "<pad>", "<s>", "</s>", "<|im_start|>", "<|im_end|>", "<|user|>", "<|assistant|>", "<|system|>"]

CHATML = (
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are kind.<|im_end|>\\n' }}{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] | trim + '<|im_end|>' + '\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
LLAMA2 = (
    "{{ bos_token }}{% for message in messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'].strip() + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ ' ' + message['content'].strip() + ' ' + eos_token }}"
    "{% endif %}{% endfor %}"
)
ZEPHYR = """{%- for message in messages %}
    {%- if message.role == 'assistant' %}
<|assistant|>
{% generation %}{{ message.content }}{{ eos_token }}{% endgeneration %}
    {%- else %}
<|{{ message.role }}|>
{{ message.content }}{{ eos_token }}
    {%- endif %}
{% endfor %}
{%- if add_generation_prompt %}
<|assistant|>
{%- endif %}"""


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def tokenizer(kind, template):
    if kind == "bytebpe":
        t = Tokenizer(models.BPE())
        t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tr = trainers.BpeTrainer(vocab_size=300, special_tokens=SPECIALS,
                                 initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    else:
        t = Tokenizer(models.WordLevel(unk_token="<unk>"))
        t.pre_tokenizer = pre_tokenizers.Whitespace()
        tr = trainers.WordLevelTrainer(special_tokens=SPECIALS)
    t.train_from_iterator(CORPUS + ["[INST] [/INST] You are kind . system user assistant"], tr)
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=t, bos_token="<s>", eos_token="</s>",
                                               unk_token="<unk>", pad_token="<pad>")
    tok.chat_template = template
    return tok


def model_dir(tmp_path, name, tok, positions):
    """The tokenizer saved beside a GPT-2 config (a learned table of `positions` rows)."""
    path = tmp_path / name
    tok.save_pretrained(path)
    transformers.GPT2Config(vocab_size=len(tok), n_positions=positions, n_embd=8, n_layer=1, n_head=2,
                            bos_token_id=2, eos_token_id=3, pad_token_id=1).save_pretrained(path)
    return path


def conversation(r, turns, system=False):
    msgs = [{"role": "system", "content": " ".join(r.choice(WORDS) for _ in range(r.randint(1, 4)))}] if system else []
    for i in range(turns):
        text = " ".join(r.choice(WORDS) for _ in range(r.randint(1, 12)))
        msgs.append({"role": "user" if i % 2 == 0 else "assistant", "content": f" {text}\n" if i == 1 else text})
    return msgs


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(x) + "\n" for x in rows))
    return path


def write_rows(tmp_path, name, rows, how="jsonl"):
    """`rows` as chat datasets ship them: JSONL, Parquet (`Dataset.to_parquet`) or a `save_to_disk`
    folder of two shards (test_chat_tables.py)."""
    if how == "jsonl":
        return write_jsonl(tmp_path / f"{name}.jsonl", rows)
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_list(rows)
    if how == "parquet":
        path = tmp_path / f"{name}.parquet"
        ds.to_parquet(str(path))
    else:
        path = tmp_path / name
        ds.save_to_disk(str(path), num_shards=min(2, len(rows)))
    return path


# Where a chat dataset's rows are: the same checks and rows named the same in each.
HOW = ["jsonl", "parquet", "arrow"]


def run(labelguard, data, model=None):
    args = ["--model", str(model)] if model else []
    return scan_json(labelguard, data, *args)


def by_code(report):
    found = {}
    for _, x in file_findings(report):
        found.setdefault(x["code"], []).append(x)
    return found


def exit_code(labelguard, data, model=None):
    args = ["--model", str(model)] if model else []
    return subprocess.run([labelguard, "scan", str(data), "--no-config", *args], capture_output=True,
                          timeout=120).returncode


def lengths(labelguard, data, model):
    """{row: token count} of the first five conversations, from LG805 against a 1-position model."""
    found = by_code(run(labelguard, data, model))
    # LG804: under a template that marks the assistant (zephyr), a user-only conversation has no label.
    assert set(found) <= {"LG805", "LG804"}, found
    return {loc["index"][0]: int(loc["value"]) for x in found["LG805"] for loc in x["locations"]}


def truth(tok, convs):
    return {i: len(tok.apply_chat_template(c, tokenize=True, return_dict=True)["input_ids"])
            for i, c in enumerate(convs)}


@pytest.mark.parametrize("kind", ["wordlevel", "bytebpe"])
@pytest.mark.parametrize("template", ["chatml", "llama2", "zephyr"])
def test_token_counts_equal_apply_chat_template(labelguard, tmp_path, kind, template):
    tok = tokenizer(kind, {"chatml": CHATML, "llama2": LLAMA2, "zephyr": ZEPHYR}[template])
    model = model_dir(tmp_path, "m", tok, positions=1)
    r = random.Random(f"{kind}-{template}")
    for batch in range(3):
        convs = [conversation(r, r.randint(1, 6), system=template != "llama2" and r.random() < 0.5)
                 for _ in range(5)]
        data = write_jsonl(tmp_path / f"chat{batch}.jsonl", [{"messages": c} for c in convs])
        assert lengths(labelguard, data, model) == truth(tok, convs)


@pytest.mark.parametrize("how", HOW)
def test_sharegpt_rows_are_converted_as_trl_converts_them(labelguard, tmp_path, how):
    tok = tokenizer("bytebpe", CHATML)
    model = model_dir(tmp_path, "m", tok, positions=1)
    r = random.Random(5)
    convs = [conversation(r, r.randint(2, 5), system=i == 2) for i in range(5)]
    share = [{"conversations": [{"from": {"user": "human", "assistant": "gpt"}.get(m["role"], m["role"]),
                                 "value": m["content"]} for m in c], "id": i} for i, c in enumerate(convs)]
    data = write_rows(tmp_path, "sharegpt", share, how)
    assert lengths(labelguard, data, model) == truth(tok, convs)


@pytest.mark.parametrize("how", HOW)
def test_a_too_long_conversation_is_found_and_a_clean_file_exits_0(labelguard, tmp_path, how):
    tok = tokenizer("wordlevel", CHATML)
    r = random.Random(8)
    convs = [conversation(r, 2) for _ in range(12)]
    n = truth(tok, convs)
    limit = max(n.values())
    model = model_dir(tmp_path, "m", tok, positions=limit)
    clean = write_rows(tmp_path, "clean", [{"messages": c, "id": i} for i, c in enumerate(convs)], how)
    assert by_code(run(labelguard, clean, model)) == {}
    assert exit_code(labelguard, clean, model) == 0
    # Without a model: a warning that nothing was checked, never a label table missing its label.
    assert set(by_code(run(labelguard, clean))) == {"LG815"}
    assert exit_code(labelguard, clean) == 0
    # Row 7 (in the second shard of a save_to_disk folder) grows one turn past the table: the
    # scan names it, with its length, and fails.
    long = convs[7] + [{"role": "user", "content": " ".join(WORDS[:40])}]
    assert len(tok.apply_chat_template(long, tokenize=True, return_dict=True)["input_ids"]) > limit
    bad = write_rows(tmp_path, "long", [{"messages": long if i == 7 else c, "id": i} for i, c in enumerate(convs)], how)
    found = by_code(run(labelguard, bad, model))
    assert set(found) == {"LG805"}, found
    assert [loc["index"][0] for loc in found["LG805"][0]["locations"]] == [7]
    assert found["LG805"][0]["severity"] == "error"
    assert exit_code(labelguard, bad, model) == 1


@pytest.mark.parametrize("how", HOW)
def test_a_conversation_the_template_refuses_is_lg816(labelguard, tmp_path, how):
    tok = tokenizer("wordlevel", LLAMA2)
    model = model_dir(tmp_path, "m", tok, positions=512)
    r = random.Random(9)
    convs = [conversation(r, 4) for _ in range(6)]
    convs[4] = [convs[4][0], convs[4][0]]  # two user turns in a row
    with pytest.raises(Exception, match="must alternate"):
        tok.apply_chat_template(convs[4], tokenize=True)
    data = write_rows(tmp_path, "chat", [{"messages": c} for c in convs], how)
    found = by_code(run(labelguard, data, model))
    assert set(found) == {"LG816"}, found
    assert [loc["index"][0] for loc in found["LG816"][0]["locations"]] == [4]
    assert "must alternate" in found["LG816"][0]["message"]


def test_without_a_model_or_a_template_the_scan_says_so_without_an_error(labelguard, tmp_path):
    tok = tokenizer("wordlevel", CHATML)
    r = random.Random(4)
    data = write_jsonl(tmp_path / "chat.jsonl", [{"messages": conversation(r, 2)} for _ in range(3)])
    found = by_code(run(labelguard, data))
    assert set(found) == {"LG815"}, found
    assert found["LG815"][0]["severity"] == "warning"
    assert "3 conversations" in found["LG815"][0]["message"]
    assert exit_code(labelguard, data) == 0
    tok.chat_template = None
    plain = model_dir(tmp_path, "plain", tok, positions=64)
    found = by_code(run(labelguard, data, plain))
    assert set(found) == {"LG815"}, found
    assert "no chat template" in found["LG815"][0]["message"]
    assert exit_code(labelguard, data, plain) == 0
