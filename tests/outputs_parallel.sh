#!/usr/bin/env bash
# A write that fails in the middle of a parallel HDF5 write (issue 34, item 4), where the block
# reservation cannot protect: verify -output and safe -output on 1 and 2 real ranks,
# - the disk filled by another program after the reservation, while the rows are written (a real
#   tmpfs; SIMREACH_TEST_PAUSE=write,cont holds rank 0 there, SIGCONT lets it go on);
# - one rank past its own ulimit -f (rank 0, which checks the size and reserves the blocks, has
#   no limit; rank 1 writes the upper rows): EFBIG on rank 1 alone.
# Each: exit 4, exactly one "simreach:" line naming the file and ENOSPC or EFBIG, no MPI_ABORT
# banner or PETSc block, no .part and no .lock left, the existing file given with -force unchanged.
# study -output and -resume past ulimit -f: refused in one line before any row is written.
# Usage: outputs_parallel.sh SRCDIR WORKDIR TEST_VERIFY   (environment: SIMREACH, MPIEXEC, MPIEXEC_EXTRA)
. "$(dirname "$0")/study_common.sh"
src=$1 dir=$2 tv=$3
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
"$tv" -write_network "$dir/pend.h5" -sys pendulum -model dynamics -seed 3 > /dev/null || fail "writing a network file"
sr_run 2 verify -network "$dir/pend.h5" -cells 60,50 -output "$dir/abs.h5" > "$dir/abs.log" 2>&1 || { cat "$dir/abs.log"; fail "verify -output"; }
echo "an existing file" > "$dir/keep.h5"
keep=$(sha256sum < "$dir/keep.h5")
# check_failed LOG RC FILE ERRNO: one line naming FILE and ERRNO, exit 4, nothing left, FILE unchanged
check_failed() {
  local log=$1 rc=$2 f=$3 e=$4
  grep -v "SIMREACH_TEST_PAUSE" "$log" > "$log.lines"
  [ "$rc" = 4 ] || { cat "$log"; fail "exit $rc, want 4: $log"; }
  [ "$(grep -c '^simreach:' "$log.lines")" = 1 ] || { cat "$log"; fail "not exactly one simreach: line: $log"; }
  grep -q "^simreach: cannot write $f: .*errno $e" "$log.lines" || { cat "$log"; fail "the line does not name $f and $e: $log"; }
  grep -q "MPI_ABORT\|PETSC ERROR\|exited on signal" "$log" && { cat "$log"; fail "an MPI_ABORT banner, a PETSc block or a crash: $log"; }
  ls "$f".part "$f".lock 2> /dev/null && fail ".part or .lock left for $f ($log)"
  [ "$(sha256sum < "$f")" = "$keep" ] || fail "the existing $f was changed ($log)"
  return 0
}
VERIFY=(verify -network "$dir/pend.h5" -cells 290,290 -output) # 84100 cells, 3 chunks on 1 rank, 2 on each of 2
SAFE=(safe "$dir/abs.h5" -trajectories 0 -output)

fs=$dir/tmpfs
mkdir -p "$fs"
if mount -t tmpfs -o size=8m tmpfs "$fs" 2> /dev/null; then
  trap 'umount "$fs" 2> /dev/null' EXIT
  i=0
  for np in 1 2; do
    for cmd in VERIFY SAFE; do
      i=$((i + 1))
      eval "args=(\"\${$cmd[@]}\")"
      rm -f "$fs"/*
      cp "$dir/keep.h5" "$fs/out.h5"
      log=$dir/fill$i.log
      SIMREACH_TEST_PAUSE=write,cont "$MPIEXEC" -n $np $MPIEXEC_EXTRA "$SIMREACH" "${args[@]}" "$fs/out.h5" -force > "$log" 2>&1 &
      job=$!
      for t in $(seq 300); do grep -q "paused here" "$log" && break; sleep 0.1; done
      pid=$(sed -n 's/.*process \([0-9]*\) paused here.*/\1/p' "$log" | head -1)
      [ -n "$pid" ] || { kill $job; cat "$log"; fail "$cmd on $np ranks did not pause"; }
      head -c 9000000 /dev/zero > "$fs/fill" 2> /dev/null # the rest of the disk, after the reservation
      while kill -0 $job 2> /dev/null; do # every chunk pauses again: let each go on
        kill -CONT "$pid" 2> /dev/null
        sleep 0.2
      done
      wait $job
      check_failed "$log" $? "$fs/out.h5" ENOSPC
      echo "tmpfs filled during the write: ${cmd,,} on $np rank(s): one line, exit 4"
    done
  done
