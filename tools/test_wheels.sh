#!/usr/bin/env bash
# make test-dist: every wheel in dist/ installed into fresh venvs of CPython 3.9-3.13 (each
# wheel into every interpreter its tags accept), with cargo and rustc hidden from PATH and no
# package index, then run as a user runs it (tools/smoke_wheel.py: --version, the quick start's
# scan, import labelguard, Ctrl-C mid-scan, and a bad F.cross_entropy refused where torch is at hand).
# Too slow for `make test` (a venv per wheel and interpreter): run it after `make dist`.
#
# TEST_DIST_VERSIONS (default 3.9 3.10 3.11 3.12 3.13) picks the interpreters (the release
# workflow's Alpine containers test one each).
# Interpreters as tools/dist.sh finds them (DIST_PYTHON_3_X, python3.X, pyenv's, uv's).
# Torch: TORCH_SITE_3_X names the site-packages holding torch for CPython 3.X (several joined
# by ':', e.g. with the nvidia libraries' own; nothing is downloaded); without it that interpreter skips the torch check, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${DIST_BIN:-$PWD/.venv-dist/bin}:$PATH"
source tools/dist.sh --functions-only
shopt -s nullglob
wheels=(dist/*.whl)
[ ${#wheels[@]} -gt 0 ] || { echo "no wheels in dist/: run make dist" >&2; exit 1; }
tested=0
versions=(${TEST_DIST_VERSIONS:-3.9 3.10 3.11 3.12 3.13})
for v in "${versions[@]}"; do
  py=$(interpreter "$v")
  tag="cp${v/./}"
  for w in "${wheels[@]}"; do
    case "$w" in
      *-"$tag"-"$tag"-*) ;;
      *-cp312-abi3-*) [ "${v#3.}" -ge 12 ] || continue ;;
      *) continue ;;
    esac
    echo "==> CPython $v ($py): $(basename "$w")"
    site="TORCH_SITE_${v/./_}"
    if [ -n "${!site:-}" ]; then
      "$py" tools/smoke_wheel.py "$w" --python "$py" --torch-site "${!site}"
    else
      echo "  (no TORCH_SITE_${v/./_}: the torch check is skipped for CPython $v)"
      "$py" tools/smoke_wheel.py "$w" --python "$py"
    fi
    tested=$((tested + 1))
  done
done
[ "$tested" -ge ${#versions[@]} ] || { echo "only $tested wheel installs tested for ${versions[*]}: a wheel is missing" >&2; exit 1; }
echo "==> $tested wheel installs tested"
