"""`labelguard.scan` against the command line: the same input gives the same report.

The truth is `labelguard scan` itself (the binary under test, $LABELGUARD_BIN): its
`--format json` output, its `--html` page and its text report must be what `labelguard.scan`
returns for the same path; a `datasets.Dataset` (saved, loaded, selected, held in memory) and
a `DatasetDict` must give the findings the command gives on the same rows saved to disk; a live
transformers model as `model=` the findings of its saved directory as `--model`.
"""

import html
import os
import pathlib
import re
import subprocess

import pytest

import labelguard
from labelguard._scan import report_of, settings_args

np = pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")



def run_cli(cli, *args, cwd):
    out = subprocess.run([cli, "scan", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert out.returncode in (0, 1), out.stderr
    return out


def masks(folder: pathlib.Path, bad=(1,)) -> pathlib.Path:
    """Three 16x16 PNG masks of classes 0 and 1; in the masks numbered in `bad`, one pixel of class 7."""
    folder.mkdir()
    for i in range(3):
        a = np.zeros((16, 16), np.uint8)
        a[2:5, 2:5] = 1
        if i in bad:
            a[8, 9] = 7
        Image.fromarray(a).save(folder / f"m{i}.png")
    return folder


def codes(report):
    return sorted((f.code, f.path, f.rows) for f in report.findings)


def test_a_path_gives_the_command_lines_json_html_and_text(cli, tmp_path, monkeypatch):
    masks(tmp_path / "masks")
    monkeypatch.chdir(tmp_path)
    out = run_cli(cli, "masks", "--num-classes", "3", "--format", "json", "--html", "page.html", cwd=tmp_path)
    text = run_cli(cli, "masks", "--num-classes", "3", cwd=tmp_path)

    report = labelguard.scan("masks", num_classes=3)

    assert report.to_json() == out.stdout
    page = (tmp_path / "page.html").read_text()
    assert report.to_html() == page
    # In a notebook: the same page, isolated in an iframe so that its styles stay inside it.
    shown = re.fullmatch(r'<iframe [^>]*srcdoc="([^"]*)"></iframe>', report._repr_html_())
    assert shown and html.unescape(shown.group(1)) == page
    assert str(report) == text.stdout
    assert report.ok is (out.returncode == 0) and not report.ok
    bad = [f for f in report.findings if f.severity == "error"]
    assert [(f.code, f.file, f.indices) for f in bad] == [("LG101", "masks/m1.png", ((8, 9),))]
    assert isinstance(report, labelguard.Report)


def test_settings_are_the_config_files_names(cli, tmp_path, monkeypatch):
    masks(tmp_path / "masks", bad=())
    monkeypatch.chdir(tmp_path)
    # Class 2 is never seen (a warning): ok, unless strict; include= narrows the files.
    assert labelguard.scan("masks", num_classes=3).ok
    assert not labelguard.scan("masks", num_classes=3, strict=True).ok
    one = labelguard.scan("masks", num_classes=3, include=["m0.png"])
    assert one.summary["files_scanned"] == 1
    assert one.to_json() == run_cli(cli, "masks", "--num-classes", "3", "--include", "m0.png", "--format", "json", cwd=tmp_path).stdout
    # A bool that is not a switch takes its value; None leaves a setting to the config file.
    assert settings_args(
        {"reduce_zero_label": False, "strict": False, "exclude": ["a", "b"], "palette": pathlib.Path("p.json"), "preset": None}
    ) == ["--reduce-zero-label=false", "--exclude", "a", "--exclude", "b", "--palette", "p.json"]


def test_a_bad_setting_or_path_is_a_clear_error(tmp_path, monkeypatch):
    masks(tmp_path / "masks")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(labelguard.ScanError, match="--num-clases"):
        labelguard.scan("masks", num_clases=3)
    with pytest.raises(labelguard.ScanError, match="invalid value 'many'"):
        labelguard.scan("masks", num_classes="many")
    with pytest.raises(labelguard.ScanError, match="missing"):
        labelguard.scan("missing", num_classes=3)
    with pytest.raises(labelguard.ScanError, match="cannot scan a dict"):
        labelguard.scan({"a": 1})
    torch = pytest.importorskip("torch")
    with pytest.raises(labelguard.ScanError, match="has no config: give num_classes="):
        labelguard.scan("masks", model=torch.nn.Linear(2, 3))


# --- datasets -----------------------------------------------------------------------------

VOCAB = 96


def token_rows():
    """Six rows of token ids; row 2 holds an id beyond a 96-row embedding, row 4 a label beyond it."""
    ids = [[1, 2, 3, 4] for _ in range(6)]
    labels = [[1, 2, 3, -100] for _ in range(6)]
    ids[2][1] = VOCAB + 4
    labels[4][0] = VOCAB
    return {"input_ids": ids, "labels": labels}


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    transformers = pytest.importorskip("transformers")
    cfg = transformers.BertConfig(
        vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32, pad_token_id=0,
    )
    path = tmp_path_factory.mktemp("bert") / "model"
    transformers.BertForMaskedLM(cfg).save_pretrained(path)
    return cfg, path


def token_findings(report):
    """{(code, split): rows} of the token findings (LG80x)."""
    found = {}
    for f in report.findings:
        if f.code.startswith("LG80"):
            found.setdefault((f.code, f.split), set()).update(f.rows)
    return found


def test_a_saved_dataset_reads_in_place_as_the_command_does(cli, bert, tmp_path):
    datasets = pytest.importorskip("datasets")
    _, model_path = bert
    datasets.Dataset.from_dict(token_rows()).save_to_disk(tmp_path / "tok")
    ds = datasets.load_from_disk(str(tmp_path / "tok"))

    report = labelguard.scan(ds, model=str(model_path))
    out = run_cli(cli, tmp_path / "tok", "--model", model_path, "--format", "json", cwd=tmp_path)

    assert report.to_json() == out.stdout
    assert token_findings(report) == {("LG801", "all"): {2}, ("LG802", "all"): {4}}
    # The path reached is the dataset's own folder: nothing was copied.
    assert {f.path for f in report.findings if f.code.startswith("LG80")} == {str(tmp_path / "tok")}


def test_a_dataset_not_tokenized_yet_is_a_warning_not_a_corrupt_file(cli, tmp_path):
    """{text, label} as IMDB and GLUE are published, tokenized later by a collator or a map: not
    corrupt, nothing to check yet, and said (LG817) rather than passed silently; a Trainer's
    callback that stops on errors does not stop on it."""
    datasets = pytest.importorskip("datasets")
    datasets.Dataset.from_dict({"text": ["a b", "c d", "e"], "label": [0, 1, 2]}).save_to_disk(tmp_path / "raw")
    ds = datasets.load_from_disk(str(tmp_path / "raw"))

    report = labelguard.scan(ds)
    out = run_cli(cli, tmp_path / "raw", "--format", "json", cwd=tmp_path)

    assert report.to_json() == out.stdout
    assert out.returncode == 0 and report.ok and not report.raises
    assert [(f.code, f.severity) for f in report.findings] == [("LG817", "warning")]
    assert "no input_ids column (its columns: text, label)" in report.findings[0].message
    assert "not tokenized yet" in report.findings[0].message


def test_a_live_model_is_its_saved_directory(bert, tmp_path):
    datasets = pytest.importorskip("datasets")
    transformers = pytest.importorskip("transformers")
    cfg, model_path = bert
    ds = datasets.Dataset.from_dict(token_rows())
    live = labelguard.scan(ds, model=transformers.BertForMaskedLM(cfg))  # never saved: no `architectures` yet
    saved = labelguard.scan(ds, model=model_path)
    assert token_findings(live) == token_findings(saved) == {("LG801", "all"): {2}, ("LG802", "all"): {4}}
    # A classification head: `label` holds class ids, checked against its num_labels.
    classifier = transformers.BertForSequenceClassification(transformers.BertConfig(
        vocab_size=VOCAB, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32, num_labels=3,
    ))
    rows = datasets.Dataset.from_dict({"input_ids": [[1, 2, 3]] * 4, "label": [0, 1, 5, 2]})
    assert token_findings(labelguard.scan(rows, model=classifier)) == {("LG802", "all"): {2}}


def test_selected_mapped_and_in_memory_datasets_name_their_own_rows(cli, bert, tmp_path):
    """Rows are the dataset's as the user sees it (after select/shuffle), never the cache file's."""
    datasets = pytest.importorskip("datasets")
    _, model_path = bert
    datasets.Dataset.from_dict(token_rows()).save_to_disk(tmp_path / "tok")
    ds = datasets.load_from_disk(str(tmp_path / "tok"))
    picked = ds.select([4, 0, 2])  # an indices mapping over the same file
    assert token_findings(labelguard.scan(picked, model=model_path)) == {("LG802", "all"): {0}, ("LG801", "all"): {2}}
    mapped = ds.map(lambda r: {"input_ids": [min(i, VOCAB - 1) for i in r["input_ids"]]})  # a new cache file
    assert mapped.cache_files and mapped.cache_files[0]["filename"] != ds.cache_files[0]["filename"]
    assert token_findings(labelguard.scan(mapped, model=model_path)) == {("LG802", "all"): {4}}
    renamed = ds.rename_column("labels", "targets")  # in memory only: the file still says `labels`
    assert ("LG802", "all") not in token_findings(labelguard.scan(renamed, model=model_path))
    both = datasets.concatenate_datasets([ds, ds])  # two blocks over one file: rows 0-5 and 6-11
    assert token_findings(labelguard.scan(both, model=model_path)) == {("LG801", "all"): {2, 8}, ("LG802", "all"): {4, 10}}
    memory = datasets.Dataset.from_dict(token_rows())
    assert not memory.cache_files
    assert token_findings(labelguard.scan(memory, model=model_path)) == {("LG801", "all"): {2}, ("LG802", "all"): {4}}
    # The same rows saved to disk, through the command line: the same findings.
    picked.save_to_disk(tmp_path / "picked")
    out = run_cli(cli, tmp_path / "picked", "--model", model_path, "--format", "json", cwd=tmp_path)
    cli_report = report_of(out.stdout, "", "", out.returncode)
    assert token_findings(cli_report) == token_findings(labelguard.scan(picked, model=model_path))


def test_a_dataset_dict_keeps_its_splits(cli, bert, tmp_path):
    datasets = pytest.importorskip("datasets")
    _, model_path = bert
    dd = datasets.DatasetDict({"train": datasets.Dataset.from_dict(token_rows()), "test": datasets.Dataset.from_dict({"input_ids": [[1, 2], [3, 4]]})})
    dd.save_to_disk(tmp_path / "dd")
    loaded = datasets.load_from_disk(str(tmp_path / "dd"))
    report = labelguard.scan(loaded, model=model_path)
    assert report.to_json() == run_cli(cli, tmp_path / "dd", "--model", model_path, "--format", "json", cwd=tmp_path).stdout
    assert token_findings(report) == {("LG801", "train"): {2}, ("LG802", "train"): {4}}
    # Splits from elsewhere (one selected) are linked or saved into one temporary DatasetDict folder.
    mixed = datasets.DatasetDict({"train": loaded["train"].select([5, 4]), "validation": loaded["train"]})
    assert token_findings(labelguard.scan(mixed, model=model_path)) == {
        ("LG802", "train"): {1}, ("LG801", "validation"): {2}, ("LG802", "validation"): {4},
    }


def test_an_iterable_dataset_is_refused_clearly():
    datasets = pytest.importorskip("datasets")
    stream = datasets.Dataset.from_dict(token_rows()).to_iterable_dataset()
    with pytest.raises(labelguard.ScanError, match="IterableDataset has no files"):
        labelguard.scan(stream)


def test_scans_from_several_threads_agree_and_leave_stdout_and_stderr_as_they_were(tmp_path, monkeypatch):
    import concurrent.futures

    masks(tmp_path / "masks")
    monkeypatch.chdir(tmp_path)
    before = [os.fstat(fd) for fd in (1, 2)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        reports = list(pool.map(lambda _: labelguard.scan("masks", num_classes=3).to_json(), range(8)))
    assert len(set(reports)) == 1
    after = [os.fstat(fd) for fd in (1, 2)]
    assert [(s.st_dev, s.st_ino) for s in after] == [(s.st_dev, s.st_ino) for s in before]
