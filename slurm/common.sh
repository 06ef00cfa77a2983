# Shared by slurm/*.sbatch: locating simreach and launching it with signal forwarding.
# Sourced, never run.  Nothing here is specific to one machine.

sr_log() { echo "$(date +%H:%M:%S) ${0##*/}: $*" >&2; }

# The simreach binary: $SIMREACH, else simreach on PATH, else build/simreach in the submit dir.
sr_locate_simreach() {
  local c
  for c in "${SIMREACH:-}" "$(command -v simreach 2> /dev/null)" "${SLURM_SUBMIT_DIR:-.}/build/simreach"; do
    if [ -n "$c" ] && [ -x "$c" ]; then
      echo "$c"
      return 0
    fi
  done
  sr_log "no simreach binary: set SIMREACH=/path/to/simreach, put it on PATH or build it in ${SLURM_SUBMIT_DIR:-.}/build"
  return 1
}

# sr_launch EXE ARGS...: the MPI launch of one job step, in the background, with USR1 and TERM
# forwarded to it (with #SBATCH --signal=B:..., only the batch shell receives the signal, and
# srun passes what it receives on to every task).  Returns the step's exit code; sets
# SR_SIGNALLED to the last signal forwarded (empty if none).
SR_SIGNALLED=""
SR_CHILD=""
sr_forward_Private() {
  SR_SIGNALLED=$1
  [ -n "$SR_CHILD" ] && kill -"$1" "$SR_CHILD" 2> /dev/null
  sr_log "forwarded SIG$1 to the job step (pid $SR_CHILD)"
}
sr_launch() {
  local mpi="${SR_SRUN_MPI:-pmix}" ntasks="${SR_NTASKS:-${SLURM_NTASKS:-1}}"
  trap 'sr_forward_Private USR1' USR1
  trap 'sr_forward_Private TERM' TERM
  if [ "$mpi" = mpiexec ]; then
    # Open MPI's mpiexec reads the allocation from the SLURM_* environment.
    local extra=()
    [ "$(id -u)" -eq 0 ] && extra+=(--allow-run-as-root)
    mpiexec -n "$ntasks" "${extra[@]}" "$@" &
  else
    srun --mpi="$mpi" -n "$ntasks" --kill-on-bad-exit=0 "$@" &
  fi
  SR_CHILD=$!
  # wait returns early whenever a trapped signal arrives: keep waiting for the step itself.
  while kill -0 "$SR_CHILD" 2> /dev/null; do
    wait "$SR_CHILD"
  done
  wait "$SR_CHILD"
  local rc=$?
  trap - USR1 TERM
  SR_CHILD=""
  return $rc
}

# sr_slice_file RESULTS.h5 I N: the file slice I of N is written to.
sr_slice_file() {
  echo "${1%.h5}.slice-$2-of-$3.h5"
}