else
  echo "tmpfs: not mounted (mount not permitted here); only the file-size limit below is tested"
fi

# rank 1 alone past its ulimit -f (Open MPI's shared-memory transport left out: it would trip over the limit)
L=(--mca btl self,tcp)
for cmd in VERIFY SAFE; do
  eval "args=(\"\${$cmd[@]}\")"
  [ $cmd = VERIFY ] && args=(verify -network "$dir/pend.h5" -cells 60,50 -output) lim=40 || lim=20
  cp "$dir/keep.h5" "$dir/lim.h5"
  log=$dir/ulimit_${cmd,,}.log
  "$MPIEXEC" $MPIEXEC_EXTRA "${L[@]}" -n 1 "$SIMREACH" "${args[@]}" "$dir/lim.h5" -force : \
    -n 1 bash -c "ulimit -f $lim; exec \"$SIMREACH\" $(printf '%q ' "${args[@]}") \"$dir/lim.h5\" -force" > "$log" 2>&1
  check_failed "$log" $? "$dir/lim.h5" EFBIG
  echo "rank 1 past its ulimit -f: ${cmd,,} on 2 ranks: one line, exit 4"
done
# study -output: a new file past ulimit -f (2 ranks, each limited) refused before it is written,
# the existing file given with -force unchanged; -resume of a finished file larger than the
# limit refused in one line before any write (it would fail mid-run with EFBIG), the file
# unchanged, and the same -resume without the limit continues (exit 0)
ST=(study -options_file "$src/tests/study_tiny.opts" -output)
cp "$dir/keep.h5" "$dir/st.h5"
"$MPIEXEC" -n 2 $MPIEXEC_EXTRA "${L[@]}" bash -c "ulimit -f 100; exec \"$SIMREACH\" $(printf '%q ' "${ST[@]}") \"$dir/st.h5\" -force" > "$dir/study1.log" 2>&1
rc=$?
grep -v "^simreach study:" "$dir/study1.log" > "$dir/study1.lines"
[ $rc = 4 ] && [ "$(grep -c '^simreach:' "$dir/study1.lines")" = 1 ] && grep -q "^simreach: $dir/st.h5 needs .*(ulimit -f" "$dir/study1.lines" || { cat "$dir/study1.log"; fail "study -output past ulimit -f: not one line naming the file and the limit, exit 4"; }
ls "$dir/st.h5".part "$dir/st.h5".lock 2> /dev/null && fail "study: .part or .lock left"
[ "$(sha256sum < "$dir/st.h5")" = "$keep" ] || fail "study: the existing st.h5 was changed"
rm -f "$dir/st.h5"
sr_run 2 "${ST[@]}" "$dir/st.h5" > "$dir/study2.log" 2>&1 || { cat "$dir/study2.log"; fail "study -output"; }
sum=$(sha256sum < "$dir/st.h5")
"$MPIEXEC" -n 2 $MPIEXEC_EXTRA "${L[@]}" bash -c "ulimit -f 100; exec \"$SIMREACH\" $(printf '%q ' "${ST[@]}") \"$dir/st.h5\" -resume" > "$dir/study3.log" 2>&1
rc=$?
[ $rc = 4 ] && [ "$(grep -c '^simreach:' "$dir/study3.log")" = 1 ] && grep -q "^simreach: $dir/st.h5 is .* MB, more than the file-size limit .*errno EFBIG" "$dir/study3.log" || { cat "$dir/study3.log"; fail "study -resume past ulimit -f: not one line naming the file and EFBIG, exit 4"; }
grep -q "MPI_ABORT\|PETSC ERROR" "$dir/study3.log" && { cat "$dir/study3.log"; fail "study -resume: an MPI_ABORT banner or a PETSc block"; }
ls "$dir/st.h5".part "$dir/st.h5".lock 2> /dev/null && fail "study -resume: .part or .lock left"
[ "$(sha256sum < "$dir/st.h5")" = "$sum" ] || fail "study -resume past ulimit -f changed the file"
sr_run 2 "${ST[@]}" "$dir/st.h5" -resume > "$dir/study4.log" 2>&1 || { cat "$dir/study4.log"; fail "study -resume without the limit does not continue"; }
echo "study: -output past ulimit -f refused before writing; -resume past it refused in one line, file unchanged; -resume without it continues"
echo "PASS: a write failing on some ranks mid-write: one line naming the file and the errno, exit 4, nothing left, old files unchanged"
