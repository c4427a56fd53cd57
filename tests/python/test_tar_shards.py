"""WebDataset tar shards are scanned in place and give the findings of the same files extracted.

The shards are written by the real writers: Python's tarfile in its three formats, GNU tar, and
webdataset's own TarWriter; broken ones (cut short, concatenated with cat, a member named
'../x') are findings on the shard, and what they say about Python's tarfile (the reader
WebDataset uses) is checked against tarfile itself. Brace patterns expand as WebDataset expands
them (the braceexpand package), and `--shard K/N` splits by shard file.
"""

import io
import json
import os
import shutil
import subprocess
import tarfile

import braceexpand
import numpy as np
import pytest
import webdataset
from PIL import Image

from scanning import file_findings, scan_json

NUM_CLASSES = 10


# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def png(ids) -> bytes:
    out = io.BytesIO()
    Image.fromarray(np.asarray(ids, dtype=np.uint8)).save(out, format="PNG")
    return out.getvalue()


def masks():
    """Sixteen 8x8 masks as WebDataset samples (`masks/000003.seg.png`); three hold ids out of
    range (12, 200) or the void 255, the rest are clean."""
    out = {}
    for i in range(16):
        ids = (np.arange(64).reshape(8, 8) + i) % NUM_CLASSES
        if i in (3, 7):
            ids[i % 8, 2] = 12 if i == 3 else 200
        if i == 11:
            ids[0, 0] = 255
        out[f"masks/{i:06d}.seg.png"] = png(ids)
    return out


def extract(files, root):
    for name, data in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)


