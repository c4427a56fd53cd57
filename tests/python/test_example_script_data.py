"""labelguard scan on the data files of transformers' example scripts (`run_glue.py`,
`run_swag.py`, `run_ner.py`, `run_clm.py`, their `_no_trainer` twins): `--train_file` is a
`.csv` or a `.json` file, and `datasets.load_dataset("json", data_files=...)` reads a `.json`
file as JSON Lines, one record a line.

Each file is loaded with `datasets` itself, the truth of what the script trains on. The scan
reads the `.json` file as the label table it is (it was "corrupt: not a PNG, TIFF or array
mask" named alone, and skipped in a folder); a label of -1 with PyTorch's default
ignore_index is found with no class count given, as PyTorch's loss refuses it for every C; a
text-only file (`{"text": ...}`) and the `id2label.json` beside the data are no error; a
multiple-choice table (`run_swag.py`: `ending0`..`ending3`) has as many classes as endings.
"""

import json

import pytest
from scanning import file_findings, scan_json

torch = pytest.importorskip("torch")
datasets = pytest.importorskip("datasets")

# torch and datasets (requirements-dev.txt): not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow

WORDS = "the a good bad movie plot actor great awful fine boring".split()


def write_json_lines(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def sentences(n=60, stray=None):
    """run_glue-style records: a sentence and a binary label; `stray` replaces row 13's label."""
    rows = [
        {"sentence": " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(6)), "label": i % 2}
        for i in range(n)
    ]
    if stray is not None:
        rows[13]["label"] = stray
    return rows


def loaded_labels(path):
    """The labels as the example script gets them."""
    return datasets.load_dataset("json", data_files={"train": str(path)})["train"]["label"]


def codes(report):
    return sorted((x["code"], x["severity"]) for _, x in file_findings(report))


def histogram(report):
    return {c["id"]: c["count"] for c in report["histogram"]["classes"]}


def test_a_json_lines_train_file_is_read_as_the_table_datasets_reads(labelguard, tmp_path):
    data = tmp_path / "glue"
    data.mkdir()
    train = write_json_lines(data / "train.json", sentences())
    write_json_lines(data / "validation.json", sentences(20))
    # Beside the data: a one-line mapping, no table.
    (data / "id2label.json").write_text(json.dumps({"0": "negative", "1": "positive"}))
    assert loaded_labels(train) == [i % 2 for i in range(60)]
    alone = scan_json(labelguard, train)
    assert codes(alone) == []
    assert histogram(alone) == {0: 30, 1: 30}
    folder = scan_json(labelguard, data)
    assert codes(folder) == []
    assert folder["summary"]["files_scanned"] == 2  # not id2label.json
    assert histogram(folder) == {0: 40, 1: 40}


def write_table(path, rows):
    """`rows` as a `.csv` file or as JSON Lines, by `path`'s suffix."""
    if path.suffix == ".csv":
        path.write_text("sentence,label\n" + "".join(f"{r['sentence']},{r['label']}\n" for r in rows))
    else:
        write_json_lines(path, rows)
    return path


@pytest.mark.parametrize("suffix", ["json", "jsonl", "csv"])
def test_a_label_of_minus_one_is_found_without_a_class_count(labelguard, tmp_path, suffix):
    path = write_table(tmp_path / f"train.{suffix}", sentences(stray=-1))
    builder = "csv" if suffix == "csv" else "json"
    labels = datasets.load_dataset(builder, data_files={"train": str(path)})["train"]["label"]
    assert labels[13] == -1
    # What the training loop meets, whatever the number of classes.
    with pytest.raises(IndexError, match="out of bounds"):
        torch.nn.functional.cross_entropy(torch.zeros(1, 2), torch.tensor(labels[13:14]))
    report = scan_json(labelguard, path)
    found = [x for _, x in file_findings(report)]
    assert [(x["code"], x["severity"]) for x in found] == [("LG107", "error")]
    assert found[0]["locations"][0]["index"] == [13]
    # A -1 that the loss ignores is no finding; without a class count a large id is only counted.
    assert codes(scan_json(labelguard, path, "--ignore-index=-1")) == []
    assert codes(scan_json(labelguard, write_table(path, sentences(stray=7)))) == []


def test_a_text_dataset_without_labels_is_no_error(labelguard, tmp_path):
    train = write_json_lines(
        tmp_path / "train.json", [{"text": " ".join(WORDS[i:] + WORDS[:i])} for i in range(8)]
    )
    assert datasets.load_dataset("json", data_files={"train": str(train)})["train"].column_names == ["text"]
    report = scan_json(labelguard, train)
    assert codes(report) == [("LG613", "warning")]
    message = next(x["message"] for _, x in file_findings(report))
    assert "not checked" in message and "text" in message
    # A column the user names and the table lacks stays an error.
    named = scan_json(labelguard, train, "--label-column", "tag")
    assert codes(named) == [("LG613", "error")]


def swag_records(n=40, stray=None):
    """run_swag.py's `--train_file` records: a context, four endings, the right one's index."""
    rows = [
        {
            "sent1": WORDS[i % len(WORDS)],
            "sent2": WORDS[(i + 3) % len(WORDS)],
            **{f"ending{k}": WORDS[(i + k) % len(WORDS)] for k in range(4)},
            "label": i % 4,
        }
        for i in range(n)
    ]
    if stray is not None:
        rows[7]["label"] = stray
    return rows


def test_a_multiple_choice_table_has_as_many_classes_as_endings(labelguard, tmp_path):
    train = write_json_lines(tmp_path / "train.json", swag_records(stray=4))
    loaded = datasets.load_dataset("json", data_files={"train": str(train)})["train"]
    endings = [c for c in loaded.column_names if c.startswith("ending")]
    assert len(endings) == 4 and loaded["label"][7] == 4
    # What AutoModelForMultipleChoice's loss meets: one score per ending, label 4 is none of them.
    with pytest.raises(IndexError, match="out of bounds"):
        torch.nn.functional.cross_entropy(torch.zeros(1, len(endings)), torch.tensor(loaded["label"][7:8]))
    report = scan_json(labelguard, train)
    assert report["settings"]["num_classes"] == 4
    found = [x for _, x in file_findings(report)]
    assert [(x["code"], x["severity"]) for x in found] == [("LG101", "error")]
    assert found[0]["locations"][0]["index"] == [7]
    # The valid twin: no finding, the four choices counted; a class count given still wins.
    clean = scan_json(labelguard, write_json_lines(tmp_path / "train.json", swag_records()))
    assert codes(clean) == [] and histogram(clean) == {k: 10 for k in range(4)}
    assert codes(scan_json(labelguard, write_json_lines(train, swag_records(stray=4)), "--num-classes", "5")) == []


def ner_records(n=30, stray=None):
    """run_ner.py's `--train_file` records: words and one tag id per word."""
    rows = [
        {"tokens": WORDS[i % 5 : i % 5 + 4], "ner_tags": [(i + k) % 3 for k in range(4)]} for i in range(n)
    ]
    if stray is not None:
        rows[5]["ner_tags"][1] = stray
    return rows


def write_ner(path, rows):
    """JSON Lines as run_ner.py's --train_file, or the Parquet file of a Hub NER dataset."""
    if path.suffix == ".parquet":
        datasets.Dataset.from_list(rows).to_parquet(str(path))
        return path
    return write_json_lines(path, rows)


@pytest.mark.parametrize("suffix", ["json", "parquet"])
def test_word_labels_of_a_token_classification_file_are_read_per_word(labelguard, tmp_path, suffix):
    train = write_ner(tmp_path / f"train.{suffix}", ner_records())
    # The LG613 warning names ner_tags; naming it checks each word's tag (it was 30 LG612
    # errors, one per row, on valid data: a list was read as one unknown label).
    assert codes(scan_json(labelguard, train)) == [("LG613", "warning")]
    clean = scan_json(labelguard, train, "--label-column", "ner_tags")
    assert codes(clean) == [] and histogram(clean) == {0: 40, 1: 40, 2: 40}
    write_ner(train, ner_records(stray=7))
    builder = "parquet" if suffix == "parquet" else "json"
    tags = datasets.load_dataset(builder, data_files={"train": str(train)})["train"]["ner_tags"]
    assert tags[5][1] == 7
    # A token-classification loss over 5 labels refuses the word's tag.
    with pytest.raises(IndexError, match="out of bounds"):
        torch.nn.functional.cross_entropy(torch.zeros(4, 5), torch.tensor(tags[5]))
    report = scan_json(labelguard, train, "--label-column", "ner_tags", "--num-classes", "5")
    found = [x for _, x in file_findings(report)]
    assert [(x["code"], x["severity"]) for x in found] == [("LG101", "error")]
    assert found[0]["locations"][0]["index"] == [5, 1]
    assert "ner_tags[5, 1] = 7" in found[0]["message"]


def test_label_names_that_the_script_numbers_are_a_warning(labelguard, tmp_path):
    rows = [dict(r, label=["negative", "positive"][r["label"]]) for r in sentences()]
    path = write_table(tmp_path / "train.csv", rows)
    labels = datasets.load_dataset("csv", data_files={"train": str(path)})["train"]["label"]
    # run_classification.py's (and run_glue.py's) classes: the sorted distinct names, so every
    # label has an id and nothing reaches the loss out of range.
    label_list = sorted(set(labels))
    assert label_list == ["negative", "positive"]
    assert all(0 <= label_list.index(x) < len(label_list) for x in labels)
    report = scan_json(labelguard, path)
    assert codes(report) == [("LG612", "warning")] and report["summary"]["status"] == "warnings"
    assert report["summary"]["bad_elements"] == 0
    # With a classes file the names are checked: one it lacks is an error.
    classes = tmp_path / "classes.txt"
    classes.write_text("negative\n")
    assert codes(scan_json(labelguard, path, "--classes", str(classes))) == [("LG612", "error")]
    # An empty cell among the names stays an error.
    rows[13]["label"] = ""
    assert codes(scan_json(labelguard, write_table(path, rows))) == [("LG612", "error")]
