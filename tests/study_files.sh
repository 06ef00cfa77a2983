#!/usr/bin/env bash
# The results file as a flaky cluster and a hostile user meet it (issue #13, SPEC §13):
#   - a bit flipped in a row is seen by its checksum: gather names file, run and row and says
#     UNFINISHED (exit 3); -resume reruns that run from its last good checkpoint and ends
#     bit-identical to the untouched file; a damaged resume index (the "slot 5" case) likewise;
#   - another format version is refused by name; a flipped dimension of /runs/checkpoints is
#     refused (exit 2), not trusted; gather on an unfinished study says UNFINISHED (exit 3);
#   - one study per file: a second study (with or without -force) is refused while the first
#     runs, naming the file and the owner; the first ends normally and removes its lock; stale
#     locks (dead process on this host, not refreshed, same Slurm job) are taken over;
#   - SIGTERM during start-up exits 83 with the -resume hint.
# Usage: study_files.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
ref="$dir/ref.h5"
sr_run 2 study -options_file "$opts" -output "$ref" > "$dir/ref.log" 2>&1 || { cat "$dir/ref.log"; fail "the reference study"; }
[ -e "$ref.lock" ] && fail "the finished study left its lock file"
sr_run 1 gather "$ref" > "$dir/ref.gather.log" 2>&1 || { cat "$dir/ref.gather.log"; fail "gather of a finished study"; }
grep -q UNFINISHED "$dir/ref.gather.log" && fail "a finished study reads UNFINISHED"

# gather_rc FILE EXPECTED_RC: simreach gather FILE exits EXPECTED_RC; its log is FILE.gather.log
gather_rc() {
  sr_run 1 gather "$1" > "$1.gather.log" 2>&1
  local rc=$?
  [ $rc -eq "$2" ] || { cat "$1.gather.log"; fail "gather $1: exit $rc, expected $2"; }
}

# 1. a flipped bit in checkpoint row 2 of run 3
cp "$ref" "$dir/flip.h5"
"$PY" -c "
import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], 'r+'); d = f['/runs/checkpoints']; row = d[3, 2, :]
row.view(np.uint64)[4] ^= np.uint64(1 << 40); d[3, 2, :] = row" "$dir/flip.h5" || fail "h5py"
gather_rc "$dir/flip.h5" 3
grep -q "warning: .*flip.h5: run 3 (beta .*): /runs/checkpoints row 2 fails its checksum" "$dir/flip.h5.gather.log" || { cat "$dir/flip.h5.gather.log"; fail "flipped bit: no warning naming file, run and row"; }
grep -q "UNFINISHED.*PARTIAL" "$dir/flip.h5.gather.log" || { cat "$dir/flip.h5.gather.log"; fail "flipped bit: gather does not say UNFINISHED / PARTIAL"; }
sr_run 2 study -options_file "$opts" -output "$dir/flip.h5" -resume > "$dir/flip.resume.log" 2>&1 || { cat "$dir/flip.resume.log"; fail "-resume of the flipped file"; }
grep -q "flip.h5: run 3 .*row 2 fails its checksum" "$dir/flip.resume.log" || { cat "$dir/flip.resume.log"; fail "-resume: no warning naming file, run and row"; }
grep -q "1 to do" "$dir/flip.resume.log" || { cat "$dir/flip.resume.log"; fail "-resume did not rerun exactly the damaged run"; }
sr_compare "$ref" "$dir/flip.h5" || fail "the repaired file differs from the untouched one"
echo "ok: flipped bit in a row -> warning naming file, run and row; gather exit 3 UNFINISHED; -resume reran 1 run, bit-identical"

# 2. a damaged resume index (slot 5) of run 5
cp "$ref" "$dir/slot.h5"
"$PY" -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r+'); f['/runs/resume'][5] = [3, 5]" "$dir/slot.h5" || fail "h5py"
gather_rc "$dir/slot.h5" 3
grep -q "slot.h5: run 5 .*/runs/resume row 5 fails its checksum" "$dir/slot.h5.gather.log" || { cat "$dir/slot.h5.gather.log"; fail "damaged resume index: no warning"; }
sr_run 1 study -options_file "$opts" -output "$dir/slot.h5" -resume > "$dir/slot.resume.log" 2>&1 || { cat "$dir/slot.resume.log"; fail "-resume with a damaged resume index"; }
sr_compare "$ref" "$dir/slot.h5" || fail "damaged resume index: the resumed file differs"
echo "ok: resume index (3, 5) -> warning, -resume repairs it, bit-identical"

