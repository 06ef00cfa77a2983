#!/usr/bin/env bash
# kill -9 at several moments of a small study, then -resume: the file is readable after every
# kill and the resumed study ends identical to an uninterrupted one (wall times excluded).
# Then SIGTERM to the ranks and SIGUSR1 to mpiexec: the study writes its checkpoint, exits
# non-zero telling to rerun with -resume, and the rerun (on another rank count) is identical.
# Usage: study_resume.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
# The uninterrupted study, timed: S = start-up until the results file exists (MPI, PETSc, the
# file's creation), W = the work after it.  Kill moments are S + a fraction of W, so they fall
# inside the study however fast or busy the machine is.
t0=$(date +%s.%N)
"$MPIEXEC" -n 2 $MPIEXEC_EXTRA "$SIMREACH" study -options_file "$opts" -output "$dir/ref.h5" > "$dir/ref.log" 2>&1 &
ref=$!
while [ ! -e "$dir/ref.h5" ] && kill -0 "$ref" 2> /dev/null; do sleep 0.01; done
S=$(echo "$(date +%s.%N) - $t0" | bc -l)
wait "$ref" || { cat "$dir/ref.log"; fail "uninterrupted study"; }
W=$(echo "$(date +%s.%N) - $t0 - $S" | bc -l)
echo "uninterrupted study: start-up ${S}s, work ${W}s"
at() { echo "$S + $W * $1" | bc -l | sed 's/^\./0./' | cut -c1-6; }

# kill_after SECONDS ARGS...: start simreach on 2 ranks, kill -9 its ranks and mpiexec after SECONDS
kill_after() {
  local t=$1; shift
  "$MPIEXEC" -n 2 $MPIEXEC_EXTRA "$SIMREACH" "$@" >> "$dir/kill.log" 2>&1 &
  local pid=$!
  sleep "$t"
  local ranks; ranks=$(pgrep -P "$pid")
  for c in $ranks; do kill -9 "$c" 2> /dev/null; done
  kill -9 "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
  # kill -9 is delivered, not yet done: a rank inside a write may take a while to end, and the
  # next -resume must not find it alive holding the lock (a zombie counts as ended)
  for c in $ranks; do
    while [ -e "/proc/$c" ] && ! grep -q '^[0-9]* (.*) [ZX]' "/proc/$c/stat" 2> /dev/null; do sleep 0.05; done
  done
  return 0
}
mid_runs() { "$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); s=f['/runs/status'][()]; r=f['/runs/resume'][()]; print(int(((s!=2)&(r[:,0]>=0)).sum()))" "$1"; }
done_runs() { "$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(int((f['/runs/status'][()]==2).sum()))" "$1"; }

mid=0 tries=0
# six kills, then more (up to 14) until one has hit a run between two of its checkpoints
for frac in 0.1 0.2 0.3 0.15 0.25 0.35 0.1 0.2 0.1 0.3 0.15 0.2 0.1 0.25; do
  [ $tries -ge 6 ] && [ $mid -gt 0 ] && break
  tries=$((tries + 1))
  [ -e "$dir/kill.h5" ] && [ "$(done_runs "$dir/kill.h5")" = "$(done_runs "$dir/ref.h5")" ] && rm -f "$dir/kill.h5" # finished: start over
  t=$(at "$frac")
  kill_after "$t" study -options_file "$opts" -output "$dir/kill.h5" -resume
  if [ -e "$dir/kill.h5" ]; then
    sr_readable "$dir/kill.h5" || fail "results file unreadable after kill -9 at ${t}s"
    m=$(mid_runs "$dir/kill.h5")
    mid=$((mid + m))
    echo "kill -9 after ${t}s: readable, $(done_runs "$dir/kill.h5") runs done, $m killed between checkpoints"
  else
    echo "kill -9 after ${t}s: no results file yet"
  fi
done
[ "$mid" -gt 0 ] || fail "no kill hit a run between its checkpoints: the restart from a checkpoint was not exercised"
sr_run 2 study -options_file "$opts" -output "$dir/kill.h5" -resume > "$dir/kill_final.log" 2>&1 || { cat "$dir/kill_final.log"; fail "final -resume after the kills"; }
sr_compare "$dir/ref.h5" "$dir/kill.h5" || fail "resumed study differs from the uninterrupted one"

# signal_after SECONDS SIGNAL WHO OUTPUT ARGS...: SECONDS after the results file exists; WHO = ranks
# (each rank, like Slurm) or mpiexec (forwarded)
signal_after() {
  local t=$1 sig=$2 who=$3 out=$4; shift 4
  "$MPIEXEC" -n 2 $MPIEXEC_EXTRA "$SIMREACH" study -options_file "$opts" -output "$out" "$@" > "$out.log" 2>&1 &
  local pid=$!
  # from the moment the study has created its file (start-up done, runs under way): a fixed
  # moment measured on the reference run can fall after the end of a faster run
  while [ ! -e "$out" ] && kill -0 "$pid" 2> /dev/null; do sleep 0.01; done
  sleep "$t"
  if [ "$who" = ranks ]; then
    for c in $(pgrep -P "$pid"); do kill -s "$sig" "$c" 2> /dev/null; done
  else
    kill -s "$sig" "$pid"
  fi
  wait "$pid"
}
for cfg in "TERM ranks 1" "USR1 mpiexec 2"; do
  set -- $cfg
  out="$dir/sig$1.h5"
  signal_after "$(echo "$W * 0.2" | bc -l | sed 's/^\./0./' | cut -c1-6)" "$1" "$2" "$out" -cell_ranks "$3"
  rc=$?
  [ $rc -ne 0 ] || fail "SIG$1: the study exited 0 (it must exit non-zero after a signal)"
  grep -q -- "-resume" "$out.log" || { cat "$out.log"; fail "SIG$1: no message saying to rerun with -resume"; }
  sr_readable "$out" || fail "SIG$1: file unreadable after the stop"
  echo "SIG$1 to $2: exit $rc, $(done_runs "$out") runs done, message: $(grep -o 'rerun the same command with -resume' "$out.log" | head -1)"
  sr_run 1 study -options_file "$opts" -output "$out" -resume > "$out.resume.log" 2>&1 || { cat "$out.resume.log"; fail "SIG$1: -resume on 1 rank"; }
  sr_compare "$dir/ref.h5" "$out" || fail "SIG$1: resumed study differs from the uninterrupted one"
done
echo "PASS: kill -9 and signals, then -resume: identical to the uninterrupted study"
