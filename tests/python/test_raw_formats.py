"""labelguard scan on the raw files training scripts read that are no table or mask: torchvision's
MNIST IDX files and CIFAR-10/100 python batches, nanoGPT's `train.bin`/`val.bin` + `meta.pkl`.

Each is written with numpy and pickle as its dataset ships it (or as its `prepare.py` writes
it), then loaded with the real reader (torchvision.datasets.MNIST/CIFAR10/CIFAR100 with
`download=False`, `np.memmap` + `nn.Embedding` as nanoGPT's `train.py` does) to prove the layout;
the scan must find the planted defect where the reader sees it, and nothing on the valid twin.
"""

import pickle

import pytest
from scanning import file_findings, scan_json

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def findings(report):
    """[(code, file name, first index)] of every finding, sorted."""
    out = []
    for f, x in file_findings(report):
        at = x["locations"][0]["index"] if x.get("locations") else []
        out.append((x["code"], f["path"].rsplit("/", 1)[-1], at))
    return sorted(out)


def errors(report):
    return [x for _, x in file_findings(report) if x["severity"] == "error"] + [
        x for x in report.get("dataset", []) if x["severity"] == "error"
    ]


# --- MNIST -------------------------------------------------------------------------------


def write_idx(path, magic, array):
    """An IDX file as the MNIST site ships it: big-endian magic and sizes, then the values."""
    header = np.array([magic, *array.shape], dtype=">u4").tobytes()
    path.write_bytes(header + array.astype(np.uint8).tobytes())


def mnist_root(tmp_path, labels):
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for split, lab in [("train", labels), ("t10k", np.arange(20) % 10)]:
        write_idx(raw / f"{split}-labels-idx1-ubyte", 0x801, np.asarray(lab))
        write_idx(raw / f"{split}-images-idx3-ubyte", 0x803, np.zeros((len(lab), 28, 28)))
    return tmp_path


def test_mnist_labels_as_torchvision_reads_them(labelguard, tmp_path):
    labels = np.arange(60) % 10
    labels[42] = 10  # a label past the 10 classes
    root = mnist_root(tmp_path / "bad", labels)
    ds = torchvision.datasets.MNIST(str(root), train=True, download=False)
    assert ds.targets.tolist() == labels.tolist()
    # What the training loop meets: the CPU says so, CUDA would assert.
    with pytest.raises(IndexError, match="out of bounds"):
        torch.nn.functional.cross_entropy(torch.zeros(1, 10), ds.targets[42:43])
    report = scan_json(labelguard, root)
    assert findings(report) == [("LG101", "train-labels-idx1-ubyte", [42])]
    twin = mnist_root(tmp_path / "good", np.arange(60) % 10)
    assert len(torchvision.datasets.MNIST(str(twin), train=True, download=False)) == 60
    assert errors(scan_json(labelguard, twin)) == []


def test_mnist_labels_that_do_not_match_their_images_are_named(labelguard, tmp_path):
    root = mnist_root(tmp_path, np.arange(60) % 10)
    raw = root / "MNIST" / "raw"
    write_idx(raw / "train-images-idx3-ubyte", 0x803, np.zeros((61, 28, 28)))
    ds = torchvision.datasets.MNIST(str(root), train=True, download=False)
    with pytest.raises(IndexError):
        ds[60]  # the 61st image has no label
    codes = findings(scan_json(labelguard, root))
    assert ("LG602", "train-labels-idx1-ubyte", []) in codes


# --- CIFAR -------------------------------------------------------------------------------


@pytest.fixture
def no_md5(monkeypatch):
    """torchvision checks the CIFAR files' md5 against the real ones: these are not."""
    import torchvision.datasets.cifar as cifar

    monkeypatch.setattr(cifar, "check_integrity", lambda *a, **k: True)


