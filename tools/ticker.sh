#!/usr/bin/env bash
# Runs a command and, while it runs, says every 20 s that it still does, so that no build step
# is silent for minutes: cargo prints one line per crate it starts, and the last crate of a
# release build (labelguard-py or the CLI: one codegen unit, LTO) compiles for minutes without
# a word. Usage: tools/ticker.sh WHAT COMMAND [ARGS...]; the exit code is the command's.
set -u
what=$1
shift
"$@" &
pid=$!
start=$(date +%s)
while :; do
  # Checked every second, so the command's end is not waited for.
  for _ in $(seq 20); do
    kill -0 "$pid" 2>/dev/null || break 2
    sleep 1
  done
  echo "    ... $what: still working, $(($(date +%s) - start)) s so far" >&2
done
wait "$pid"
