"""Nested class folders are an ImageFolder tree, as torchvision reads it (issue 42).

`torchvision.datasets.ImageFolder(root)` takes the root's immediate sub-folders, sorted, as the
classes (hidden ones too: `os.scandir`), and walks each class folder with
`os.walk(followlinks=True)` for files whose lower-cased name ends with one of its
`IMG_EXTENSIONS` (torchvision/datasets/folder.py: `find_classes`, `make_dataset`). The scan's
class list and sample count must be the same on trees with nesting, hidden files, non-image
files and empty class folders; an empty class folder, which torchvision refuses
(`FileNotFoundError: Found no valid file for the classes ...` unless `allow_empty=True`), is the
scan's LG603 on that folder. Photos are never read as masks. The trees are written here.
"""

import warnings

import numpy as np
import pytest
from PIL import Image

from scanning import scan_json

warnings.filterwarnings("ignore")

# torchvision: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def photo(path, fmt=None, seed=0):
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(rng.integers(0, 256, (24, 24, 3), dtype=np.uint8), "RGB").save(path, fmt)


def other(path, data=b"not an image"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def datasets(report):
    return [report, *report.get("datasets", [])]


def codes(report):
    """(path, code) of every finding of the report and its datasets."""
    out = []
    for part in datasets(report):
        for f in part["files"]:
            out.extend((f["path"], x["code"]) for x in f["findings"])
        out.extend(("", x["code"]) for x in part.get("dataset", []))
    return out


def classes_and_counts(report):
    rows = [c for c in report["histogram"]["classes"] if c.get("role", "class") == "class"]
    return [c["name"] for c in rows], [c["count"] for c in rows]


def truth(root, allow_empty=False):
    from torchvision.datasets import ImageFolder

    ds = ImageFolder(root, allow_empty=allow_empty)
    counts = [sum(1 for _, t in ds.samples if t == k) for k in range(len(ds.classes))]
    return ds.classes, counts, len(ds)


def nested_tree(root):
    """`root/<class>/<sub>/.../<image>`: JPEG and PNG photos at several depths, a hidden image
    (counted by torchvision), an upper-case extension, and files that are no images."""
    photo(root / "cat" / "indoor" / "0.jpg", seed=1)
    photo(root / "cat" / "indoor" / "deeper" / "still" / "1.JPG", "JPEG", seed=2)
    photo(root / "cat" / "outdoor" / "2.png", seed=3)
    photo(root / "cat" / "outdoor" / ".hidden.jpg", seed=4)
    other(root / "cat" / "outdoor" / "notes.txt")
    other(root / "cat" / ".DS_Store", b"\0\0\0\1Bud1")
    photo(root / "dog" / "a" / "0.jpg", seed=5)
    photo(root / "dog" / "b" / "1.jpg", seed=6)
    photo(root / "dog" / "top.jpg", seed=7)
    photo(root / "fox" / "x" / "y" / "z" / "0.jpg", seed=8)
    other(root / "fox" / "x" / "README.md", b"# foxes\n")
    other(root / "fox" / "Thumbs.db")


def test_nested_class_folders_have_torchvisions_classes_and_samples(labelguard, tmp_path):
    root = tmp_path / "train"
    nested_tree(root)
    report = scan_json(labelguard, root)
    assert report["settings"]["layouts"] == ["imagefolder"], codes(report)
    assert codes(report) == []
    assert report["summary"]["errors"] == 0
    names, counts = classes_and_counts(report)
    want_names, want_counts, n = truth(root)
    assert names == want_names == ["cat", "dog", "fox"]
    assert counts == want_counts == [4, 3, 1]
    assert sum(counts) == n


def test_nested_class_folders_below_splits(labelguard, tmp_path):
    for split in ["train", "val"]:
        nested_tree(tmp_path / "data" / split)
    report = scan_json(labelguard, tmp_path / "data")
    assert report["settings"]["layouts"] == ["imagefolder"], codes(report)
    assert report["summary"]["errors"] == 0, codes(report)
    names, counts = classes_and_counts(report)
    want_names, want_counts, n = truth(tmp_path / "data" / "train")
    assert names == want_names
    assert counts == [2 * c for c in want_counts]


def test_an_empty_class_folder_is_named_where_torchvision_refuses_it(labelguard, tmp_path):
    root = tmp_path / "train"
    nested_tree(root)
    # A class folder with sub-folders but no image: torchvision refuses the tree.
    other(root / "eel" / "sub" / "readme.txt")
    from torchvision.datasets import ImageFolder

    with pytest.raises(FileNotFoundError, match="eel"):
        ImageFolder(root)
    report = scan_json(labelguard, root)
    assert report["settings"]["layouts"] == ["imagefolder"], codes(report)
    assert codes(report) == [(str(root / "eel"), "LG603")]
    names, counts = classes_and_counts(report)
    want_names, want_counts, n = truth(root, allow_empty=True)
    assert want_names == ["cat", "dog", "eel", "fox"]
    # The scan's classes are torchvision's ids: eel is 2, with no sample, fox 3.
    assert dict(zip(names, counts)) == {k: v for k, v in zip(want_names, want_counts) if v}
    assert sum(counts) == n


def test_a_hidden_class_folder_is_a_class_as_torchvision_counts_it(labelguard, tmp_path):
    root = tmp_path / "train"
    nested_tree(root)
    # Jupyter's checkpoints folder, copied into a dataset: torchvision's class 0.
    photo(root / ".ipynb_checkpoints" / "x" / "0-checkpoint.jpg", seed=9)
    report = scan_json(labelguard, root)
    assert report["settings"]["layouts"] == ["imagefolder"], codes(report)
    names, counts = classes_and_counts(report)
    want_names, want_counts, n = truth(root)
    assert names == want_names and names[0] == ".ipynb_checkpoints"
    assert counts == want_counts and sum(counts) == n
