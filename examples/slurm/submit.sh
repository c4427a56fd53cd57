#!/bin/bash
# Submits a labelguard scan as a Slurm job array of N shards and its merge, which starts when
# every shard has succeeded (afterok). OUT_DIR must be on a filesystem every node sees.
#
#   examples/slurm/submit.sh N OUT_DIR PATH... [labelguard scan options]
#   examples/slurm/submit.sh 64 /shared/lg-run /shared/cityscapes --preset cityscapes
#
# Prints the two job ids; the report is OUT_DIR/report.json (and the merge job's output).
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,8p' "$0" >&2
  exit 2
fi
n=$1
out=$2
shift 2
here=$(dirname "$0")
# --parsable prints "JOBID" or "JOBID;CLUSTER".
array=$(sbatch --parsable --array="1-$n" "$here/scan.sbatch" "$out" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" "$here/merge.sbatch" "$out" "$n")
echo "scan array: $array, merge: ${merge%%;*}"
