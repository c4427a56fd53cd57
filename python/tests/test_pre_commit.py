"""The `labelguard-scan` hook of .pre-commit-hooks.yaml, run by the real `pre-commit` on a scratch
dataset repository: a commit adding a mask with a class id beyond the class count is refused with
the finding, a clean one goes through.

pre-commit installs the hook as users get it: it clones this repository at its HEAD (committed
files only) and runs `pip install .` at its root, which builds the metadata-only package of
tools/pre-commit/labelguard_hook_backend.py and installs the labelguard wheel it requires. The
test is offline: pip reads only the wheel directory $LABELGUARD_WHEEL_DIR (default target/wheels,
which `make wheel` fills) and no index.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")
pytest.importorskip("pre_commit")

ROOT = pathlib.Path(__file__).resolve().parents[2]


def wheel_dir() -> pathlib.Path:
    d = pathlib.Path(os.environ.get("LABELGUARD_WHEEL_DIR", ROOT / "target" / "wheels"))
    if not list(d.glob("labelguard-*.whl")):
        pytest.skip(f"no labelguard wheel in {d} (`make wheel`, or set LABELGUARD_WHEEL_DIR)")
    return d


def git(repo, *args, check=True, env=None):
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check, env=env, timeout=600)


def mask(path: pathlib.Path, bad: bool) -> None:
    a = np.zeros((16, 16), np.uint8)
    a[2:6, 2:6] = 1
    a[8:12, 8:12] = 2
    if bad:
        a[3, 4] = 7
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(a).save(path)


def test_a_commit_adding_a_bad_mask_is_refused_and_a_clean_one_passes(tmp_path):
    wheels = wheel_dir()
    head = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    committed = git(ROOT, "show", f"{head}:.pre-commit-hooks.yaml", check=False)
    assert committed.returncode == 0, "the hook must be committed: pre-commit clones the repository"
    repo = tmp_path / "data-repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "user.name", "test")
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {json.dumps(str(ROOT))}\n"  # a JSON string is a YAML string: any path
        f"    rev: {head}\n"
        "    hooks:\n"
        "      - id: labelguard-scan\n"
        "        args: [--num-classes, '3']\n"
    )
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "VIRTUALENV_NO_DOWNLOAD": "1",
    }
    env.pop("PYTHONPATH", None)  # the hook must run the labelguard its own environment installed
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env, check=True, capture_output=True)

    mask(repo / "masks" / "clean.png", bad=False)
    git(repo, "add", ".")
    ok = git(repo, "commit", "-m", "clean mask", check=False, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "labelguard scan" in ok.stdout + ok.stderr and "Passed" in ok.stdout + ok.stderr
    installed = list((tmp_path / "pre-commit-cache").glob("repo*/py_env-*/lib/python*/site-packages/labelguard-*.dist-info"))
    assert installed, "pre-commit's environment has no labelguard wheel installed"

    mask(repo / "masks" / "bad.png", bad=True)
    git(repo, "add", ".")
    refused = git(repo, "commit", "-m", "bad mask", check=False, env=env)
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0, out
    assert "Failed" in out and "LG101" in out and "masks/bad.png" in out
    assert git(repo, "rev-list", "--count", "HEAD").stdout.strip() == "1"  # the bad commit was not made

    mask(repo / "masks" / "bad.png", bad=False)  # fixed: the commit goes through
    git(repo, "add", ".")
    fixed = git(repo, "commit", "-m", "fixed mask", check=False, env=env)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