# 3. another format version is refused by name, the file untouched
cp "$ref" "$dir/v1.h5"
"$PY" -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r+'); f.attrs['simreach_format'] = 'simreach-results-1'" "$dir/v1.h5" || fail "h5py"
sumv=$(md5sum < "$dir/v1.h5")
gather_rc "$dir/v1.h5" 2
grep -q "v1.h5 has results format version 1 (simreach-results-1).*reads version 3" "$dir/v1.h5.gather.log" || { cat "$dir/v1.h5.gather.log"; fail "version 1: not refused by name"; }
sr_run 1 study -options_file "$opts" -output "$dir/v1.h5" -resume > "$dir/v1.resume.log" 2>&1 && fail "-resume accepted format version 1"
[ "$(md5sum < "$dir/v1.h5")" = "$sumv" ] || fail "version 1 file was modified"
echo "ok: format version 1 refused by name (gather and -resume), file untouched"

# 4. a flipped bit in a dimension of /runs/checkpoints (nrows n -> n ^ 16) is refused
cp "$ref" "$dir/dims.h5"
"$PY" - "$dir/dims.h5" <<'PYEOF' || fail "could not flip the dimension"
import h5py, struct, sys
with h5py.File(sys.argv[1], "r") as f:
    dims = f["/runs/checkpoints"].shape
data = bytearray(open(sys.argv[1], "rb").read())
pat = struct.pack("<3Q", *dims)
assert data.count(pat) >= 1, "dimension record not found"
i = data.index(pat)
data[i:i + 24] = struct.pack("<3Q", dims[0], dims[1] ^ 16, dims[2])
open(sys.argv[1], "wb").write(bytes(data))
PYEOF
gather_rc "$dir/dims.h5" 2
grep -q "dims.h5: /runs/checkpoints has shape .*layout record of the file says" "$dir/dims.h5.gather.log" || { cat "$dir/dims.h5.gather.log"; fail "flipped dimension: no refusal naming file and dataset"; }
grep -q "Criterion" "$dir/dims.h5.gather.log" && fail "flipped dimension: a verdict was printed"
echo "ok: flipped dimension of /runs/checkpoints -> refused, exit 2: $(grep -o 'dims.h5: /runs/checkpoints.\{0,60\}' "$dir/dims.h5.gather.log" | head -1)"

# 5. gather on an unfinished study (one grid slice of two)
sr_run 1 study -options_file "$opts" -output "$dir/half.h5" -grid_slice 0/2 > "$dir/half.log" 2>&1 || { cat "$dir/half.log"; fail "slice study"; }
gather_rc "$dir/half.h5" 3
grep -q "half.h5 is UNFINISHED: 4 of 8 runs are not finished.*PARTIAL" "$dir/half.h5.gather.log" || { cat "$dir/half.h5.gather.log"; fail "unfinished study: gather does not say so"; }
echo "ok: gather on an unfinished study -> exit 3, UNFINISHED, verdict labelled PARTIAL"

# 6. one study per file: the first one runs long — minutes, whatever the machine: many short
#    checkpoint intervals, so SIGUSR1 after the checks stops it at the next one
"$MPIEXEC" -n 2 $MPIEXEC_EXTRA "$SIMREACH" study -options_file "$opts" -epochs 50000 -checkpoints 500 -output "$dir/busy.h5" > "$dir/busy.log" 2>&1 &
first=$!
for _ in $(seq 1200); do grep -q "runs in" "$dir/busy.log" 2> /dev/null && break; sleep 0.05; done
[ -e "$dir/busy.h5.lock" ] || { cat "$dir/busy.log"; fail "the running study has no lock file"; }
for extra in "-force" "-resume"; do
  sr_run 1 study -options_file "$opts" -epochs 50000 -checkpoints 500 -output "$dir/busy.h5" $extra > "$dir/second$extra.log" 2>&1
  rc=$?
  [ $rc -eq 2 ] || { cat "$dir/second$extra.log"; fail "second study ($extra) while the first runs: exit $rc, expected 2"; }
  grep -q "busy.h5 is in use by another simreach (host $(hostname), pid [0-9]*" "$dir/second$extra.log" || { cat "$dir/second$extra.log"; fail "second study ($extra): no message naming the file and the owner"; }
done
kill -USR1 $first
wait $first
rc=$?
[ $rc -eq 83 ] || { cat "$dir/busy.log"; fail "the first study, stopped by SIGUSR1: exit $rc, expected 83"; }
[ -e "$dir/busy.h5.lock" ] && fail "the stopped study left its lock"
sr_readable "$dir/busy.h5" || fail "the first study's file is unreadable"
grep -q "^simreach: .*-resume" "$dir/busy.log" || { cat "$dir/busy.log"; fail "the first study: no -resume hint"; }
echo "ok: second study (-force, -resume) refused while the first ran: $(grep -o 'busy.h5 is in use.\{0,50\}' "$dir/second-force.log")"

