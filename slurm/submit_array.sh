#!/usr/bin/env bash
# Submits slurm/array.sbatch as an N-task array and slurm/gather.sbatch after it
# (afterok: only if every slice succeeded).  Prints "ARRAY_JOB_ID GATHER_JOB_ID".
#   slurm/submit_array.sh N [sbatch options for both jobs...]
# Environment (SIMREACH, SR_OPTIONS, SR_OUTPUT, SR_SRUN_MPI) is passed on to the jobs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
n="${1:?usage: submit_array.sh N [sbatch options...]}"
shift
export SR_SLURM_DIR="$here" SR_SLICES="$n"
a=$(sbatch --parsable --array="0-$((n - 1))" "$@" "$here/array.sbatch")
a="${a%%;*}"
g=$(sbatch --parsable --dependency="afterok:$a" --kill-on-invalid-dep=yes "$@" "$here/gather.sbatch")
echo "$a ${g%%;*}"
