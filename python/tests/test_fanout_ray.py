"""labelguard.fanout on a real Ray cluster started here: a head and a worker node (two `ray start`
processes on this machine, one CPU each), the fan-out connecting by address. One cluster serves
the module (starting one takes 10-20 s on two cores)."""

import json
import subprocess
import sys
import time

import pytest
import ray  # noqa: F401 - requirements-dev.txt: the test fails here without it

from labelguard import fanout
from local_ray import free_port, local_cluster  # tests/python/
from scanning import write_masks_with_errors_in_every_shard

# torch or the libraries of requirements-dev.txt: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    """The address of a two-node Ray cluster on this machine; this process is its driver."""
    with local_cluster(nodes=2, cpus_per_node=1) as address:
        yield address


@pytest.fixture()
def data(tmp_path, monkeypatch):
    """DATA/ with errors in each of 3 shards; the tests run from tmp_path with the relative path DATA."""
    write_masks_with_errors_in_every_shard(tmp_path / "DATA")
    monkeypatch.chdir(tmp_path)
    return tmp_path


SCAN = ["DATA", "--num-classes", "5", "--no-config"]


def _scan(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(fanout.labelguard_command() + ["scan", *args], capture_output=True, timeout=120)


def test_the_merged_report_equals_a_single_machine_scan(cluster, data, capsys):
    single = _scan(*SCAN, "--format", "json")
    assert single.returncode == 1, single.stderr
    # The data holds errors in every shard (else the merge would be tested on empty parts).
    for k in (1, 2, 3):
        part = json.loads(_scan(*SCAN, "--shard", f"{k}/3", "--format", "json").stdout)
        assert part["summary"]["files_with_errors"] >= 1

    rc = fanout.main(["--address", cluster, "--shards", "3", *SCAN, "--format", "json", "-o", "report.json"])
    assert rc == 1  # as the single scan: errors found
    assert (data / "report.json").read_bytes() == single.stdout
    assert capsys.readouterr().err.count(" done on node ") == 3

    # The text report too, and the Python API.
    single_text = _scan(*SCAN)
    assert fanout.main(["--address", cluster, "--shards", "2", *SCAN]) == 1
    assert capsys.readouterr().out == single_text.stdout.decode()
    report = fanout.ray_scan(["DATA"], shards=4, scan_args=SCAN[1:], address=cluster)
    assert report == json.loads(single.stdout)


def test_a_failing_shard_ends_with_a_clear_error(cluster, data, capsys):
    start = time.monotonic()
    rc = fanout.main(["--address", cluster, "--shards", "2", "--retries", "1", "NO_SUCH_DIR", "-o", "report.json"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "failed after 2 attempt(s)" in err and "NO_SUCH_DIR" in err, err
    assert not (data / "report.json").exists()
    assert time.monotonic() - start < 60


def _fake_labelguard(tmp_path, body: str) -> list[str]:
    """A stand-in for the `labelguard` command on the nodes: a Python script (the nodes share this
    machine's filesystem) that logs each run to runs.log ("SHARD PID"), then does `body`, where
    `runs(s)` counts the runs of shard s so far and REAL is the real command."""
    script = tmp_path / "fake_labelguard.py"
    script.write_text(
        "import os, subprocess, sys, time\n"
        f"REAL, LOG = {fanout.labelguard_command()!r}, {str(tmp_path / 'runs.log')!r}\n"
        "def runs(s):\n"
        "    return [line.split()[0] for line in open(LOG)].count(s)\n"
        "shard = sys.argv[sys.argv.index('--shard') + 1]\n"
        "with open(LOG, 'a') as f:\n"
        "    f.write(f'{shard} {os.getpid()}\\n')\n" + body
    )
    return [sys.executable, str(script)]


def _runs(tmp_path) -> list[tuple[str, int]]:
    """(shard, pid) of each run of the fake command, in order."""
    return [(s, int(pid)) for s, pid in map(str.split, (tmp_path / "runs.log").read_text().splitlines())]


def _shards(tmp_path) -> list[str]:
    return [s for s, _ in _runs(tmp_path)]


def test_shards_run_on_both_nodes(cluster, data):
    # Each shard's scan takes over 2 s here, so that the second cannot wait for the first's CPU.
    command = _fake_labelguard(data, "time.sleep(2)\nsys.exit(subprocess.run(REAL + sys.argv[1:]).returncode)\n")
    parts = fanout.scan_shards(SCAN, 2, command=command)
    assert len({p.node for p in parts}) == 2
    assert fanout.merge_parts(parts, ["--format", "json"]).stdout == _scan(*SCAN, "--format", "json").stdout


def test_a_shard_that_fails_once_is_retried_and_the_report_is_whole(cluster, data):
    # Shard 1/2 fails on its first attempt (a node's disk hiccup, say); Ray runs it again.
    command = _fake_labelguard(
        data,
        "if shard == '1/2' and runs('1/2') == 1:\n"
        "    sys.stderr.write('transient failure')\n"
        "    sys.exit(3)\n"
        "sys.exit(subprocess.run(REAL + sys.argv[1:]).returncode)\n",
    )
    parts = fanout.scan_shards(SCAN, 2, retries=1, command=command)
    assert sorted(_shards(data)) == ["1/2", "1/2", "2/2"]
    merged = fanout.merge_parts(parts, ["--format", "json"])
    assert merged.stdout == _scan(*SCAN, "--format", "json").stdout


def test_a_shard_that_keeps_failing_is_tried_a_bounded_number_of_times(cluster, data):
    command = _fake_labelguard(data, "sys.stderr.write('the disk is gone')\nsys.exit(3)\n")
    with pytest.raises(fanout.FanoutError, match=r"shard 1/1 failed after 3 attempt\(s\).*exited 3: the disk is gone"):
        fanout.scan_shards(SCAN, 1, retries=2, command=command)
    assert _shards(data) == ["1/1"] * 3


def test_when_a_shard_fails_the_scans_still_running_are_stopped(cluster, data):
    # Shard 2/2 runs for ten minutes; shard 1/2 fails once 2/2 has started.
    command = _fake_labelguard(
        data,
        "if shard == '2/2':\n"
        "    time.sleep(600)\n"
        "while runs('2/2') == 0:\n"
        "    time.sleep(0.1)\n"
        "sys.exit(3)\n",
    )
    with pytest.raises(fanout.FanoutError, match="shard 1/2 failed"):
        fanout.scan_shards(SCAN, 2, retries=0, task_timeout_s=60, command=command)
    [(_, pid)] = [r for r in _runs(data) if r[0] == "2/2"]
    deadline = time.monotonic() + 30
    while _alive(pid):
        assert time.monotonic() < deadline, "the scan of shard 2/2 still runs after the fan-out gave up"
        time.sleep(0.2)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_a_scan_that_ends_without_a_report_is_a_failure(cluster, data):
    # Exit 1 ("errors found") with no report on stdout: not a part to merge.
    command = _fake_labelguard(data, "sys.exit(1)\n")
    with pytest.raises(fanout.FanoutError, match="exited 1 without a JSON report"):
        fanout.scan_shards(SCAN, 1, retries=0, command=command)


def test_a_shard_past_its_time_limit_is_stopped(cluster, data):
    command = _fake_labelguard(data, "time.sleep(600)\n")
    start = time.monotonic()
    with pytest.raises(fanout.FanoutError, match="ran past 2 s and was stopped"):
        fanout.scan_shards(SCAN, 1, retries=0, task_timeout_s=2, command=command)
    assert time.monotonic() - start < 60


def test_a_cluster_too_small_for_the_tasks_is_refused(cluster, data, capsys):
    assert fanout.main(["--address", cluster, "--jobs", "4", *SCAN]) == 2
    assert "no node of the Ray cluster has 4 CPU(s)" in capsys.readouterr().err


def test_an_address_where_no_cluster_answers_is_an_error_at_once(data):
    # A process of its own (this one is connected to the test's cluster): `python -m labelguard.fanout`.
    out = subprocess.run(
        [sys.executable, "-m", "labelguard.fanout", "--address", f"127.0.0.1:{free_port()}", *SCAN],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert "labelguard-ray: error: cannot reach the Ray cluster at 127.0.0.1:" in out.stderr, out.stderr


def test_output_options_go_to_the_merge_and_the_rest_to_each_scan():
    scan, merge = fanout.split_args(
        ["DATA", "--preset", "cityscapes", "--format=sarif", "-o", "r.sarif", "--html", "r.html", "-q", "--ignore-index", "-100"]
    )
    assert scan == ["DATA", "--preset", "cityscapes", "--ignore-index", "-100"]
    assert merge == ["--format=sarif", "-o", "r.sarif", "--html", "r.html", "-q"]
    with pytest.raises(fanout.FanoutError, match="use --shards N"):
        fanout.scan_shards(["DATA", "--shard", "1/2"])
