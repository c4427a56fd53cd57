#!/usr/bin/env bash
# make bench-abi3: enable()'s per-call cost (bench/hot_calls.py, what make bench-hot times) with
# the abi3 wheel against a per-version wheel of the same source, side by side in one run
# (interleaved rounds, one process), on CPython 3.12 and 3.13: the measurement that decides
# whether the release ships abi3 for 3.12+ (issue 35; tools/dist.sh).
#
#   BENCH_PY_3_12=/venv312/bin/python BENCH_PY_3_13=/venv313/bin/python make bench-abi3
#
# Each BENCH_PY names an interpreter that has torch; BENCH_VERSIONS (default "3.12 3.13") picks them.
# On CPython 3.13 the `w[labels]` row is not valid: after some 40 enable()/disable() pairs
# torch.Tensor gets no type version any more (3.13 caps a class's versions), and `x[key]` then
# keeps calling the labelguard `__getitem__` wrapper cached before, so the other build's enabled
# mode costs nothing on that row (and plain a little more): leave it out of both sums there.
# Both wheels are dist/'s (make dist); a per-version wheel missing there is built into
# bench/out/abi3/ (a release build each).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${DIST_BIN:-$PWD/.venv-dist/bin}:$PATH"
source tools/dist.sh --functions-only
out=bench/out/abi3
mkdir -p "$out"
shopt -s nullglob
abi3=(dist/labelguard-*-cp312-abi3-*.whl)
[ ${#abi3[@]} -eq 1 ] || { echo "one abi3 wheel expected in dist/: run make dist" >&2; exit 1; }
for v in ${BENCH_VERSIONS:-3.12 3.13}; do
  var="BENCH_PY_${v/./_}"
  py=${!var:?$var: an interpreter with torch for CPython $v}
  tag="cp${v/./}"
  # make dist's own per-version wheel (the one shipped for this CPython), else one built here
  per=(dist/labelguard-*-"$tag"-"$tag"-*.whl "$out"/labelguard-*-"$tag"-"$tag"-*.whl)
  if [ ${#per[@]} -eq 0 ]; then
    (cd python && maturin build --release --zig --compatibility manylinux2014 --interpreter "$(interpreter "$v")" --out "../$out")
    per=("$out"/labelguard-*-"$tag"-"$tag"-*.whl)
  fi
  rm -rf "$out/$v" && mkdir -p "$out/$v/abi3" "$out/$v/per-version"
  "$py" -m zipfile -e "${abi3[0]}" "$out/$v/abi3"
  "$py" -m zipfile -e "${per[0]}" "$out/$v/per-version"
  echo "==> CPython $v: 'enabled' is the abi3 wheel, 'baseline' the $tag wheel"
  PYTHONPATH="$out/$v/abi3" "$py" bench/hot_calls.py --baseline "$out/$v/per-version" --out "$out/hot-$v.json"
done