def halves(files):
    names = sorted(files)
    return [names[: len(names) // 2], names[len(names) // 2 :]]


def write_tarfile(fmt):
    def write(files, shards):
        for n, part in enumerate(halves(files)):
            with tarfile.open(shards / f"train-{n:06d}.tar", "w", format=fmt) as t:
                for name in part:
                    info = tarfile.TarInfo(name)
                    info.size = len(files[name])
                    t.addfile(info, io.BytesIO(files[name]))

    return write


def write_gnu_tar(files, shards):
    src = shards.parent / "gnu-src"
    extract(files, src)
    for n, part in enumerate(halves(files)):
        subprocess.run(["tar", "-C", str(src), "-cf", str(shards / f"train-{n:06d}.tar"), *part], check=True)


def write_webdataset(files, shards):
    for n, part in enumerate(halves(files)):
        with webdataset.TarWriter(str(shards / f"train-{n:06d}.tar")) as w:
            for name in part:
                key, ext = name.split(".", 1)
                w.write({"__key__": key, ext: files[name]})


WRITERS = {
    "tarfile-ustar": write_tarfile(tarfile.USTAR_FORMAT),
    "tarfile-gnu": write_tarfile(tarfile.GNU_FORMAT),
    "tarfile-pax": write_tarfile(tarfile.PAX_FORMAT),
    "gnu-tar": write_gnu_tar,
    "webdataset": write_webdataset,
}


def member(path: str) -> str:
    """A finding's file as a name below its dataset: `shards/x.tar:masks/a.png` and
    `extracted/masks/a.png` are both `masks/a.png`."""
    return path.split(".tar:", 1)[1] if ".tar:" in path else path.split("extracted/", 1)[1]


def findings(report):
    return sorted((member(f["path"]), x["code"], x["message"]) for f, x in file_findings(report))


def dataset(tmp_path, writer="tarfile-pax"):
    files = masks()
    extract(files, tmp_path / "extracted")
    shards = tmp_path / "shards"
    shards.mkdir()
    WRITERS[writer](files, shards)
    return tmp_path / "extracted", shards


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_shards_give_the_findings_of_the_extracted_files(labelguard, tmp_path, writer):
    extracted, shards = dataset(tmp_path, writer)
    args = ["--num-classes", str(NUM_CLASSES)]
    plain = scan_json(labelguard, extracted, *args)
    sharded = scan_json(labelguard, shards, *args)
    assert sharded["summary"]["files_scanned"] == plain["summary"]["files_scanned"] == 16
    assert findings(sharded) == findings(plain)
    codes = {code for _, code, _ in findings(plain)}
    assert "LG101" in codes, findings(plain)
    # The findings name the member inside its shard.
    paths = {f["path"] for f, _ in file_findings(sharded)}
    assert any(p.startswith(f"{shards}/train-000000.tar:masks/") for p in paths), paths
    # One shard given as the argument: its members only.
    one = scan_json(labelguard, shards / "train-000001.tar", *args)
    assert one["summary"]["files_scanned"] == 8
    assert set(findings(one)) <= set(findings(plain))


def test_a_brace_pattern_scans_the_shards_it_names(labelguard, tmp_path):
    extracted, shards = dataset(tmp_path)
    args = ["--num-classes", str(NUM_CLASSES)]
    whole = scan_json(labelguard, shards, *args)
    pattern = f"{shards}/train-{{000000..000001}}.tar"
    assert list(braceexpand.braceexpand(pattern)) == [str(shards / f"train-{n:06d}.tar") for n in (0, 1)]
    by_pattern = scan_json(labelguard, pattern, *args)
    assert findings(by_pattern) == findings(whole)
    assert by_pattern["summary"]["files_scanned"] == 16
    # A list in braces, as webdataset writes them too.
    listed = scan_json(labelguard, f"{shards}/train-{{000001,000000}}.tar", *args)
    assert findings(listed) == findings(whole)

    # A shard of the pattern that does not exist is a finding; the others are scanned.
    gap = scan_json(labelguard, f"{shards}/train-{{000000..000002}}.tar", *args)
    assert gap["summary"]["files_scanned"] == 16 + 1  # the missing shard counts as a file, as a dangling link does
    missing = [(f["path"], x["code"]) for f, x in file_findings(gap) if "000002" in f["path"]]
    assert missing == [(str(shards / "train-000002.tar"), "LG601")], missing

    # None exists: a usage error naming the pattern.
    none = subprocess.run(
        [labelguard, "scan", f"{shards}/val-{{0..3}}.tar", "--no-config", *args],
        capture_output=True, text=True, timeout=120,
    )
    assert none.returncode == 2, none
    assert "val-{0..3}.tar" in none.stderr, none.stderr


def test_shard_k_of_n_splits_by_shard_file_and_merges_to_the_whole(labelguard, tmp_path):
    files = masks()
    shards = tmp_path / "shards"
    shards.mkdir()
    names = sorted(files)
    for n in range(4):
        with tarfile.open(shards / f"train-{n:06d}.tar", "w") as t:
            for name in names[n * 4 : (n + 1) * 4]:
                info = tarfile.TarInfo(name)
                info.size = len(files[name])
                t.addfile(info, io.BytesIO(files[name]))
    args = ["--num-classes", str(NUM_CLASSES)]
    whole = scan_json(labelguard, shards, *args)
    parts = []
    owners = []
    for k in (1, 2, 3):
        out = tmp_path / f"part{k}.json"
        report = scan_json(labelguard, shards, *args, "--shard", f"{k}/3")
        out.write_text(json.dumps(report))
        parts.append(str(out))
        owners.append({f["path"].split(":")[0] for f in report["files"]})
    # Each shard file's members are all in one part.
    for a in range(3):
        for b in range(a + 1, 3):
            assert not owners[a] & owners[b], owners
    merged = subprocess.run([labelguard, "merge", *parts, "--format", "json"], capture_output=True, text=True, timeout=120)
    assert merged.returncode in (0, 1), merged.stderr
    merged = json.loads(merged.stdout)
    assert findings(merged) == findings(whole)
    assert merged["summary"] == whole["summary"]


def stream_members(path):
    """What WebDataset reads of a shard: tarfile in stream mode, as webdataset.tariterators."""
    with open(path, "rb") as f:
        try:
            return [m.name for m in tarfile.open(fileobj=f, mode="r|*") if m.isreg()]
        except tarfile.ReadError:
            return None


def test_broken_shards_are_findings_and_the_rest_is_scanned(labelguard, tmp_path):
    files = masks()
    shards = tmp_path / "shards"
    shards.mkdir()
    write_tarfile(tarfile.PAX_FORMAT)(files, shards)
    good = shards / "train-000000.tar"
    whole = good.read_bytes()

    # Cut short in the middle of a member.
    (shards / "cut.tar").write_bytes(whole[: len(whole) // 2 + 300])
    # Two archives joined with cat: tarfile (WebDataset) stops at the first end-of-archive.
    (shards / "joined.tar").write_bytes(whole + (shards / "train-000001.tar").read_bytes())
    assert len(stream_members(shards / "joined.tar")) == 8
    # A member named to climb out of the extraction directory.
    with tarfile.open(shards / "unsafe.tar", "w") as t:
        data = files["masks/000000.seg.png"]
        for name in ("../escape.seg.png", "masks/ok.seg.png"):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    # A header claiming 10 GB in a file of a few KiB.
    claim = bytearray(whole[:512])
    claim[124:136] = b"\x80" + (10 << 30).to_bytes(11, "big")  # GNU base-256: over 8 GiB
    claim[148:156] = b" " * 8
    claim[148:156] = b"%06o\0 " % sum(claim)
    (shards / "claim.tar").write_bytes(bytes(claim) + whole[512:4096])

    report = scan_json(labelguard, shards, "--num-classes", str(NUM_CLASSES))
    lg617 = sorted((f["path"].replace(f"{shards}/", ""), x["message"]) for f, x in file_findings(report) if x["code"] == "LG617")
    by_shard = {}
    for path, message in lg617:
        by_shard.setdefault(path.split(":")[0], []).append(message)
    assert set(by_shard) == {"cut.tar", "joined.tar", "unsafe.tar", "claim.tar"}, lg617
    assert any("truncated" in m for m in by_shard["cut.tar"]), by_shard
    assert any("another archive starts" in m and "8 member(s)" in m for m in by_shard["joined.tar"]), by_shard
    assert [p for p, _ in lg617 if p.startswith("unsafe.tar")] == ["unsafe.tar:../escape.seg.png"]
    assert any("claims 10737418240 bytes" in m for m in by_shard["claim.tar"]), by_shard
    # Nothing was written outside the shards, and every readable member was scanned.
    assert not (tmp_path / "escape.seg.png").exists()
    assert report["summary"]["files_scanned"] >= 16 + 16 + 1  # the good shards, joined.tar's 16, ok.seg.png


def test_a_compressed_shard_is_reported_as_not_read(labelguard, tmp_path):
    files = masks()
    shards = tmp_path / "shards"
    shards.mkdir()
    with tarfile.open(shards / "train-000000.tar.gz", "w:gz") as t:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    report = scan_json(labelguard, shards, "--num-classes", str(NUM_CLASSES))
    found = [(f["path"], x["code"]) for f, x in file_findings(report)]
    assert found == [(f"{shards}/train-000000.tar.gz", "LG617")], found


@pytest.mark.parametrize("seed", range(10))
def test_samples_in_a_shard_are_what_webdataset_yields(labelguard, tmp_path, seed):
    """The members of a TarWriter shard flow into the webdataset layout as the extracted files do
    (the random samples and the truth of tests/python/test_webdataset.py)."""
    import test_webdataset as wds_truth

    files = wds_truth.random_dataset(seed)
    tar, _ = wds_truth.write(tmp_path, files)
    report = scan_json(labelguard, tar, "--layout", "webdataset", "--num-classes", str(wds_truth.NUM_CLASSES))
    found = {(f["path"].split(".tar:", 1)[1], x["code"]) for f, x in file_findings(report)}
    assert found == wds_truth.expected(tar, files)
