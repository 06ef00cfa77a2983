#!/usr/bin/env bash
# SIGTERM and SIGINT delivered to mpiexec during a study on 2 ranks (issue 22 item 6, SPEC §9):
# Open MPI's mpiexec sends SIGTERM to every rank (for SIGINT too), and SIGKILL
# odls_base_sigkill_timeout seconds later (1 s by default; docs/files.md says to raise it).  Every
# rank then finishes its checkpoint and ends with exit 83 and the -resume hint (the message is
# printed only on that path), the lock is released, and -resume completes the study (that
# resumes are bit-identical is tests/study_resume.sh's).  mpiexec's own exit status is Open MPI's: Open MPI 4.1
# exits 1 whenever it was signalled, whatever its processes return (SIGUSR1, which it forwards,
# gives 83: tests/study_files.sh); a single process stopped by SIGINT exits 83 itself.
# Usage: study_signals.sh OPTIONS_FILE WORKDIR   (environment: see study_common.sh)
. "$(dirname "$0")/study_common.sh"
opts=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
# one run of many short checkpoint intervals; SIMREACH_TEST_PAUSE=study_checkpoint holds the
# study after its first checkpoint until the signal arrives (the line it prints says when), so
# the signal lands mid-study however fast the machine (a fresh study only: -resume runs through)
L=(-epochs 400 -checkpoints 80)
# wait_held LOG JOB: until the study says it holds
wait_held() {
  for _ in $(seq 1200); do grep -q "holds after its first checkpoint" "$1" && return 0; kill -0 "$2" 2> /dev/null || break; sleep 0.05; done
  kill -9 "$2" 2> /dev/null; cat "$1"; fail "the study never reached its first checkpoint"
}
# Open MPI 4.1's mpiexec, signalled, sends SIGCONT, then SIGTERM after odls_base_sigkill_timeout
# seconds, then SIGKILL after as many again: 2 s here (docs/files.md)
export OMPI_MCA_odls_base_sigkill_timeout=2
for sig in TERM INT; do
  out="$dir/$sig.h5" log="$dir/$sig.log"
  SIMREACH_TEST_PAUSE=study_checkpoint "$MPIEXEC" -n 2 $MPIEXEC_EXTRA "$SIMREACH" study -options_file "$opts" "${L[@]}" -output "$out" -grid_slice 0/8 > "$log" 2>&1 &
  job=$!
  wait_held "$log" $job
  kill -$sig $job
  wait $job
  rc=$?
  [ $rc -ne 0 ] || { cat "$log"; fail "SIG$sig to mpiexec: exit 0"; }
  grep -q "^simreach: the study was stopped by signal 15 (SIGTERM) .*rerun the same command with -resume to continue $out" "$log" || { cat "$log"; fail "SIG$sig to mpiexec: no message with the -resume hint"; }
  [ -e "$out.lock" ] && fail "SIG$sig to mpiexec: the lock was left"
  sr_readable "$out" || fail "SIG$sig to mpiexec: the file is unreadable"
  sr_run 2 study -options_file "$opts" "${L[@]}" -output "$out" -grid_slice 0/8 -resume > "$log.resume" 2>&1 || { cat "$log.resume"; fail "-resume after SIG$sig"; }
  grep -q "taking over" "$log.resume" && fail "-resume after SIG$sig found a stale lock"
  echo "ok: SIG$sig to mpiexec (exit $rc): $(grep -o 'stopped by signal.*' "$log" | head -1 | cut -c1-90)...; lock released; -resume completes"
done
# a single rank (no mpiexec between): SIGINT, as Ctrl-C gives, is exit 83 with the hint too
SIMREACH_TEST_PAUSE=study_checkpoint "$SIMREACH" study -options_file "$opts" "${L[@]}" -output "$dir/one.h5" -grid_slice 0/8 > "$dir/one.log" 2>&1 &
job=$!
wait_held "$dir/one.log" $job
kill -INT $job
wait $job
rc=$?
[ $rc -eq 83 ] || { cat "$dir/one.log"; fail "SIGINT to a singleton: exit $rc, expected 83"; }
grep -q "stopped by signal 2 (SIGINT).*-resume" "$dir/one.log" || { cat "$dir/one.log"; fail "SIGINT to a singleton: no message"; }
[ -e "$dir/one.h5.lock" ] && fail "SIGINT to a singleton: the lock was left"
echo "PASS: SIGTERM and SIGINT to mpiexec (2 ranks) and SIGINT to one process stop a study with exit 83, the -resume hint, the lock released"
