"""labelguard scan on Megatron indexed datasets (`PREFIX.bin` + `PREFIX.idx`) written by
megatron-core's own `IndexedDatasetBuilder`, as `tools/preprocess_data.py` writes them, and read
back with its `IndexedDataset`: the scan places an out-of-vocabulary id in the sequence and
offset where Megatron's reader returns it, and is clean on the valid twin.
"""

import warnings

import pytest
from scanning import file_findings, scan_json

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
with warnings.catch_warnings():
    # megatron-core warns at import that Transformer Engine and Apex are absent (CPU only).
    warnings.simplefilter("ignore")
    indexed = pytest.importorskip(
        "megatron.core.datasets.indexed_dataset",
        reason="megatron-core is not installed (requirements-dev.txt pins it)",
    )

# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def build(prefix, documents, dtype):
    """One sequence per document, as preprocess_data.py adds them (`add_document` of each
    document's sentence ids), finalized into PREFIX.idx."""
    builder = indexed.IndexedDatasetBuilder(f"{prefix}.bin", dtype=dtype)
    for doc in documents:
        builder.add_document(torch.tensor(doc), [len(doc)])
    builder.finalize(f"{prefix}.idx")


def findings(report):
    out = []
    for f, x in file_findings(report):
        at = x["locations"][0]["index"] if x.get("locations") else []
        out.append((x["code"], f["path"].rsplit("/", 1)[-1], at))
    return sorted(out)


@pytest.mark.parametrize(
    "vocab,dtype",
    # preprocess_data.py picks the dtype with DType.optimal_dtype(vocab_size): uint16 below
    # 65500 ids, int32 above (Llama 3's 128256).
    [(50257, np.uint16), (128256, np.int32)],
)
def test_megatron_core_dataset(labelguard, tmp_path, vocab, dtype):
    assert indexed.DType.optimal_dtype(vocab) == dtype
    rng = np.random.default_rng(0)
    docs = [rng.integers(0, vocab, size=n).tolist() for n in (17, 300, 5, 64)]
    good = tmp_path / "good"
    good.mkdir()
    build(good / "corpus_text_document", docs, dtype)
    docs[1][123] = vocab + 5  # one id beyond the vocabulary, in the second sequence
    bad = tmp_path / "bad"
    bad.mkdir()
    build(bad / "corpus_text_document", docs, dtype)

    # Megatron reads it back: the sequence, and the id where the model's embedding fails.
    ds = indexed.IndexedDataset(str(bad / "corpus_text_document"))
    assert len(ds) == 4 and ds[1][123] == vocab + 5
    emb = torch.nn.Embedding(vocab, 2)
    with pytest.raises(IndexError):
        emb(torch.from_numpy(ds[1].astype(np.int64)))

    report = scan_json(labelguard, bad, "--vocab-size", str(vocab))
    assert findings(report) == [("LG801", "corpus_text_document.bin", [1, 123])]
    (x,) = [x for _, x in file_findings(report)]
    assert f"outside [0, {vocab})" in x["message"] and "sequence 1" in x["message"]
    assert findings(scan_json(labelguard, good, "--vocab-size", str(vocab))) == []
    # Without a vocabulary the ids are read, and the scan says they were not checked.
    assert findings(scan_json(labelguard, good)) == [("LG817", "corpus_text_document.bin", [])]
