"""labelguard scan --model on tokenized datasets written by the real `datasets` library.

Tiny random models (BERT, Llama, LLaVA) are built and saved with `save_pretrained` here, no
downloads; for each, a tokenized dataset with planted defects in known rows and its clean twin
are saved with `save_to_disk` (a `Dataset`, and a `DatasetDict` of splits), `to_parquet` and
`to_json(lines=True)`. The scan must name every planted defect with its rule and row, give no
data finding for the clean twins, and find the same (rule, row) pairs in the three formats.
"""


import pytest
from scanning import file_findings, scan_json

datasets = pytest.importorskip("datasets")
transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
Image = pytest.importorskip("PIL.Image")

VOCAB = 96
ROWS = 40




# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def token_findings(report):
    """{(split, code): rows} of the token-data findings (LG80x), from their locations."""
    found = {}
    for f, x in file_findings(report):
        if x["code"].startswith("LG80"):
            rows = found.setdefault((f.get("split", ""), x["code"]), set())
            rows.update(loc["index"][0] for loc in x["locations"])
    return found


def by_code(found):
    out = {}
    for (_, code), rows in found.items():
        out.setdefault(code, set()).update(rows)
    return out


def tokenizer():
    """A WordPiece tokenizer of VOCAB tokens ([PAD] 0), saved beside the model."""
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"w{i}" for i in range(VOCAB - 5)]
    tok = transformers.BertTokenizerFast(vocab={w: i for i, w in enumerate(words)})
    assert len(tok) == VOCAB
    return tok


def save_model(model, tok, path):
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def bert_model(tmp_path):
    cfg = transformers.BertConfig(
        vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32, type_vocab_size=2, pad_token_id=0,
    )
    return save_model(transformers.BertForMaskedLM(cfg), tokenizer(), tmp_path / "bert")


def llama_model(tmp_path):
    cfg = transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=2, intermediate_size=32, max_position_embeddings=48, pad_token_id=0,
        bos_token_id=2, eos_token_id=3,
    )
    return save_model(transformers.LlamaForCausalLM(cfg), tokenizer(), tmp_path / "llama")


IMAGE_TOKEN = VOCAB - 1


def llava_model(tmp_path):
    text = transformers.LlamaConfig(
        vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=2, intermediate_size=32, max_position_embeddings=64, pad_token_id=0,
    )
    vision = transformers.CLIPVisionConfig(
        hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        image_size=8, patch_size=4,
    )
    cfg = transformers.LlavaConfig(
        vision_config=vision, text_config=text, image_token_index=IMAGE_TOKEN, image_seq_length=4,
    )
    model = transformers.LlavaForConditionalGeneration(cfg)
    return save_model(model, tokenizer(), tmp_path / "llava")


def rows_of(rng, n, max_len, types=False, images=False):
    """Clean tokenized rows: ids in [5, VOCAB-1), labels masking a prompt with -100."""
    out = []
    for _ in range(n):
        length = rng.randint(6, max_len)
        ids = [rng.randint(5, VOCAB - 2) for _ in range(length)]
        prompt = rng.randint(1, length - 2)
        row = {
            "input_ids": ids,
            "attention_mask": [1] * length,
            "labels": [-100] * prompt + ids[prompt:],
        }
        if types:
            cut = rng.randint(1, length - 1)
            row["token_type_ids"] = [0] * cut + [1] * (length - cut)
        if images:
            k = rng.randint(0, 2)
            row["input_ids"] = [IMAGE_TOKEN] * k + ids[k:]
            row["images"] = [Image.new("RGB", (8, 8), (i * 40, 0, 0)) for i in range(k)]
        out.append(row)
    return out


def plant(rows, max_len, types=False, images=False):
    """Plants one defect per rule in known rows; returns {code: rows}."""
    def set_len(r, n):
        k = r["input_ids"].count(IMAGE_TOKEN) if images else 0
        text = [t for t in r["input_ids"] if t != IMAGE_TOKEN]
        r["input_ids"] = [IMAGE_TOKEN] * k + (text * 100)[: n - k]
        r["attention_mask"] = [1] * n
        r["labels"] = (r["labels"] * 10)[:n]
        if "token_type_ids" in r:
            r["token_type_ids"] = [0] * n
    rows[3]["input_ids"][-1] = VOCAB + 4               # LG801: beyond the embedding
    rows[5]["labels"][-1] = -1                         # LG803: -1 padding
    rows[7]["labels"] = [-100] * len(rows[7]["labels"])  # LG804: every label ignored
    set_len(rows[9], max_len + 3)                      # LG805: beyond the positions
    rows[13]["attention_mask"][0] = 2                  # LG807: mask value 2
    rows[15]["attention_mask"] = rows[15]["attention_mask"][:-1]  # LG807: shorter mask
    rows[17]["labels"][-1] = VOCAB + 10                # LG802: label beyond the vocabulary
    planted = {"LG801": {3}, "LG803": {5}, "LG804": {7}, "LG805": {9}, "LG807": {13, 15},
               "LG802": {17}}
    if types:
        rows[11]["token_type_ids"][0] = 2              # LG806: beyond type_vocab_size
        planted["LG806"] = {11}
    if images:
        rows[19]["input_ids"][0] = IMAGE_TOKEN         # LG808: one placeholder too many
        rows[19]["images"] = []
        rows[21]["input_ids"][:2] = [IMAGE_TOKEN, 6]   # LG808: image without its placeholder
        rows[21]["images"] = [Image.new("RGB", (8, 8)), Image.new("RGB", (8, 8))]
        planted["LG808"] = {19, 21}
    return planted


