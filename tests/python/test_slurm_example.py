"""examples/slurm/ as far as a machine without Slurm runs it: each array task's script with the
variables Slurm sets, then the merge, give the single-machine report; submit.sh, with a stand-in
`sbatch` on PATH, submits the array and makes the merge depend on it."""

import json
import os
import pathlib
import subprocess

import pytest

from scanning import write_masks_with_errors_in_every_shard

ROOT = pathlib.Path(__file__).resolve().parents[2]
SLURM = ROOT / "examples" / "slurm"
SCAN = ["DATA", "--num-classes", "5", "--no-config"]


@pytest.fixture()
def job(tmp_path, labelguard):
    """tmp_path with DATA/ (errors in each of 3 shards) and bin/labelguard, the command the scripts call."""
    write_masks_with_errors_in_every_shard(tmp_path / "DATA")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "labelguard").symlink_to(labelguard)
    return tmp_path


def _run(job, script, args, **slurm_vars) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env.update(slurm_vars, PATH=f"{job / 'bin'}:{env['PATH']}")
    return subprocess.run(
        ["bash", str(SLURM / script), *args], cwd=job, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("first_id", [0, 1])
def test_the_array_tasks_then_the_merge_give_the_single_machine_report(job, first_id):
    n = 3
    for task_id in range(first_id, first_id + n):
        out = _run(
            job,
            "scan.sbatch",
            ["run", *SCAN],
            SLURM_ARRAY_TASK_ID=str(task_id),
            SLURM_ARRAY_TASK_MIN=str(first_id),
            SLURM_ARRAY_TASK_COUNT=str(n),
            SLURM_CPUS_PER_TASK="1",
        )
        # Errors found is a finished scan: the task succeeds, or the merge (afterok) never runs.
        assert out.returncode == 0, out.stderr
    parts = sorted(p.name for p in (job / "run" / "parts").iterdir())
    assert parts == ["part_1.json", "part_2.json", "part_3.json"]
    assert all(json.loads((job / "run" / "parts" / p).read_text())["summary"]["errors"] >= 1 for p in parts)

    merged = _run(job, "merge.sbatch", ["run", str(n)])
    assert merged.returncode == 1, merged.stderr  # errors found, as the single scan says
    single = subprocess.run(
        [str(job / "bin" / "labelguard"), "scan", *SCAN, "--format", "json"], cwd=job, capture_output=True, text=True
    )
    assert (job / "run" / "report.json").read_text() == single.stdout
    single_text = subprocess.run([str(job / "bin" / "labelguard"), "scan", *SCAN], cwd=job, capture_output=True, text=True)
    assert merged.stdout == single_text.stdout


def test_a_task_whose_scan_cannot_run_fails_and_a_missing_part_stops_the_merge(job):
    out = _run(job, "scan.sbatch", ["run", "NO_SUCH_DIR"], SLURM_ARRAY_TASK_ID="1", SLURM_ARRAY_TASK_COUNT="2")
    assert out.returncode == 2 and "NO_SUCH_DIR" in out.stderr, out.stderr
    ok = _run(job, "scan.sbatch", ["run", *SCAN], SLURM_ARRAY_TASK_ID="0", SLURM_ARRAY_TASK_COUNT="2")
    assert ok.returncode == 0, ok.stderr
    merged = _run(job, "merge.sbatch", ["run", "2"])
    assert merged.returncode == 2 and "part_2.json" in merged.stderr, merged.stderr
    assert not (job / "run" / "report.json").exists()


def test_submit_makes_the_merge_depend_on_the_array(job):
    # A stand-in sbatch: records its arguments, prints a job id as `sbatch --parsable` does.
    log = job / "sbatch.log"
    (job / "bin" / "sbatch").write_text(
        "#!/bin/bash\n"
        f"printf '%s\\0' \"$@\" >> '{log}'; printf '\\n' >> '{log}'\n"
        f"n=$(wc -l < '{log}'); echo \"$((4100 + n));cluster-a\"\n"
    )
    (job / "bin" / "sbatch").chmod(0o755)
    out = _run(job, "submit.sh", ["8", "run", *SCAN])
    assert out.returncode == 0, out.stderr
    calls = [c.split("\0")[:-1] for c in log.read_text().split("\n") if c]
    assert calls == [
        ["--parsable", "--array=1-8", str(SLURM / "scan.sbatch"), "run", *SCAN],
        ["--parsable", "--dependency=afterok:4101", str(SLURM / "merge.sbatch"), "run", "8"],
    ]
    assert out.stdout == "scan array: 4101, merge: 4102\n"
    assert _run(job, "submit.sh", ["8"]).returncode == 2  # usage