def write_batch(path, key, labels, protocol, numpy_ints=False):
    """A batch as CIFAR ships it (its labels Python ints), or rebuilt with `list(array)` (numpy
    integer scalars, which torchvision takes as well)."""
    data = np.zeros((len(labels), 3072), dtype=np.uint8)
    labels = list(labels) if numpy_ints else [int(v) for v in labels]
    entry = {"batch_label": "training batch 1 of 5", key: labels, "data": data,
             "filenames": [f"img_{i}.png" for i in range(len(labels))]}
    if key == "fine_labels":
        entry["coarse_labels"] = [v // 5 for v in labels]
    with open(path, "wb") as f:
        pickle.dump(entry, f, protocol=protocol)


def cifar10_root(root, labels, protocol, numpy_ints=False):
    d = root / "cifar-10-batches-py"
    d.mkdir(parents=True)
    for i in range(1, 6):
        write_batch(d / f"data_batch_{i}", "labels", np.arange(20) % 10, protocol, numpy_ints)
    write_batch(d / "test_batch", "labels", labels, protocol, numpy_ints)
    with open(d / "batches.meta", "wb") as f:
        pickle.dump({"label_names": [f"c{i}" for i in range(10)], "num_vis": 3072}, f, protocol)
    return root


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
@pytest.mark.parametrize("numpy_ints", [False, True])
def test_cifar10_batches_as_torchvision_reads_them(labelguard, tmp_path, no_md5, protocol,
                                                   numpy_ints):
    labels = np.arange(30) % 10
    labels[7] = 10
    root = cifar10_root(tmp_path / "bad", labels, protocol, numpy_ints)
    ds = torchvision.datasets.CIFAR10(str(root), train=False, download=False)
    assert ds.targets == labels.tolist()
    report = scan_json(labelguard, root)
    assert findings(report) == [("LG101", "test_batch", [7])]
    twin = cifar10_root(tmp_path / "good", np.arange(30) % 10, protocol, numpy_ints)
    assert errors(scan_json(labelguard, twin)) == []


def test_cifar100_fine_labels_against_100_classes(labelguard, tmp_path, no_md5):
    d = tmp_path / "cifar-100-python"
    d.mkdir()
    fine = np.arange(2000) % 100
    fine[150] = 100
    write_batch(d / "train", "fine_labels", fine, 2)
    write_batch(d / "test", "fine_labels", np.arange(100), 2)
    with open(d / "meta", "wb") as f:
        pickle.dump({"fine_label_names": [f"f{i}" for i in range(100)],
                     "coarse_label_names": [f"c{i}" for i in range(20)]}, f, 2)
    ds = torchvision.datasets.CIFAR100(str(tmp_path), train=True, download=False)
    assert ds.targets == fine.tolist()
    report = scan_json(labelguard, tmp_path)
    # The class-id check names the label at 150: one label of 100 among 20 of each class is a
    # stray label (a data error in that row), not ADE20K's "0 means other" (issue 34).
    [(code, name, at)] = findings(report)
    assert (code, name, at) == ("LG101", "train", [150])
    assert len(errors(report)) == 1


# --- nanoGPT -----------------------------------------------------------------------------


def nanogpt(root, ids_train, vocab):
    """What nanoGPT's data/shakespeare_char/prepare.py writes."""
    root.mkdir(parents=True)
    for name, ids in [("train.bin", ids_train), ("val.bin", np.arange(50) % vocab)]:
        arr = np.memmap(root / name, dtype=np.uint16, mode="w+", shape=(len(ids),))
        arr[:] = ids
        arr.flush()
    chars = [chr(ord("a") + i) for i in range(vocab)]
    meta = {"vocab_size": vocab, "itos": dict(enumerate(chars)),
            "stoi": {c: i for i, c in enumerate(chars)}}
    with open(root / "meta.pkl", "wb") as f:
        pickle.dump(meta, f)
    return root


def test_nanogpt_ids_against_meta_pkl(labelguard, tmp_path):
    ids = np.arange(1000) % 26
    ids[777] = 30
    root = nanogpt(tmp_path / "bad", ids, 26)
    # nanoGPT's train.py: np.memmap, then the model's embedding of meta's vocab_size rows.
    data = np.memmap(root / "train.bin", dtype=np.uint16, mode="r")
    with open(root / "meta.pkl", "rb") as f:
        vocab = pickle.load(f)["vocab_size"]
    emb = torch.nn.Embedding(vocab, 4)
    with pytest.raises(IndexError):
        emb(torch.from_numpy(data[770:780].astype(np.int64)))
    report = scan_json(labelguard, root)
    assert findings(report) == [("LG801", "train.bin", [777])]
    twin = nanogpt(tmp_path / "good", np.arange(1000) % 26, 26)
    assert findings(scan_json(labelguard, twin)) == []


def test_a_pickle_that_would_run_code_is_read_not_run(labelguard, tmp_path):
    root = nanogpt(tmp_path / "d", np.arange(100) % 26, 26)
    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            import os

            return (os.system, (f"touch {marker}",))

    with open(root / "meta.pkl", "wb") as f:
        pickle.dump(Evil(), f)
    report = scan_json(labelguard, root)
    assert not marker.exists()
    codes = {c for c, _, _ in findings(report)}
    assert codes == {"LG602", "LG817"}, findings(report)


def test_nanogpt_gpt2_bin_with_vocab_size(labelguard, tmp_path):
    # nanoGPT's data/shakespeare/prepare.py (GPT-2 BPE ids, no meta.pkl):
    # `train_ids = np.array(train_ids, dtype=np.uint16); train_ids.tofile(...)`; train.py then
    # builds the model with its default vocab_size of 50304 rows.
    root = tmp_path / "shakespeare"
    root.mkdir()
    ids = (np.arange(4000) * 12289) % 50257
    ids[1234] = 50304  # one id at the padded vocabulary's end
    np.array(ids, dtype=np.uint16).tofile(root / "train.bin")
    np.array(np.arange(300) * 7 % 50257, dtype=np.uint16).tofile(root / "val.bin")
    data = np.memmap(root / "train.bin", dtype=np.uint16, mode="r")
    emb = torch.nn.Embedding(50304, 2)
    emb(torch.from_numpy(data[:1234].astype(np.int64)))
    with pytest.raises(IndexError):
        emb(torch.from_numpy(data[1230:1240].astype(np.int64)))
    # Nothing says the vocabulary: LG817 on both files, no error.
    unchecked = scan_json(labelguard, root)
    assert [c for c, _, _ in findings(unchecked)] == ["LG817", "LG817"]
    report = scan_json(labelguard, root, "--vocab-size", "50304")
    assert findings(report) == [("LG801", "train.bin", [1234])]
    (x,) = [x for _, x in file_findings(report)]
    assert "outside [0, 50304)" in x["message"] and "--vocab-size 50304" in x["message"]
    assert report["settings"]["vocab_size"] == 50304
    # One row more holds every id, as the model with 50305 rows does.
    torch.nn.Embedding(50305, 2)(torch.from_numpy(data[:].astype(np.int64)))
    assert findings(scan_json(labelguard, root, "--vocab-size", "50305")) == []
