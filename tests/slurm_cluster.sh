#!/usr/bin/env bash
# A real, throw-away, single-node Slurm cluster on loopback (Debian's slurm-wlm 22.05 + munge).
#
#   source tests/slurm_cluster.sh; sr_cluster_start [CPUS]; ...sbatch...; sr_cluster_stop
#   tests/slurm_cluster.sh CMD...      starts the cluster, runs CMD in it, stops it (exit = CMD's)
#
# Everything lives in one temporary directory ($SR_CLUSTER_DIR): the munge key, socket and
# pid, slurm.conf, the controller's state, the node's spool and both daemons' logs.  Nothing
# in /etc or /run is touched; the client commands find the cluster through SLURM_CONF.
# cred_expire=10 so a requeued job may start again after 10 s (default 120).
# Only the daemons started here are stopped, by the pids they wrote (trap on EXIT).
# Needs root (slurmd runs jobs as their submitter and must be able to setuid).
# Knobs: SR_CLUSTER_CPUS (default 4: jobs oversubscribe the machine's cores on purpose),
# SR_CLUSTER_KEEP=1 keeps the directory for post-mortems.

sr_cluster_log() { echo "slurm_cluster: $*" >&2; }

sr_cluster_start() {
  local cpus="${1:-${SR_CLUSTER_CPUS:-4}}"
  [ "$(id -u)" -eq 0 ] || { sr_cluster_log "must run as root (slurmd has to start jobs)"; return 77; }
  local b
  for b in munged slurmctld slurmd sbatch scontrol squeue; do
    command -v "$b" > /dev/null || { sr_cluster_log "missing $b (Debian: apt-get install slurm-wlm munge)"; return 77; }
  done
  SR_CLUSTER_DIR=$(mktemp -d /tmp/sr-slurm.XXXXXX)
  chmod 700 "$SR_CLUSTER_DIR"
  local d="$SR_CLUSTER_DIR"
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
  chmod 700 "$d/munge"

  # munge with its own key and socket; --force because /tmp is world-writable (sticky).
  dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$d/munge/munge.key"
  munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.sock" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
    --seed-file="$d/munge/munged.seed" || { sr_cluster_log "munged failed: $(cat "$d/log/munged.log")"; return 1; }
  SR_MUNGED_PID=$(cat "$d/munge/munged.pid")

  # Ports from the pid so two clusters on one machine do not collide.
  local base=$((20000 + ($$ % 2000) * 2))
  local host
  host=$(hostname -s)
  cat > "$d/slurm.conf" <<EOF
ClusterName=srtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.sock,cred_expire=10
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobRequeue=1
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=600
KillWait=30
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  export SLURM_CONF="$d/slurm.conf"
  # The job environment must not point at any outer allocation.
  unset SLURM_JOB_ID SLURM_JOBID SLURM_NODELIST SLURM_NTASKS

  slurmctld -c -f "$SLURM_CONF" || { sr_cluster_log "slurmctld failed"; cat "$d/log/slurmctld.log" >&2; return 1; }
  slurmd -f "$SLURM_CONF" || { sr_cluster_log "slurmd failed"; cat "$d/log/slurmd.log" >&2; return 1; }
  local i
  for i in $(seq 1 60); do
    [ -s "$d/slurmctld.pid" ] && [ -s "$d/slurmd.pid" ] && break
    sleep 0.5
  done
  SR_SLURMCTLD_PID=$(cat "$d/slurmctld.pid" 2> /dev/null)
  SR_SLURMD_PID=$(cat "$d/slurmd.pid" 2> /dev/null)
  for i in $(seq 1 60); do
    if sinfo -h -N -o '%T' 2> /dev/null | grep -qE '^(idle|mixed|allocated)'; then
      sr_cluster_log "up in $d (slurmctld $SR_SLURMCTLD_PID, slurmd $SR_SLURMD_PID, munged $SR_MUNGED_PID, $cpus CPUs)"
      return 0
    fi
    sleep 0.5
  done
  sr_cluster_log "node never became idle"
  sinfo -N >&2
  tail -20 "$d/log/slurmctld.log" "$d/log/slurmd.log" >&2
  return 1
}

# Stops the three daemons this file started (by pid), waits for them, removes the directory.
sr_cluster_stop() {
  [ -n "${SR_CLUSTER_DIR:-}" ] || return 0
  local p steps=""
  # Jobs still in the queue (a failed test) are cancelled first, so no step outlives the
  # daemons; slurmstepd re-parents to init, so its pid is found by the SLURM_CONF it inherited.
  if [ -n "$(squeue -h -o %i 2> /dev/null)" ]; then
    scancel --quiet $(squeue -h -o %i 2> /dev/null) 2> /dev/null || true
    for _ in $(seq 1 60); do [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break; sleep 0.5; done
  fi
  for p in $(pgrep -x slurmstepd 2> /dev/null); do
    { tr '\0' '\n' < "/proc/$p/environ"; } 2> /dev/null | grep -qx "SLURM_CONF=$SR_CLUSTER_DIR/slurm.conf" && steps="$steps $p"
  done
  # ...with everything they started (collected before the kill, while the tree is intact).
  local all="" next
  while [ -n "$steps" ]; do
    all="$all $steps"
    next=""
    for p in $steps; do next="$next $(pgrep -P "$p" 2> /dev/null | tr '\n' ' ')"; done
    steps=$(echo $next)
  done
  for p in $all; do kill -KILL "$p" 2> /dev/null || true; done
  for p in ${SR_SLURMD_PID:-} ${SR_SLURMCTLD_PID:-} ${SR_MUNGED_PID:-}; do
    kill -TERM "$p" 2> /dev/null || true
  done
  for p in ${SR_SLURMD_PID:-} ${SR_SLURMCTLD_PID:-} ${SR_MUNGED_PID:-}; do
    for _ in $(seq 1 40); do kill -0 "$p" 2> /dev/null || break; sleep 0.25; done
    kill -KILL "$p" 2> /dev/null || true
  done
  if [ "${SR_CLUSTER_KEEP:-0}" = 1 ]; then
    sr_cluster_log "kept $SR_CLUSTER_DIR"
  else
    rm -rf "$SR_CLUSTER_DIR"
  fi
  SR_CLUSTER_DIR=""
}

# Waits until every job id given has left the queue (or for at most $SR_WAIT seconds, default
# 300); returns 1 on timeout.
sr_cluster_wait() {
  local limit="${SR_WAIT:-300}" t=0 j st left
  while :; do
    left=0
    for j in "$@"; do
      # an array job has one state per task
      for st in $(sr_job_state "$j"); do
        case "$st" in
          PENDING | RUNNING | CONFIGURING | COMPLETING | REQUEUED | RESIZING | SUSPENDED | REQUEUE_HOLD | REQUEUE_FED) left=1 ;;
        esac
      done
    done
    [ $left = 0 ] && return 0
    [ $t -ge $((limit * 2)) ] && { sr_cluster_log "timeout waiting for jobs $*"; squeue >&2; return 1; }
    sleep 0.5
    t=$((t + 1))
  done
}

# The state of a job (or of every task of an array job, one per line).
sr_job_state() {
  scontrol show job "$1" 2> /dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  trap sr_cluster_stop EXIT
  sr_cluster_start
  "$@"
fi
