"""`position_ids` of packed token data (issue 42), in the three formats `datasets` writes
(`save_to_disk`, Parquet, JSON lines): positions that run on across the documents of a packed row
(150..349 against GPT-2's 256 positions) and negative ones are LG805 with their rows and positions;
rows longer than the table whose positions restart per document are clean. The truth that such
positions crash is PyTorch's: the position table's lookup raises on them.
"""

import pytest
from scanning import file_findings, scan_json

datasets = pytest.importorskip("datasets")
transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

POSITIONS = 256


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def packed_rows():
    """Eight packed rows of 400 tokens: two documents each, positions restarting at each."""
    ids, pos = [], []
    for r in range(8):
        ids.append([(7 * r + i) % 90 + 5 for i in range(400)])
        pos.append(list(range(200)) + list(range(200)))
    return ids, pos


def write(tmp_path, fmt, ids, pos):
    ds = datasets.Dataset.from_dict({"input_ids": ids, "position_ids": pos, "attention_mask": [[1] * len(x) for x in ids]})
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / fmt
    if fmt == "disk":
        ds.save_to_disk(str(path))
    elif fmt == "parquet":
        path = tmp_path / "packed.parquet"
        ds.to_parquet(str(path))
    else:
        path = tmp_path / "packed.jsonl"
        ds.to_json(str(path), lines=True)
    return path


@pytest.fixture
def gpt2(tmp_path):
    path = tmp_path / "gpt2"
    transformers.GPT2Config(vocab_size=100, n_positions=POSITIONS, n_embd=8, n_layer=1, n_head=2,
                            bos_token_id=0, eos_token_id=0).save_pretrained(path)
    return path


def lg805(labelguard, data, model):
    report = scan_json(labelguard, data, "--model", str(model))
    found = [x for _, x in file_findings(report)]
    assert {x["code"] for x in found} <= {"LG805"}, found
    return [x for x in found if x["code"] == "LG805"]


def test_the_planted_positions_crash_the_real_model():
    """The defect is real: GPT-2 looks explicit position_ids up in its table."""
    model = transformers.GPT2Model(transformers.GPT2Config(vocab_size=100, n_positions=POSITIONS, n_embd=8,
                                                           n_layer=1, n_head=2))
    ids = torch.tensor([[5] * 200])
    model(input_ids=ids, position_ids=torch.arange(0, 200)[None])
    with pytest.raises(IndexError):
        model(input_ids=ids, position_ids=torch.arange(150, 350)[None])


@pytest.mark.parametrize("fmt", ["disk", "parquet", "jsonl"])
def test_positions_past_the_table_are_named_in_every_format(labelguard, tmp_path, gpt2, fmt):
    ids, pos = packed_rows()
    assert lg805(labelguard, write(tmp_path / "ok", fmt, ids, pos), gpt2) == []
    pos[3] = list(range(150, 350)) + list(range(200))  # the first document's positions run on to 349
    pos[6] = [-1] + list(range(199)) + list(range(200))
    found = lg805(labelguard, write(tmp_path, fmt, ids, pos), gpt2)
    assert len(found) == 1, found
    f = found[0]
    assert f["severity"] == "error"
    locs = [(loc["index"], loc["value"]) for loc in f["locations"]]
    # The first five offending values: row 3 from position 106 (value 256) on.
    assert locs == [([3, 106 + k], str(256 + k)) for k in range(5)]
    assert "95 positions in 2 rows" in f["message"], f["message"]
    assert "rows 3, 6" in f["message"], f["message"]
    assert "lowest -1, largest 349" in f["message"], f["message"]
