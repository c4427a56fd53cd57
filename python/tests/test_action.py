"""The GitHub Action (action.yml at the repository root).

action.yml must validate against the published schema of GitHub's action metadata, as
check-jsonschema vendors it (`--builtin-schema vendor.github-actions`), which must also refuse a
broken copy. Its scan step, tools/action/scan.sh, is run here as the runner runs it (its inputs in
the environment, $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY files) against the labelguard binary
under test: annotations on stdout, the SARIF file `labelguard scan --format sarif` writes, the
exit code as an output.
"""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")

ROOT = pathlib.Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"


def validate(path) -> subprocess.CompletedProcess:
    pytest.importorskip("check_jsonschema")
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-actions", str(path)],
        capture_output=True, text=True, timeout=120,
    )


def test_action_yml_validates_against_the_published_schema(tmp_path):
    out = validate(ACTION)
    assert out.returncode == 0, out.stdout + out.stderr
    # The schema is really applied: a composite step that runs a script must name its shell.
    broken = tmp_path / "action.yml"
    broken.write_text(ACTION.read_text().replace("      shell: bash\n", "", 1))
    out = validate(broken)
    assert out.returncode != 0 and "shell" in out.stdout + out.stderr


def test_every_input_the_action_reads_is_declared():
    yaml = pytest.importorskip("yaml")
    action = yaml.safe_load(ACTION.read_text())
    used = set(re.findall(r"inputs\.([a-z-]+)", ACTION.read_text()))
    assert used == set(action["inputs"]), used ^ set(action["inputs"])
    script = (ROOT / "tools" / "action" / "scan.sh").read_text()
    scan = next(s for s in action["runs"]["steps"] if s.get("id") == "scan")
    assert all(f"${{{name}" in script for name in scan["env"]), "the scan step passes variables its script does not read"


def masks(folder: pathlib.Path) -> None:
    folder.mkdir(parents=True)
    for i in range(3):
        a = np.zeros((16, 16), np.uint8)
        a[2:5, 2:5] = 1
        a[9:12, 9:12] = 2
        if i == 1:
            a[8, 8] = 7
        Image.fromarray(a).save(folder / f"m{i}.png")


def run_step(cli, workspace, **inputs):
    env = {
        **os.environ, "LABELGUARD_BIN": cli, "RUNNER_TEMP": str(workspace / "runner-temp"),
        "GITHUB_OUTPUT": str(workspace / "output"), "GITHUB_STEP_SUMMARY": str(workspace / "summary"),
        **inputs,
    }
    return subprocess.run(["bash", str(ROOT / "tools" / "action" / "scan.sh")], cwd=workspace, env=env, capture_output=True, text=True, timeout=120)


def outputs(workspace) -> dict:
    return dict(line.split("=", 1) for line in (workspace / "output").read_text().splitlines())


def test_the_scan_step_annotates_writes_sarif_and_reports_its_exit_code(cli, tmp_path):
    masks(tmp_path / "label masks")
    out = run_step(cli, tmp_path, LABELGUARD_PATHS="'label masks'", LABELGUARD_ARGS="--num-classes 3", LABELGUARD_SARIF="lg.sarif", LABELGUARD_ANNOTATE="true")
    assert out.returncode == 0, out.stderr  # the action fails in its last step, after the upload
    assert outputs(tmp_path)["exit-code"] == "1"
    assert re.search(r"^::error file=label masks/m1\.png,title=LG101 class-id-out-of-range::", out.stdout, re.MULTILINE), out.stdout
    expected = subprocess.run([cli, "scan", "label masks", "--num-classes", "3", "--format", "sarif"], cwd=tmp_path, capture_output=True, text=True)
    assert json.loads((tmp_path / "lg.sarif").read_text()) == json.loads(expected.stdout)
    assert "LG101" in (tmp_path / "summary").read_text()

    clean = run_step(cli, tmp_path, LABELGUARD_PATHS="'label masks'", LABELGUARD_ARGS="--num-classes 8", LABELGUARD_ANNOTATE="false")
    assert clean.returncode == 0 and "::error" not in clean.stdout
    assert outputs(tmp_path)["exit-code"] == "0"


def test_a_scan_that_cannot_run_fails_the_step(cli, tmp_path):
    out = run_step(cli, tmp_path, LABELGUARD_PATHS="missing", LABELGUARD_ARGS="--num-classes 3")
    assert out.returncode == 2
    assert "::error title=labelguard scan::the scan could not run (exit code 2)" in out.stdout
