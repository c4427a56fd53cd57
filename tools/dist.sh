#!/usr/bin/env bash
# make dist: the wheels a package index accepts, and the sdist, into dist/ (issue 35).
#
#   - manylinux_2_17 x86_64 (manylinux2014): glibc 2.17 is Rust's own floor for the
#     x86_64-unknown-linux-gnu target, and torch's wheels before 2.6 need no more, so
#     labelguard runs wherever the torch it guards runs (CentOS 7-era cluster nodes included).
#     maturin links with zig (`--zig`, the `ziglang` package): no container is needed.
#   - one wheel per CPython for 3.9-3.13 (the full API), and one abi3 wheel (cp312-abi3) that pip
#     takes only where no exact wheel exists (CPython 3.14 and later). abi3 was measured against a
#     per-version build of the same source on CPython 3.12 and 3.13 (make bench-abi3 with these
#     wheels, bench-hot's calls; three runs each, one with the builds' places swapped; load
#     1.4-2.5): enable()'s added per-call cost, summed, was 6.6-8.1% higher with abi3 on 3.12 and
#     5.0-8.2% on 3.13 (ten calls there: its `w[labels]` row is not valid with two builds in one
#     process), up to +15% on one call, and higher on 62 of the 63 call timings. That does not
#     keep the per-call cost within 5% of the per-version build, so the per-version wheels stay
#     where they can be built (docs/guide/install.md).
#   - the sdist (maturin sdist): builds anywhere with Rust >= 1.88.
# Each wheel is then checked with `auditwheel show` (its tag must be the manylinux one).
#
# Interpreters: DIST_PYTHON_3_9 ... DIST_PYTHON_3_13 name them; otherwise `python3.X` on PATH,
# pyenv's, or uv's (`uv python install`, a download, when none is found).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${DIST_BIN:-$root/.venv-dist/bin}
export PATH="$bin:$PATH"
out=$root/dist
target=manylinux2014

interpreter() {
  local v=$1 var="DIST_PYTHON_${1/./_}" p
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  for p in "python$v" "$(pyenv root 2>/dev/null)/versions/$v"*/bin/"python$v"; do
    if "$p" -c 'import sys' 2>/dev/null; then command -v "$p"; return; fi
  done
  uv python find "$v" 2>/dev/null || { uv python install "$v" >&2 && uv python find "$v"; }
}
# tools/test_wheels.sh finds its interpreters with the same function.
[ "${1:-}" = --functions-only ] && return 0

rm -rf "$out"
mkdir -p "$out"
per_version=()
for v in 3.9 3.10 3.11 3.12 3.13; do per_version+=("$(interpreter "$v")"); done
abi3=$(interpreter 3.12)
echo "==> interpreters: ${per_version[*]} (per version), $abi3 (abi3)"

cd python
echo "==> [$(date +%T)] the abi3 wheel (CPython >= 3.14; 3.12 and 3.13 have their own), $target, linked by zig"
maturin build --release --zig --compatibility "$target" --features abi3 --interpreter "$abi3" --out "$out"
echo "==> [$(date +%T)] the per-version wheels (CPython 3.9-3.13)"
maturin build --release --zig --compatibility "$target" --interpreter "${per_version[@]}" --out "$out"
echo "==> [$(date +%T)] the sdist"
maturin sdist --out "$out"
cd "$root"

echo "==> auditwheel show"
for w in "$out"/*.whl; do
  shown=$(auditwheel show "$w")
  echo "$shown"
  # (auditwheel wraps its lines: compared with the whitespace made single spaces)
  tr -s ' \n' '  ' <<<"$shown" | grep -q 'consistent with the following platform tag: "manylinux_2_17_x86_64"' || {
    echo "error: $w is not manylinux_2_17_x86_64" >&2
    exit 1
  }
done
ls -l "$out"
