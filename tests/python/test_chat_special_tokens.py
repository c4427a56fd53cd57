"""Special tokens of a chat template checked as single tokens (issue 42, LG820): a ChatML
template set on a tokenizer that never had `<|im_start|>` / `<|im_end|>` added (the tokens are
split into pieces), against transformers on the same tokenizer: the pieces labelguard names are
`convert_ids_to_tokens(encode(marker))`, and the token counts still equal
`apply_chat_template(tokenize=True)`. A special token named only in `tokenizer_config.json`
(`extra_special_tokens`) is added by transformers at load, and so by labelguard: one token, no
finding.
"""

import json
import random

import pytest
from test_chat_templates import CHATML, CORPUS, by_code, conversation, run, truth, write_jsonl

transformers = pytest.importorskip("transformers")
from tokenizers import Tokenizer, models, pre_tokenizers, trainers  # noqa: E402

# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def bare_tokenizer(tmp_path):
    """A byte-level BPE tokenizer whose special tokens are only `<unk>`, `<pad>`, `</s>`."""
    t = Tokenizer(models.BPE())
    t.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    t.train_from_iterator(CORPUS + ["system user assistant You are kind ."], trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<unk>", "<pad>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = transformers.PreTrainedTokenizerFast(tokenizer_object=t, eos_token="</s>", unk_token="<unk>",
                                               pad_token="<pad>")
    tok.chat_template = CHATML + "{{ '<|tool|>' if false }}"
    path = tmp_path / "m"
    tok.save_pretrained(path)
    transformers.GPT2Config(vocab_size=len(tok) + 8, n_positions=1, n_embd=8, n_layer=1,
                            n_head=2, bos_token_id=2, eos_token_id=2, pad_token_id=1).save_pretrained(path)
    return path


def findings_of(labelguard, data, model):
    """The findings by code, the dataset's (LG820 is about the template: once a dataset) with the
    files'."""
    report = run(labelguard, data, model)
    found = by_code(report)
    for x in report["dataset"]:
        found.setdefault(x["code"], []).append(x)
    return found


def split_markers_named(found, tok):
    """The markers LG820 names, each checked against transformers' own pieces of it."""
    named = {}
    for f in found["LG820"]:
        marker = f["message"].split("writes '")[1].split("'")[0]
        named[marker] = f
    for marker, f in named.items():
        pieces = tok.convert_ids_to_tokens(tok.encode(marker, add_special_tokens=False))
        assert len(pieces) > 1
        assert f"splits it into {len(pieces)} pieces" in f["message"], f["message"]
        assert ", ".join(f"'{p}'" for p in pieces) in f["message"], (pieces, f["message"])
        assert f["severity"] == "warning"
        assert "resize_token_embeddings" in f["fix"]
    return set(named)


def test_markers_the_tokenizer_splits_are_named_with_transformers_pieces(labelguard, tmp_path):
    model = bare_tokenizer(tmp_path)
    tok = transformers.AutoTokenizer.from_pretrained(model)
    r = random.Random(3)
    convs = [conversation(r, r.randint(1, 4)) for _ in range(5)]
    data = write_jsonl(tmp_path / "chat.jsonl", [{"messages": c} for c in convs])
    found = findings_of(labelguard, data, model)
    assert set(found) == {"LG805", "LG820"}, found
    # `<|tool|>` is in a branch that never renders (`if false`): not looked at.
    assert split_markers_named(found, tok) == {"<|im_start|>", "<|im_end|>"}
    # The counts, markers split, are transformers' own.
    got = {loc["index"][0]: int(loc["value"]) for loc in found["LG805"][0]["locations"]}
    assert got == truth(tok, convs)


def test_a_token_named_only_in_tokenizer_config_is_one_token_as_transformers_loads_it(labelguard, tmp_path):
    model = bare_tokenizer(tmp_path)
    cfg_path = model / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["extra_special_tokens"] = ["<|im_start|>", "<|im_end|>", "<|tool|>"]
    cfg_path.write_text(json.dumps(cfg))
    tok = transformers.AutoTokenizer.from_pretrained(model)
    assert len(tok.encode("<|im_start|>", add_special_tokens=False)) == 1
    r = random.Random(4)
    convs = [conversation(r, r.randint(1, 4)) for _ in range(5)]
    data = write_jsonl(tmp_path / "chat.jsonl", [{"messages": c} for c in convs])
    found = findings_of(labelguard, data, model)
    assert set(found) == {"LG805"}, found
    got = {loc["index"][0]: int(loc["value"]) for loc in found["LG805"][0]["locations"]}
    assert got == truth(tok, convs)


GEMMA = (
    "{% for m in messages %}<start_of_turn>{{ 'model' if m['role'] == 'assistant' else m['role'] }}\n"
    "{{ m['content'] | trim }}<end_of_turn>\n{% endfor %}{% if tools %}<tool_call>{% endif %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)
LLAMA2_PLAIN = (
    "{% for m in messages %}{% if m['role'] == 'user' %}{{ '[INST] ' + m['content'].strip() + ' [/INST]' }}"
    "{% else %}{{ ' ' + m['content'].strip() + ' ' + eos_token }}{% endif %}{% endfor %}"
)


@pytest.mark.parametrize("shard", [2, 3])
def test_gemma_and_llama2_markers_are_checked_in_the_tokenizers_own_shapes(labelguard, tmp_path, shard):
    """Gemma's `<start_of_turn>` / `<end_of_turn>` on a tokenizer whose specials are `<...>`-shaped
    but lack them: split, as transformers splits them, once for the dataset whatever its files;
    `<tool_call>` never renders; Llama 2's `[INST]` is text to a tokenizer without `[...]` tokens."""
    model = bare_tokenizer(tmp_path)
    tok = transformers.AutoTokenizer.from_pretrained(model)
    r = random.Random(5)
    convs = [conversation(r, r.randint(1, 4)) for _ in range(6)]
    data = tmp_path / "data"
    data.mkdir()
    for i in range(shard):
        write_jsonl(data / f"train-{i:05}.jsonl", [{"messages": c} for c in convs[i::shard]])
    for template, markers in [(GEMMA, {"<start_of_turn>", "<end_of_turn>"}), (LLAMA2_PLAIN, set())]:
        tok.chat_template = template
        tok.save_pretrained(model)
        found = findings_of(labelguard, data, model)
        if markers:
            assert split_markers_named(found, tok) == markers
        else:
            assert "LG820" not in found, found
        for marker in markers:
            assert len(tok.encode(marker, add_special_tokens=False)) > 1
        # Llama 2's [INST] is pieces in transformers too: that is how it was trained.
        assert len(tok.encode("[INST]", add_special_tokens=False)) > 1
        # The counts, markers split, are transformers' own (each file's finding locates its
        # first rows: all of them, with 2 or 3 conversations a file).
        got = {int(loc["value"]) for f in found["LG805"] for loc in f["locations"]}
        assert got == set(truth(tok, convs).values())
