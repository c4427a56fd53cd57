"""A PEP 517 build backend for the pre-commit hook's package (the repository root's pyproject.toml).

It builds one wheel, `labelguard_pre_commit`, that holds only its metadata: `Requires-Dist:
labelguard==VERSION`, VERSION read from python/pyproject.toml. pip then installs the prebuilt
labelguard wheel (with the `labelguard` command the hook runs) instead of compiling the Rust
workspace. No build requirement, so `pip install .` needs nothing from the network but labelguard
itself (PEP 517 hooks: build_wheel, get_requires_for_build_wheel; the wheel format of PEP 427).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import zipfile

NAME = "labelguard_pre_commit"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _version() -> str:
    """The project's one version: `[workspace.package]` of the Cargo workspace (the wheel's
    version comes from there too: python/pyproject.toml's is dynamic)."""
    with open(os.path.join(ROOT, "Cargo.toml"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("[workspace.package]", 1)[-1].split("\n[", 1)[0]
    found = re.search(r'^version\s*=\s*"([^"]+)"', section, re.MULTILINE)
    if "[workspace.package]" not in text or not found:
        raise RuntimeError("Cargo.toml's [workspace.package] has no version")
    return found.group(1)


def _files(version: str) -> dict:
    info = f"{NAME}-{version}.dist-info"
    return {
        f"{info}/METADATA": (
            "Metadata-Version: 2.1\n"
            f"Name: {NAME.replace('_', '-')}\n"
            f"Version: {version}\n"
            "Summary: The labelguard pre-commit hook: installs the labelguard wheel of this version.\n"
            f"Requires-Dist: labelguard=={version}\n"
        ),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: labelguard_hook_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    files = {k: v.encode() for k, v in _files(version).items()}
    record = f"{NAME}-{version}.dist-info/RECORD"
    lines = [_record_line(k, v) for k, v in files.items()] + [f"{record},,"]
    files[record] = ("\n".join(lines) + "\n").encode()
    name = f"{NAME}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for k, v in files.items():
            z.writestr(k, v)
    return name
