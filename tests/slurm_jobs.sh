#!/usr/bin/env bash
# The Slurm batch scripts on a real single-node Slurm cluster (tests/slurm_cluster.sh).
#
#   tests/slurm_jobs.sh sweep|requeue|array|scaling SIMREACH_BINARY [OPTIONS_FILE]
#
# Each mode first runs the study directly (mpiexec -n 2) as the reference, then:
#   sweep    sbatch slurm/sweep.sbatch (2 ranks, srun --mpi=pmix) and, the fallback,
#            SR_SRUN_MPI=mpiexec: both files must equal the reference
#   requeue  `scontrol requeue` of a running sweep job (SIGTERM to every rank: they
#            checkpoint, the job restarts with -resume), and USR1 to the batch shell only
#            (`scancel --batch --signal=USR1`, what --signal=B:USR1@120 does): the script
#            forwards it, the study checkpoints, the script requeues itself; both final
#            files must equal the reference, and both jobs must have restarted
#   array    slurm/submit_array.sh 2: two slice tasks and the afterok gather job; the merged
#            file must equal the reference
#   scaling  slurm/scaling.sbatch on a small grid, 1 and 2 ranks: the table has every
#            (mode, ranks, cells, event) row and analysis/report.py --scaling plots it
#   verify   slurm/verify.sbatch (SR_FROM = the reference's run 0) on 16x16 cells, 1 and 2
#            ranks: the table has every (mode, ranks, cells, phase) row, the abstraction file
#            it wrote passes simreach verify -recheck
#   closedloop  slurm/closedloop.sbatch on 2 ranks for an instance whose controller is not ONNX
#            (tora_relu_tanh, the POLAR text): VERIFIED, exit 0, the tubes file written; an
#            unknown SR_BENCH is refused (exit 2) naming the instances.  No reference study.
# "Equal" is dataset by dataset and attribute by attribute, except /runs/wall (wall-clock
# seconds) and the 'options' attribute (it names the -output file); the canonical options are
# compared.  Exit 0 pass, 1 fail, 77 skipped (no root, no Slurm, or simreach without the
# commands the mode needs).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
mode="${1:?usage: slurm_jobs.sh sweep|requeue|array|scaling|verify|closedloop SIMREACH [OPTIONS_FILE]}"
export SIMREACH="${2:?give the simreach binary}"
opts="${3:-$here/data/study_tiny.opts}"
SIMREACH=$(readlink -f "$SIMREACH")
opts=$(readlink -f "$opts")

