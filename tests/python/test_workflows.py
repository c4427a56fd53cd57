"""The GitHub workflows (issue 35: .github/workflows/release.yml builds, tests and publishes the
wheels; ci.yml runs the tests on Linux, macOS and Windows) are valid against the published
workflow schema, as check-jsonschema carries it (`--builtin-schema vendor.github-workflows`:
no download at test time), and say what the release promises.
"""
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"


def validate(*files):
    tool = shutil.which("check-jsonschema", path=str(pathlib.Path(sys.executable).parent)) or shutil.which("check-jsonschema")
    assert tool, "check-jsonschema is not installed (requirements-dev.txt)"
    return subprocess.run([tool, "--builtin-schema", "vendor.github-workflows", *map(str, files)],
                          capture_output=True, text=True)


@pytest.mark.parametrize("name", ["release.yml", "ci.yml"])
def test_the_workflow_validates_against_the_schema(name):
    r = validate(WORKFLOWS / name)
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_invalid_workflow_is_refused(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  build:\n    runs-on: ubuntu-24.04\n    step:\n      - run: echo\n")
    r = validate(bad)
    assert r.returncode != 0 and "bad.yml" in r.stdout + r.stderr, r.stdout + r.stderr


def test_the_release_builds_every_platform_and_publishes_by_trusted_publishing():
    text = (WORKFLOWS / "release.yml").read_text()
    for needed in ["tags:", "ubuntu-24.04-arm", "musllinux_1_2", 'manylinux: "2014"', "macos-15-intel",
                   "macos-latest", "windows-latest", "command: sdist", "--features abi3",
                   "tools/test_wheels.sh", "id-token: write", "pypa/gh-action-pypi-publish"]:
        assert needed in text, needed
    assert "password:" not in text and "PYPI_API_TOKEN" not in text  # no token: trusted publishing
