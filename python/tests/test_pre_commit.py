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


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory):
    """The environment of the pre-commit runs: offline pip reading only the wheel directory, one
    pre-commit cache for the module (the hook's environment is installed once)."""
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-cache")),
        "PIP_NO_INDEX": "1",
        # A file:// URL: pip splits PIP_FIND_LINKS at spaces, and a clone's path may hold one.
        "PIP_FIND_LINKS": wheel_dir().resolve().as_uri(),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "VIRTUALENV_NO_DOWNLOAD": "1",
    }
    env.pop("PYTHONPATH", None)  # the hook must run the labelguard its own environment installed
    return env


def data_repo(path: pathlib.Path, env: dict, hook_lines: str) -> pathlib.Path:
    """A git repository with this repository's hook installed, configured by `hook_lines`."""
    head = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    committed = git(ROOT, "show", f"{head}:.pre-commit-hooks.yaml", check=False)
    assert committed.returncode == 0, "the hook must be committed: pre-commit clones the repository"
    path.mkdir()
    git(path, "init", "-q")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "user.name", "test")
    (path / ".pre-commit-config.yaml").write_text(
        "repos:\n"
        f"  - repo: {json.dumps(str(ROOT))}\n"  # a JSON string is a YAML string: any path
        f"    rev: {head}\n"
        "    hooks:\n"
        "      - id: labelguard-scan\n" + hook_lines
    )
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=path, env=env, check=True, capture_output=True)
    return path


def commit(repo, env, message):
    git(repo, "add", ".")
    out = git(repo, "commit", "-m", message, check=False, env=env)
    return out.returncode, out.stdout + out.stderr


def test_a_commit_adding_a_bad_mask_is_refused_and_a_clean_one_passes(tmp_path, hook_env):
    repo = data_repo(tmp_path / "data-repo", hook_env, "        args: [--num-classes, '3']\n")
    mask(repo / "masks" / "clean.png", bad=False)
    code, out = commit(repo, hook_env, "clean mask")
    assert code == 0 and "labelguard scan" in out and "Passed" in out, out
    installed = list(pathlib.Path(hook_env["PRE_COMMIT_HOME"]).glob("repo*/py_env-*/lib/python*/site-packages/labelguard-*.dist-info"))
    assert installed, "pre-commit's environment has no labelguard wheel installed"

    mask(repo / "masks" / "bad.png", bad=True)
    code, out = commit(repo, hook_env, "bad mask")
    assert code != 0 and "Failed" in out and "LG101" in out and "masks/bad.png" in out, out
    assert git(repo, "rev-list", "--count", "HEAD").stdout.strip() == "1"  # the bad commit was not made

    mask(repo / "masks" / "bad.png", bad=False)  # fixed: the commit goes through
    code, out = commit(repo, hook_env, "fixed mask")
    assert code == 0, out


def test_settings_from_labelguard_toml_and_files_narrowed_to_the_label_folder(tmp_path, hook_env):
    repo = data_repo(tmp_path / "data-repo", hook_env, "        files: ^masks/\n")
    (repo / "labelguard.toml").write_text("num_classes = 3\n")
    photo = (np.arange(16 * 16 * 3) % 251).astype(np.uint8).reshape(16, 16, 3)
    (repo / "images").mkdir()
    Image.fromarray(photo).save(repo / "images" / "photo.png")  # an RGB PNG: a colour mask if scanned
    mask(repo / "masks" / "clean.png", bad=False)
    code, out = commit(repo, hook_env, "photo and mask")
    assert code == 0 and "Passed" in out, out

    mask(repo / "masks" / "bad.png", bad=True)
    code, out = commit(repo, hook_env, "bad mask")
    assert code != 0 and "LG101" in out and "3 classes" in out and "photo.png" not in out, out