log() { echo "slurm_jobs[$mode]: $*" >&2; }
fail() { log "FAIL: $*"; for f in "$work"/*.out; do [ -f "$f" ] && { echo "== $f" >&2; cat "$f" >&2; }; done; exit 1; }

study_help=$("$SIMREACH" study -help 2>&1)
if [[ "$study_help" == *"not built yet"* ]]; then
  log "simreach study is not built yet: skipped"
  exit 77
fi
# (captured first: with pipefail, grep -q closing the pipe early would fail the probe)
have_merge=0
gather_help=$("$SIMREACH" gather -help 2>&1)
[[ "$gather_help" == *"-merge"* ]] && have_merge=1

. "$here/slurm_cluster.sh"
work=$(mktemp -d /tmp/sr-slurm-jobs.XXXXXX)
cleanup() {
  sr_cluster_stop
  rm -rf "$work"
}
trap cleanup EXIT
sr_cluster_start 4 || exit $?
cd "$work" || exit 1
export SR_OPTIONS="$opts" SR_SLURM_DIR="$top/slurm"

# compare A.h5 B.h5: equal content (see the header); prints the differences.
compare() {
  /usr/bin/python3 - "$1" "$2" <<'EOF'
import sys, h5py, numpy as np
skip_dsets, skip_attrs = {"/runs/wall"}, {"options"}
bad = []
def attrs(name, a, b):
    for k in sorted(set(a.attrs) | set(b.attrs)):
        if k in skip_attrs: continue
        if k not in a.attrs or k not in b.attrs: bad.append(f"{name}: attribute {k} only in one file"); continue
        x, y = a.attrs[k], b.attrs[k]
        if not np.array_equal(np.asarray(x), np.asarray(y)): bad.append(f"{name}: attribute {k} differs: {x!r} vs {y!r}")
with h5py.File(sys.argv[1], "r") as A, h5py.File(sys.argv[2], "r") as B:
    names = lambda f: (lambda l: (f.visit(l.append), l)[1])([])
    na, nb = set(names(A)), set(names(B))
    for n in sorted(na ^ nb): bad.append(f"/{n} only in one file")
    attrs("/", A, B)
    for n in sorted(na & nb):
        a, b = A[n], B[n]
        attrs("/" + n, a, b)
        if not isinstance(a, h5py.Dataset) or "/" + n in skip_dsets: continue
        x, y = a[()], b[()]
        if x.shape != y.shape: bad.append(f"/{n}: shape {x.shape} vs {y.shape}"); continue
        same = np.array_equal(x, y, equal_nan=True) if x.dtype.kind == "f" else np.array_equal(x, y)
        if not same:
            idx = np.argwhere(~((x == y) | (np.isnan(x) & np.isnan(y))) if x.dtype.kind == "f" else x != y)
            bad.append(f"/{n}: {len(idx)} entries differ, first at {tuple(idx[0])}: {x[tuple(idx[0])]!r} vs {y[tuple(idx[0])]!r}")
for m in bad: print("  " + m)
sys.exit(1 if bad else 0)
EOF
}

mpiflags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpiflags+=(--allow-run-as-root)
if [ "$mode" != closedloop ]; then
  log "reference: mpiexec -n 2 simreach study -options_file $opts"
  mpiexec -n 2 "${mpiflags[@]}" "$SIMREACH" study -options_file "$opts" -output ref.h5 > ref.out 2>&1 || fail "reference study failed: $(cat ref.out)"
fi

# job_field JOB FIELD: one field of scontrol show job.
job_field() { scontrol show job "$1" | grep -o "$2=[^ ]*" | head -1 | cut -d= -f2; }

check_job() { # check_job JOB RESULTS.h5 WHAT
  [ "$(sr_job_state "$1" | sort -u)" = COMPLETED ] || fail "$3: job $1 ended $(sr_job_state "$1" | tr '\n' ' ')"
  compare ref.h5 "$2" || fail "$3: $2 differs from the direct mpiexec result"
  log "ok: $3"
}

# wait_started JOB LOG [LINE]: until the job runs and its log has LINE (default: the study's
# first line, "simreach study: N runs in FILE").
wait_started() {
  local line=${3:-"simreach study: .* runs in"}
  for _ in $(seq 1 480); do
    [ "$(sr_job_state "$1")" = RUNNING ] && grep -q "$line" "$2" 2> /dev/null && return 0
    sleep 0.25
  done
  fail "job $1 never started running (or never printed '$line')"
}
# interrupted LOG: the study did stop on the signal (else the test would prove nothing).
interrupted() {
  grep -Eq "stopped by (a )?signal" "$1" || fail "the study in $1 finished before the signal arrived: the test proves nothing (make its study longer)"
}

case "$mode" in
  sweep)
    j1=$(SR_OUTPUT=pmix.h5 sbatch --parsable -n 2 -o pmix.out "$top/slurm/sweep.sbatch") || fail "sbatch"
    j2=$(SR_OUTPUT=mpiexec.h5 SR_SRUN_MPI=mpiexec sbatch --parsable -n 2 -o mpiexec.out "$top/slurm/sweep.sbatch") || fail "sbatch"
    sr_cluster_wait "$j1" "$j2" || fail "timeout"
    check_job "$j1" pmix.h5 "sweep.sbatch with srun --mpi=pmix"
    check_job "$j2" mpiexec.h5 "sweep.sbatch with SR_SRUN_MPI=mpiexec"
    ;;
  requeue)
    # SIMREACH_TEST_PAUSE=study_checkpoint: a fresh study holds after its first checkpoint until
    # a signal arrives, so the signal lands mid-study however fast the machine; the restarted
    # (-resume) job runs through
    held="holds after its first checkpoint"
    j1=$(SIMREACH_TEST_PAUSE=study_checkpoint SR_OUTPUT=requeue.h5 sbatch --parsable -n 2 -o requeue.out "$top/slurm/sweep.sbatch") || fail "sbatch"
    wait_started "$j1" requeue.out "$held"
    [ -e requeue.h5 ] || fail "no results file while the job runs"
    log "scontrol requeue $j1"
    scontrol requeue "$j1" || fail "scontrol requeue"
    j2=$(SIMREACH_TEST_PAUSE=study_checkpoint SR_OUTPUT=usr1.h5 sbatch --parsable -n 2 -o usr1.out "$top/slurm/sweep.sbatch") || fail "sbatch"
    wait_started "$j2" usr1.out "$held"
    log "USR1 to the batch shell of $j2"
    scancel --batch --signal=USR1 "$j2" || fail "scancel --signal=USR1"
    sr_cluster_wait "$j1" "$j2" || fail "timeout"
    [ "$(job_field "$j1" Restarts)" -ge 1 ] || fail "job $j1 was not restarted"
    [ "$(job_field "$j2" Restarts)" -ge 1 ] || fail "job $j2 did not requeue itself on USR1"
    grep -q -- "-resume" requeue.out || fail "the requeued job $j1 did not resume"
    grep -q "forwarded SIGUSR1" usr1.out || fail "USR1 was not forwarded to the study"
    interrupted requeue.out
    interrupted usr1.out
    check_job "$j1" requeue.h5 "scontrol requeue of a running sweep, then -resume"
    check_job "$j2" usr1.h5 "USR1 (B:) checkpoint, self-requeue, then -resume"
    ;;
  array)
    if [ $have_merge = 1 ]; then
      read -r a g < <(SR_OUTPUT=array.h5 "$top/slurm/submit_array.sh" 2 -n 1) || fail "submit_array.sh"
      sr_cluster_wait "$a" "$g" || fail "timeout"
    else
      log "simreach gather has no -merge yet: checking the slices only, not the gather job"
      a=$(SR_OUTPUT=array.h5 sbatch --parsable --array=0-1 -n 1 "$top/slurm/array.sbatch") || fail "sbatch --array"
      a="${a%%;*}"
      sr_cluster_wait "$a" || fail "timeout"
    fi
    [ "$(sr_job_state "$a" | sort -u)" = COMPLETED ] || fail "array job $a ended $(sr_job_state "$a" | tr '\n' ' ')"
    # Slice i of n holds exactly the runs r = i mod n, each equal to the reference's run r.
    for i in 0 1; do
      /usr/bin/python3 - ref.h5 "array.slice-$i-of-2.h5" "$i" 2 <<'EOF' || fail "slice $i of 2 differs from the reference"
import sys, h5py, numpy as np
i, n = int(sys.argv[3]), int(sys.argv[4])
with h5py.File(sys.argv[1], "r") as A, h5py.File(sys.argv[2], "r") as B:
    R = A["/runs/status"].shape[0]
    done = B["/runs/status"][()] == A["/runs/status"][()]
    assert list(np.flatnonzero(B["/runs/status"][()] != 0)) == [r for r in range(R) if r % n == i], "wrong runs in the slice"
    for k in A["/runs"]:
        if k == "wall": continue
        for r in range(i, R, n):
            x, y = A["/runs/" + k][r], B["/runs/" + k][r]
            same = np.array_equal(x, y, equal_nan=True) if np.asarray(x).dtype.kind == "f" else np.array_equal(x, y)
            assert same, f"/runs/{k} of run {r} differs"
EOF
    done
    log "ok: job array of 2 slices, each slice's runs equal to the reference"
    if [ $have_merge = 1 ]; then
      check_job "$g" array.h5 "job array of 2 slices + afterok gather"
    fi
    ;;
  scaling)
    j=$(SR_OPTIONS="$here/data/abstract_tiny.opts" SR_CELLS=16,16 SR_RANKS="1 2" SR_TABLE=scaling.csv \
      sbatch --parsable -n 2 -o scaling.out "$top/slurm/scaling.sbatch") || fail "sbatch"
    sr_cluster_wait "$j" || fail "timeout"
    [ "$(sr_job_state "$j")" = COMPLETED ] || fail "scaling job $j ended $(sr_job_state "$j")"
    /usr/bin/python3 - scaling.csv <<'EOF' || fail "scaling table: $(cat scaling.csv)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {(m, r, c, e) for m, r, c in (("strong", "1", "16,16"), ("strong", "2", "16,16"), ("weak", "1", "16,16"), ("weak", "2", "16,32"))
        for e in ("SREnclosure", "SRContainment", "summary")}
got = {(x["mode"], x["ranks"], x["cells"], x["event"]) for x in rows}
missing = want - got
assert not missing, f"missing rows {sorted(missing)} in {sorted(got)}"
assert all(float(x["time_max"]) >= float(x["time_mean"]) >= 0 for x in rows), "time_max < time_mean"
EOF
    /usr/bin/python3 "$top/analysis/report.py" ref.h5 -o report --scaling scaling.csv > /dev/null || fail "report.py --scaling"
    [ -s report/scaling.png ] || fail "no scaling figure"
    log "ok: scaling.sbatch table (strong and weak, 1 and 2 ranks) and its figure"
    ;;
  verify)
    j=$(SR_FROM="$work/ref.h5" SR_RUN=0 SR_CELLS=16,16 SR_RANKS="1 2" SR_TABLE=verify.csv SR_OUTPUT=verify.h5 \
      sbatch --parsable -n 2 -o verify.out "$top/slurm/verify.sbatch") || fail "sbatch"
    sr_cluster_wait "$j" || fail "timeout"
    [ "$(sr_job_state "$j")" = COMPLETED ] || fail "verify job $j ended $(sr_job_state "$j")"
    /usr/bin/python3 - verify.csv <<'EOF' || fail "verify table: $(cat verify.csv)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = {(m, r, c, p) for m, r, c in (("strong", "1", "16,16"), ("strong", "2", "16,16"), ("weak", "1", "16,16"), ("weak", "2", "16,32"))
        for p in ("enclosure", "lists", "containment", "write")}
got = {(x["mode"], x["ranks"], x["cells"], x["phase"]) for x in rows}
assert not (want - got), f"missing rows {sorted(want - got)}"
assert all(float(x["time_max"]) >= 0 for x in rows)
EOF
    [ -s verify.h5 ] || fail "no abstraction file written"
    mpiexec -n 2 "${mpiflags[@]}" "$SIMREACH" verify -recheck verify.h5 > recheck.out 2>&1 || fail "re-check of the abstraction file: $(cat recheck.out)"
    log "ok: verify.sbatch table (strong and weak, 1 and 2 ranks), abstraction file written and re-checked"
    ;;
  closedloop)
    j=$(cd "$top" && SR_BENCH=tora_relu_tanh SR_OUTPUT="$work/tubes.h5" sbatch --parsable -n 2 -o "$work/closedloop.out" slurm/closedloop.sbatch) || fail "sbatch"
    sr_cluster_wait "$j" || fail "timeout"
    [ "$(sr_job_state "$j")" = COMPLETED ] || fail "closedloop job $j ended $(sr_job_state "$j")"
    grep -q "VERIFIED" closedloop.out || fail "closedloop.sbatch on tora_relu_tanh did not print VERIFIED"
    [ -s tubes.h5 ] || fail "no tubes file written"
    j=$(cd "$top" && SR_BENCH=no_such_instance sbatch --parsable -n 1 -o "$work/bad.out" slurm/closedloop.sbatch) || fail "sbatch"
    sr_cluster_wait "$j" || fail "timeout"
    grep -q "SR_BENCH=no_such_instance: no .*allowed: .*tora_relu_tanh" bad.out || fail "an unknown SR_BENCH was not refused naming the instances: $(cat bad.out)"
    log "ok: closedloop.sbatch runs a POLAR-text controller (VERIFIED) and refuses an unknown instance"
    ;;
  *) fail "unknown mode $mode (allowed: sweep, requeue, array, scaling, verify, closedloop)" ;;
esac
exit 0