# stale locks are taken over: process gone on this host, not refreshed for long, this same Slurm job
lock() { printf 'simreach-lock 1\nhost %s\npid %s\nslurm_job %s\nrefreshed %020d\nfile x\n' "$1" "$2" "$3" "$4" > "$dir/stale.h5.lock"; }
cp "$ref" "$dir/stale.h5"
sleep 0 & dead=$!; wait $dead
lock "$(hostname)" "$dead" - "$(date +%s)"
sr_run 1 study -options_file "$opts" -output "$dir/stale.h5" -resume > "$dir/stale1.log" 2>&1 || { cat "$dir/stale1.log"; fail "lock of a dead process not taken over"; }
grep -q "taking over the stale lock.*process $dead on $(hostname) is gone" "$dir/stale1.log" || { cat "$dir/stale1.log"; fail "no message on the dead owner"; }
# a killed owner whose parent died too stays a zombie until reaped: it holds nothing
bash -c 'sleep 0 & exec sleep 30' & zparent=$!
zombie=""
for _ in $(seq 100); do zombie=$(pgrep -P "$zparent" || true); [ -n "$zombie" ] && grep -q '^[0-9]* (.*) Z' "/proc/$zombie/stat" 2> /dev/null && break; sleep 0.05; done
grep -q '^[0-9]* (.*) Z' "/proc/$zombie/stat" 2> /dev/null || fail "could not make a zombie process for the lock test"
lock "$(hostname)" "$zombie" - "$(date +%s)"
sr_run 1 study -options_file "$opts" -output "$dir/stale.h5" -resume > "$dir/stale0.log" 2>&1 || { cat "$dir/stale0.log"; fail "lock of a zombie (killed) process not taken over"; }
grep -q "taking over the stale lock.*process $zombie on $(hostname) is gone" "$dir/stale0.log" || { cat "$dir/stale0.log"; fail "no message on the zombie owner"; }
kill "$zparent" 2> /dev/null; wait "$zparent" 2> /dev/null
lock otherhost.example 4242 - 1000
sr_run 1 study -options_file "$opts" -output "$dir/stale.h5" -resume > "$dir/stale2.log" 2>&1 || { cat "$dir/stale2.log"; fail "old lock not taken over"; }
grep -q "taking over the stale lock.*not refreshed for" "$dir/stale2.log" || { cat "$dir/stale2.log"; fail "no message on the old lock"; }
lock otherhost.example 4242 4711 "$(date +%s)"
"$MPIEXEC" -n 1 $MPIEXEC_EXTRA env SLURM_JOB_ID=4711 "$SIMREACH" study -options_file "$opts" -output "$dir/stale.h5" -resume > "$dir/stale3.log" 2>&1 || { cat "$dir/stale3.log"; fail "lock of this same Slurm job (a requeue) not taken over"; }
grep -q "taking over the stale lock.*this same Slurm job 4711" "$dir/stale3.log" || { cat "$dir/stale3.log"; fail "no message on the requeue"; }
[ -e "$dir/stale.h5.lock" ] && fail "a lock was left"
echo "ok: stale locks taken over (dead or zombie process on this host, not refreshed for 10 min, same Slurm job)"

# 7. SIGTERM during start-up: exit 83 and the -resume hint.  The signal is sent as soon as the
# rank catches SIGTERM (SigCgt in /proc), which simreach study does from the start of main,
# before MPI and PETSc start up.
"$MPIEXEC" -n 1 $MPIEXEC_EXTRA "$SIMREACH" study -options_file "$opts" -output "$dir/term.h5" > "$dir/term.log" 2>&1 &
pid=$!
child="" sent=0
for _ in $(seq 2000); do
  [ -z "$child" ] && child=$(pgrep -P "$pid" -f simreach | head -1)
  if [ -n "$child" ] && [ -r "/proc/$child/status" ]; then
    cgt=$(awk '/^SigCgt/ {print $2}' "/proc/$child/status")
    if [ -n "$cgt" ] && (( (16#$cgt >> 14) & 1 )); then kill -TERM "$child" && sent=1; break; fi
  fi
  sleep 0.005
done
[ $sent -eq 1 ] || fail "could not signal the study while it started"
wait "$pid"
rc=$?
[ $rc -eq 83 ] || { cat "$dir/term.log"; fail "SIGTERM during start-up: exit $rc, expected 83"; }
grep -q "stopped by signal 15 (SIGTERM) during start-up.*-resume" "$dir/term.log" || { cat "$dir/term.log"; fail "SIGTERM during start-up: no message with the -resume hint"; }
[ -e "$dir/term.h5" ] && fail "the study stopped in start-up created its results file"
[ -e "$dir/term.h5.lock" ] && fail "the stopped study left its lock"
echo "ok: SIGTERM during start-up -> exit 83: $(grep -o 'stopped by signal.*' "$dir/term.log" | head -1 | cut -c1-100)"
echo "PASS: checksums, versions, shapes, unfinished studies, one writer per file, stale locks, SIGTERM in start-up"
