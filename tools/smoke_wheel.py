"""Installs one labelguard wheel (or the sdist) into a fresh venv and runs it as a user would (issue 35).

    python tools/smoke_wheel.py WHEEL|SDIST [--python PY] [--torch-site DIR | --torch-index URL]

A wheel is installed into a new venv of PY (default: this interpreter) with no cargo or rustc on
PATH and no package index (`--no-index --no-deps`: nothing can be compiled or downloaded). The
sdist (labelguard-X.tar.gz, make test-sdist) is built from source as pip builds it for a user: cargo
must be on PATH, and pip fetches the build backend (maturin) from the index into its isolated build
environment. Then it checks:
  - `labelguard --version` prints the wheel's version (the Cargo workspace's);
  - the quick start's scan (examples/cityscapes-mini --preset cityscapes) exits 1 with its findings;
  - `import labelguard` in the venv's interpreter, `labelguard.__version__` the same version;
  - Ctrl-C mid-scan (SIGINT to the console script scanning 20,000 masks with -o and --html) ends
    it as it ends the binary: by the signal (a shell reports 130), within 2 s, no traceback, no
    output written (tests/python/interrupted.py, as python/tests/test_command.py checks it);
  - with torch (`--torch-site`: site-packages holding torch for PY, joined by os.pathsep, seen
    through a .pth file;
    or `--torch-index`: pip installs torch from that index), enable() refuses a bad
    F.cross_entropy (a target beyond the classes) with labelguard's TargetError.
Used by tools/test_wheels.sh (make test-dist), make test-sdist and the release workflow. Exit 0 when all pass.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
from interrupted import ctrl_c_mid_scan  # noqa: E402 (tests/python, no pytest needed)
BAD_CROSS_ENTROPY = """
import torch, torch.nn.functional as F, labelguard
labelguard.enable()
try:
    F.cross_entropy(torch.randn(4, 10), torch.tensor([1, 2, 10, 3]))
except labelguard.TargetError as e:
    print("refused:", str(e).splitlines()[0])
else:
    raise SystemExit("a target of 10 with 10 classes was not refused")
"""


def path_without_rust() -> str:
    """PATH without the directories that hold cargo or rustc."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    exe = ".exe" if os.name == "nt" else ""
    return os.pathsep.join(d for d in dirs if not any(os.path.exists(os.path.join(d, t + exe)) for t in ("cargo", "rustc")))


def is_sdist(package: pathlib.Path) -> bool:
    return package.name.endswith(".tar.gz")


def package_version(package: pathlib.Path) -> str:
    """labelguard-0.1.0-cp312-...whl and labelguard-0.1.0.tar.gz: 0.1.0."""
    return package.name.removesuffix(".tar.gz").split("-")[1]


def run(args, env, cwd, expect=0):
    t = time.monotonic()
    r = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env, cwd=cwd)
    if r.returncode != expect:
        sys.exit(f"FAILED (exit {r.returncode}, expected {expect}): {' '.join(map(str, args))}\n{r.stdout}{r.stderr}")
    return r.stdout, time.monotonic() - t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("package", type=pathlib.Path, help="a wheel, or the sdist (.tar.gz)")
    ap.add_argument("--python", default=sys.executable)
    torch = ap.add_mutually_exclusive_group()
    torch.add_argument("--torch-site")
    torch.add_argument("--torch-index")
    a = ap.parse_args()
    source = is_sdist(a.package)
    if source:  # built here: the Rust toolchain stays
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        if not shutil.which("cargo", path=env.get("PATH")):
            sys.exit("the sdist builds from source: cargo must be on PATH")
        install = ["--no-deps"]
    else:
        env = {k: v for k, v in os.environ.items() if k not in ("CARGO_HOME", "RUSTUP_HOME", "PYTHONPATH", "VIRTUAL_ENV")}
        env["PATH"] = path_without_rust()
        if shutil.which("cargo", path=env["PATH"]) or shutil.which("rustc", path=env["PATH"]):
            sys.exit("cargo or rustc is still on PATH")
        install = ["--no-index", "--no-deps"]
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    version = package_version(a.package)
    with tempfile.TemporaryDirectory(prefix="labelguard wheel ") as tmp:
        tmp = pathlib.Path(tmp)
        venv = tmp / "venv"
        run([a.python, "-m", "venv", venv], env, tmp)
        bindir = venv / ("Scripts" if os.name == "nt" else "bin")
        py = bindir / "python"
        _, took = run([py, "-m", "pip", "install", "-q", *install, a.package.resolve()], env, tmp)
        print(f"  installed in {took:.1f} s" + (" (built from source)" if source else ""))
        env["PATH"] = str(bindir) + os.pathsep + env["PATH"]
        command = shutil.which("labelguard", path=str(bindir))
        assert command, f"no labelguard command in {bindir}"
        out, _ = run([command, "--version"], env, tmp)
        assert out.strip() == f"labelguard {version}", out
        out, _ = run([command, "scan", ROOT / "examples" / "cityscapes-mini", "--preset", "cityscapes"], env, tmp, expect=1)
        assert "LG105" in out, out
        out, _ = run([py, "-c", "import labelguard; print(labelguard.__version__, labelguard.__file__)"], env, tmp)
        assert out.split()[0] == version and str(venv) in out, out
        print(f"  labelguard {version}: --version, the quick start's scan, import labelguard: ok")
        took = ctrl_c_mid_scan([command], tmp / "ctrl-c", env=env)
        print(f"  Ctrl-C mid-scan: ended by SIGINT (130) {took:.2f} s after it, no traceback, no outputs")
        if a.torch_site or a.torch_index:
            if a.torch_site:
                site = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env, tmp)[0].strip()
                dirs = [str(pathlib.Path(d).resolve()) for d in a.torch_site.split(os.pathsep) if d]
                pathlib.Path(site, "torch_site.pth").write_text("\n".join(dirs) + "\n")
            else:
                run([py, "-m", "pip", "install", "-q", "torch", "--index-url", a.torch_index], env, tmp)
            out, _ = run([py, "-c", BAD_CROSS_ENTROPY], env, tmp)
            print(f"  a bad F.cross_entropy under enable(): {out.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
