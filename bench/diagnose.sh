#!/usr/bin/env bash
# Throughput of `labelguard diagnose` on large synthetic logs (see BENCHMARKS.md, section "diagnose").
#
#   bench/diagnose.sh [MB] [RUNS]      (defaults: 1024 MB, 5 runs)
#
# Builds the release binary, writes two logs into bench/out/ (a realistic training log that ends
# in a device-side assert, and a log made only of assertion lines, the slowest path), then times
# `labelguard diagnose --format json` on each, reading from the page cache. Prints every run, the
# median throughput and the peak resident memory.
set -euo pipefail
cd "$(dirname "$0")/.."
MB=${1:-1024}
RUNS=${2:-5}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p labelguard-cli
cargo build --release -q -p labelguard-diagnose --example synth_log
BIN=$CARGO_TARGET_DIR/release/labelguard
GEN=$CARGO_TARGET_DIR/release/examples/synth_log
mkdir -p bench/out
for kind in training dense; do
  log=bench/out/diagnose-$kind-${MB}MB.log
  [ -s "$log" ] || "$GEN" "$log" "$MB" $([ $kind = dense ] && echo dense)
  cat "$log" > /dev/null   # warm the page cache
  bytes=$(stat -c %s "$log")
  times=()
  for _ in $(seq "$RUNS"); do
    start=$(date +%s.%N)
    "$BIN" diagnose --format json "$log" > bench/out/diagnose-$kind.json || true
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  rss=$( { /usr/bin/time -f %M "$BIN" diagnose --format json "$log" > /dev/null; } 2>&1 | tail -1)
  python3 - "$kind" "$bytes" "$rss" "${times[@]}" <<'PY'
import statistics, sys
kind, size, rss, times = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), [float(t) for t in sys.argv[4:]]
med = statistics.median(times)
print(f"{kind:8} {size / 2**20:8.0f} MiB  runs: " + " ".join(f"{t:.2f}s" for t in times)
      + f"  median {med:.2f}s = {size / 1e6 / med:,.0f} MB/s  peak RSS {rss / 1024:.1f} MiB")
PY
done
