"""The wheel installs and runs without a Rust toolchain (issue 20).

`make wheel` builds target/wheels/labelguard-*.whl (make test builds it before the tests). Here it
is installed into a fresh venv with --no-index --no-deps and a PATH that holds no cargo or rustc,
so nothing can be compiled or downloaded; then the console script `labelguard --version` and
`import labelguard` must work. The version is one declaration, the Cargo workspace's (issue 35):
the wheel's metadata, `labelguard --version` and `labelguard.__version__` all report it.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


# Needs the release wheel that `make wheel` builds: not in `make test-fast` (pytest.ini).
pytestmark = pytest.mark.slow


def wheel() -> pathlib.Path:
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    found = sorted((ROOT / "target" / "wheels").glob(f"labelguard-*-{tag}-*.whl"), key=lambda p: p.stat().st_mtime)
    assert found, "no wheel for this Python in target/wheels: run `make wheel` (make test does)"
    return found[-1]


def workspace_version() -> str:
    return tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]


def test_the_version_is_declared_once_and_the_wheel_metadata_reports_it():
    project = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"], project
    with zipfile.ZipFile(wheel()) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        lines = z.read(meta).decode().splitlines()
    assert f"Version: {workspace_version()}" in lines, lines[:5]


def path_without_rust() -> str:
    """PATH without the directories that hold cargo or rustc (rustup's, ~/.cargo/bin, ...)."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    keep = [d for d in dirs if not any(os.path.exists(os.path.join(d, t)) for t in ("cargo", "rustc"))]
    return os.pathsep.join(keep)


def test_the_wheel_installs_into_a_fresh_venv_without_a_rust_toolchain(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("CARGO_HOME", "RUSTUP_HOME", "PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = path_without_rust()
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    assert shutil.which("cargo", path=env["PATH"]) is None and shutil.which("rustc", path=env["PATH"]) is None
    # The base interpreter, not this test's venv: the new venv sees none of its packages.
    base = getattr(sys, "_base_executable", sys.executable)
    venv = tmp_path / "fresh venv"
    subprocess.run([base, "-m", "venv", str(venv)], check=True, env=env)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-index", "--no-deps", str(wheel())], check=True, env=env)
    env["PATH"] = str(venv / "bin") + os.pathsep + env["PATH"]
    version = subprocess.run(["labelguard", "--version"], capture_output=True, text=True, env=env)
    assert version.returncode == 0, version.stderr
    assert version.stdout == f"labelguard {workspace_version()}\n", version.stdout
    imported = subprocess.run(
        [str(py), "-c", "import labelguard, sys; print(labelguard.__version__, labelguard.__file__)"],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert imported.returncode == 0, imported.stderr
    assert str(venv) in imported.stdout, imported.stdout
    assert imported.stdout.split()[0] == workspace_version(), imported.stdout
    # The wheel's command runs a real subcommand, not only --version.
    rule = subprocess.run(["labelguard", "rule", "LG105"], capture_output=True, text=True, env=env)
    assert rule.returncode == 0 and "labelIds" in rule.stdout, rule.stdout + rule.stderr
    # The Ray fan-out's command is there too, and says what it lacks (Ray is an extra: `labelguard[ray]`).
    fanout = subprocess.run(["labelguard-ray", "DATA"], capture_output=True, text=True, env=env)
    assert fanout.returncode == 2 and "needs Ray: pip install ray" in fanout.stderr, fanout.stderr