def features(types, images):
    f = {
        "input_ids": datasets.List(datasets.Value("int32")),
        "attention_mask": datasets.List(datasets.Value("int8")),
        "labels": datasets.List(datasets.Value("int64")),
    }
    if types:
        f["token_type_ids"] = datasets.List(datasets.Value("int8"))
    if images:
        f["images"] = datasets.List(datasets.Image())
    return datasets.Features(f)


def make(rng, max_len, types=False, images=False):
    bad = rows_of(rng, ROWS, max_len - 2, types, images)
    planted = plant(bad, max_len, types, images)
    good = rows_of(rng, ROWS, max_len - 2, types, images)
    feats = features(types, images)
    to_ds = lambda rows: datasets.Dataset.from_list(rows, features=feats)  # noqa: E731
    return to_ds(bad), to_ds(good), planted


def save_all(ds, base, name):
    """The dataset in the three formats: {format: path}."""
    paths = {"arrow": base / f"{name}_disk", "parquet": base / f"{name}.parquet",
             "jsonl": base / f"{name}.jsonl"}
    ds.save_to_disk(str(paths["arrow"]), max_shard_size="2KB")
    ds.to_parquet(str(paths["parquet"]))
    # JSON holds no image bytes: each row keeps as many (stand-in) images as it has.
    flat = ds
    if "images" in ds.column_names:
        counts = [len(r["images"]) for r in ds]
        flat = ds.remove_columns("images").add_column("images", [["img"] * k for k in counts])
    flat.to_json(str(paths["jsonl"]), lines=True)
    return paths


CASES = [("bert", bert_model, 32, True, False), ("llama", llama_model, 48, False, False),
         ("llava", llava_model, 64, False, True)]


@pytest.mark.parametrize("name,build,max_len,types,images", CASES, ids=[c[0] for c in CASES])
def test_planted_defects_are_found_with_their_rows_in_every_format(
        labelguard, tmp_path, name, build, max_len, types, images):
    import random
    rng = random.Random(len(name) * 101)
    model = build(tmp_path)
    bad, good, planted = make(rng, max_len, types, images)
    seen = {}
    for fmt, path in save_all(bad, tmp_path, "bad").items():
        found = by_code(token_findings(scan_json(labelguard, path, "--model", str(model))))
        assert found == planted, f"{name} {fmt}: {found} != {planted}"
        seen[fmt] = found
    assert seen["arrow"] == seen["parquet"] == seen["jsonl"]
    for fmt, path in save_all(good, tmp_path, "good").items():
        report = scan_json(labelguard, path, "--model", str(model))
        assert token_findings(report) == {}, f"{name} {fmt} clean twin"


def test_a_dataset_dict_names_each_split(labelguard, tmp_path):
    import random
    rng = random.Random(7)
    model = llama_model(tmp_path)
    bad, good, planted = make(rng, 48)
    dd = datasets.DatasetDict({"train": good, "validation": bad})
    dd.save_to_disk(str(tmp_path / "dd"))
    found = token_findings(scan_json(labelguard, tmp_path / "dd", "--model", str(model)))
    assert {split for split, _ in found} == {"validation"}
    assert {code: rows for (_, code), rows in found.items()} == planted


def test_without_a_model_the_checks_that_need_none_still_run(labelguard, tmp_path):
    import random
    rng = random.Random(3)
    bad, _, planted = make(rng, 32, types=True)
    bad.save_to_disk(str(tmp_path / "ds"))
    found = by_code(token_findings(scan_json(labelguard, tmp_path / "ds")))
    # No vocabulary, positions or type table without --model: only LG803, LG804, LG807.
    assert found == {k: planted[k] for k in ("LG803", "LG804", "LG807")}


def test_the_model_findings_appear_once(labelguard, tmp_path):
    """A tokenizer larger than the embedding (LG809, h-model's check) is reported once, even
    for a DatasetDict of two splits."""
    import random
    rng = random.Random(5)
    tok = tokenizer()
    tok.add_tokens(["<new1>", "<new2>"])
    cfg = transformers.LlamaConfig(vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1,
                                   num_attention_heads=2, num_key_value_heads=2,
                                   intermediate_size=32, max_position_embeddings=48, pad_token_id=0)
    model = save_model(transformers.LlamaForCausalLM(cfg), tok, tmp_path / "m")
    _, good, _ = make(rng, 48)
    datasets.DatasetDict({"train": good, "test": good}).save_to_disk(str(tmp_path / "dd"))
    report = scan_json(labelguard, tmp_path / "dd", "--model", str(model))
    codes = [x["code"] for f in report["files"] for x in f["findings"]]
    assert codes.count("LG809") == 1, codes


def test_float_and_ragged_columns_are_findings_naming_the_file(labelguard, tmp_path):
    floats = datasets.Dataset.from_dict({"input_ids": [[1.5, 2.0], [3.0]]})
    floats.save_to_disk(str(tmp_path / "floats"))
    report = scan_json(labelguard, tmp_path / "floats")
    found = [x for f in report["files"] for x in f["findings"]]
    assert [x["code"] for x in found] == ["LG205"], found
    assert "data-00000-of-00001.arrow" in found[0]["message"]
    (tmp_path / "ragged.jsonl").write_text('{"input_ids": [1, 2]}\n{"input_ids": [[1], [2]]}\n')
    report = scan_json(labelguard, tmp_path / "ragged.jsonl")
    found = [x for f in report["files"] for x in f["findings"]]
    assert [x["code"] for x in found] == ["LG602"], found
    assert "ragged.jsonl" in found[0]["message"] and "row 1" in found[0]["message"]
