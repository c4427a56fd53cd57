#!/usr/bin/env bash
# Throughput of `labelguard diagnose` on large synthetic logs (see docs/benchmarks-history.md, section "Diagnose").
#
#   bench/diagnose.sh [MB] [RUNS]      (defaults: 1024 MB, 5 runs)
#   BASE_BIN=path/to/labelguard bench/diagnose.sh ...   (also times that binary, run for run
#                                         interleaved with this one, and prints the ratio;
#                                         `make bench-diagnose-compare` builds main's as the base)
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
  bins=("$BIN")
  [ -n "${BASE_BIN:-}" ] && bins+=("$BASE_BIN")
  python3 - "$kind" "$log" "$RUNS" "${bins[@]}" <<'PY'
import os, statistics, subprocess, sys, time
kind, log, runs, bins = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
size = os.path.getsize(log)
times = {b: [] for b in bins}
for _ in range(runs):
    for b in bins:  # interleaved: the machine's load falls on both alike
        with open(f"bench/out/diagnose-{kind}.json", "wb") as out:
            t = time.perf_counter()
            subprocess.run([b, "diagnose", "--format", "json", log], stdout=out)
            times[b].append(time.perf_counter() - t)
med = {}
for b in bins:
    r = subprocess.run(["/usr/bin/time", "-f", "%M", b, "diagnose", "--format", "json", log],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rss = int(r.stderr.strip().splitlines()[-1])
    med[b] = statistics.median(times[b])
    print(f"{kind:8} {size / 2**20:8.0f} MiB  {b}  runs: " + " ".join(f"{t:.2f}s" for t in times[b])
          + f"  median {med[b]:.2f}s = {size / 1e6 / med[b]:,.0f} MB/s  peak RSS {rss / 1024:.1f} MiB")
if len(bins) == 2:
    print(f"{kind:8} median time {bins[0]} / {bins[1]} = {med[bins[0]] / med[bins[1]]:.3f}")
PY
done
