"""labelguard's `webdataset` layout against the `webdataset` library itself.

Random datasets are written as a tar shard with `webdataset.TarWriter` and as the same files
extracted into a folder (member order = the order labelguard walks the folder: depth-first,
names sorted by their bytes). The samples `webdataset.WebDataset` yields from the shard are the
truth: every finding the scan of the extracted folder must make follows from them (a second
run of a key, a label without its image, a mask whose size differs from its sample's image, a
class label past the class count), and the scan must make no other.
"""

import io
import pathlib
import random

import numpy as np
import pytest
import webdataset as wds
from PIL import Image
from scanning import file_findings, scan_json

NUM_CLASSES = 4

# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow

# Sample keys with the names WebDataset splits in unusual ways: dots in folder names, a name
# starting with a dot (its key backs up to the folder), upper-case extensions.
KEYS = ["000001", "000002", "a/000003", "a.b/000004", "deep/er/x-5", "s/k", "s/k.d/m", "s/"]
PARTS = ["jpg", "JPG", "seg.png", "Seg.PNG", "cls", "txt"]


def jpeg(rng, w, h):
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(buf, "JPEG")
    return buf.getvalue()


def png(rng, w, h):
    """A mask of two classes, left and right (no pixel a resize could have blended)."""
    mask = np.zeros((h, w), dtype=np.uint8)
    mask[:, w // 2 :] = rng.integers(1, NUM_CLASSES)
    buf = io.BytesIO()
    Image.fromarray(mask).save(buf, "PNG")
    return buf.getvalue()


def random_dataset(seed):
    """{member name: bytes}: a few samples, some without their image, some sizes off, some
    class labels past the class count."""
    rng = np.random.default_rng(seed)
    pick = random.Random(seed)
    files = {}
    for key in pick.sample(KEYS, pick.randint(3, len(KEYS))):
        size = (pick.choice([8, 12]), pick.choice([8, 6]))
        exts = pick.sample(PARTS, pick.randint(1, 4))
        # One spelling of each extension: two would make WebDataset raise (tested below).
        if "jpg" in exts and "JPG" in exts:
            exts.remove("JPG")
        if "seg.png" in exts and "Seg.PNG" in exts:
            exts.remove("Seg.PNG")
        for ext in exts:
            name = key + "." + ext
            low = ext.lower()
            if low == "jpg":
                files[name] = jpeg(rng, *size)
            elif low == "seg.png":
                w, h = size if pick.random() < 0.7 else (size[0] + 2, size[1])
                files[name] = png(rng, w, h)
            elif low == "cls":
                files[name] = str(pick.randint(0, NUM_CLASSES + 1)).encode()
            else:
                files[name] = b"a caption"
    return files


def walk_order(names):
    """The order labelguard walks a folder in: depth-first, each folder's names sorted by bytes."""
    return sorted(names, key=lambda n: [c.encode() for c in n.split("/")])


def write(tmp, files):
    """The files as a shard (in walk order, one member per write) and extracted."""
    order = walk_order(files)
    tar = tmp / "shard-000000.tar"
    with wds.TarWriter(str(tar), encoder=False) as sink:
        for name in order:
            key, ext = name.rsplit(".", 1)
            sink.write({"__key__": key, ext: files[name]})
    root = tmp / "extracted"
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return tar, root


def expected(tar, files):
    """{(member, code)}: the findings the samples WebDataset yields call for."""
    # Each yielded part back to its member name (extensions are lower-cased by WebDataset).
    spelled = {}
    for name in files:
        key, ext = wds.tariterators.base_plus_ext(name)
        spelled[(key, ext.lower())] = name
    out = set()
    seen = set()
    for sample in wds.WebDataset(str(tar), shardshuffle=False):
        key = sample["__key__"]
        parts = [k for k in sample if not k.startswith("__")]
        names = {k: spelled[(key, k)] for k in parts}
        first = walk_order(names.values())[0]
        if key in seen:
            out.add((first, "LG616"))
        seen.add(key)
        labels = [k for k in parts if k in ("seg.png", "cls")]
        if labels and "jpg" not in sample and "txt" not in sample:
            out.add((walk_order([names[k] for k in labels])[0], "LG616"))
        if "seg.png" in sample and "jpg" in sample:
            mask = Image.open(io.BytesIO(sample["seg.png"]))
            image = Image.open(io.BytesIO(sample["jpg"]))
            if mask.size != image.size:
                out.add((names["seg.png"], "LG607"))
        if "cls" in sample and int(sample["cls"]) >= NUM_CLASSES:
            out.add((names["cls"], "LG101"))
    return out


def found(report, root):
    prefix = str(root) + "/"
    return {(f["path"][len(prefix):], x["code"]) for f, x in file_findings(report)}


@pytest.mark.parametrize("seed", range(40))
def test_samples_are_grouped_as_webdataset_groups_them(labelguard, tmp_path, seed):
    files = random_dataset(seed)
    tar, root = write(tmp_path, files)
    report = scan_json(labelguard, root, "--layout", "webdataset", "--num-classes", str(NUM_CLASSES))
    assert found(report, root) == expected(tar, files)


def test_a_keyed_folder_is_detected_and_meta_files_are_skipped(labelguard, tmp_path):
    rng = np.random.default_rng(0)
    files = {
        "000001.jpg": jpeg(rng, 8, 8),
        "000001.seg.png": png(rng, 8, 8),
        "000001.cls": b"1",
        "000002.jpg": jpeg(rng, 8, 8),
        "000002.seg.png": png(rng, 10, 8),
        "000002.cls": b"9",
        "__index__/x.cls": b"7",
    }
    tar, root = write(tmp_path, files)
    assert [s["__key__"] for s in wds.WebDataset(str(tar), shardshuffle=False)] == ["000001", "000002"]
    report = scan_json(labelguard, root, "--num-classes", str(NUM_CLASSES))
    assert report["settings"]["layouts"] == ["webdataset"]
    assert found(report, root) == expected(tar, files) == {("000002.seg.png", "LG607"), ("000002.cls", "LG101")}


def test_two_parts_with_one_extension_are_the_error_webdataset_raises(labelguard, tmp_path):
    rng = np.random.default_rng(1)
    files = {"000001.JPG": jpeg(rng, 8, 8), "000001.jpg": jpeg(rng, 8, 8), "000001.cls": b"1"}
    tar, root = write(tmp_path, files)
    with pytest.raises(ValueError, match="duplicate file name"):
        list(wds.WebDataset(str(tar), shardshuffle=False))
    report = scan_json(labelguard, root, "--layout", "wds", "--num-classes", str(NUM_CLASSES))
    # The second of the two in member order.
    assert found(report, root) == {(walk_order(files)[-1], "LG616")}
