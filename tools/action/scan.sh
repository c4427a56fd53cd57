#!/usr/bin/env bash
# The scan step of the GitHub Action (action.yml at the repository root). One scan writes the
# JSON report; `labelguard merge` renders it (as `scan` would) as text for the log and the job
# summary, as GitHub annotations, and as SARIF for code scanning. The exit code of the scan
# (0 clean, 1 findings at error level) is an output; the action fails on it in its last step,
# after the SARIF upload. Exit code 2 (usage or I/O) fails this step at once.
#
# Inputs, from the environment: LABELGUARD_PATHS and LABELGUARD_ARGS (shell-like words),
# LABELGUARD_SARIF (the SARIF file), LABELGUARD_ANNOTATE ('true' for annotations),
# LABELGUARD_BIN (the command; default `labelguard`). Outputs go to $GITHUB_OUTPUT and
# $GITHUB_STEP_SUMMARY where they are set.
set -uo pipefail

lg="${LABELGUARD_BIN:-labelguard}"
out_dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/labelguard"
mkdir -p "$out_dir"
report="$out_dir/report.json"
sarif="${LABELGUARD_SARIF:-labelguard.sarif}"

# Shell-like words (quotes allowed), split by Python's shlex: never evaluated by a shell.
words() {
  python3 -c 'import shlex, sys; sys.stdout.write("".join(w + "\0" for w in shlex.split(sys.argv[1])))' "$1"
}
mapfile -d '' paths < <(words "${LABELGUARD_PATHS:-.}")
mapfile -d '' args < <(words "${LABELGUARD_ARGS:-}")

"$lg" scan "${paths[@]}" "${args[@]}" --quiet --format json --output "$report"
code=$?
if [ "$code" -gt 1 ]; then
  echo "::error title=labelguard scan::the scan could not run (exit code $code); see the log above"
  exit "$code"
fi

# The report in another format (merge exits 1 for a report with errors, as scan does).
render() {
  "$lg" merge "$report" "$@"
  local c=$?
  if [ "$c" -gt 1 ]; then
    echo "::error title=labelguard scan::could not render the report ($*): exit code $c"
    exit "$c"
  fi
}

render --format text
if [ "${LABELGUARD_ANNOTATE:-true}" = "true" ]; then
  render --format github
fi
render --format sarif --output "$sarif"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { echo '```'; render --format text; echo '```'; } >> "$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "exit-code=$code"; echo "sarif-file=$sarif"; echo "report=$report"; } >> "$GITHUB_OUTPUT"
fi
exit 0
