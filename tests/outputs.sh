#!/usr/bin/env bash
# Outputs checked first, written or refused cleanly (issue 34, item 4; SPEC §13):
# - every output option (closedloop -o, verify/safe/network/study -output) is refused before the
#   work, in one line naming the option and the path, exit 2: /dev/null (a device), a directory,
#   a folder that does not exist, an existing file without -force (left unchanged);
# - a full file system (a real 256 KiB tmpfs when this machine lets us mount one) and a file-size
#   limit (ulimit -f, SIGXFSZ caught: EFBIG): closedloop -o, verify -output, safe -output,
#   network -output on 2 ranks end in exactly one "simreach:" line naming the file, exit 4, no .part and no .lock left,
#   an existing file given with -force unchanged (sha256), no MPI_ABORT banner.
# Usage: outputs.sh SRCDIR WORKDIR TEST_VERIFY   (environment: SIMREACH, MPIEXEC, MPIEXEC_EXTRA, PY)
. "$(dirname "$0")/study_common.sh"
src=$1 dir=$2 tv=$3
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
D=$src/tests/data/issue34
CL=(closedloop -plant "$D/plant_cos.txt" -network "$D/net_tiny.nnet" -spec "$D/spec_cos.txt" -closedloop_progress 0)
"$tv" -write_network "$dir/pend.h5" -sys pendulum -model dynamics -seed 3 > /dev/null || fail "writing a network file"
sr_run 2 verify -network "$dir/pend.h5" -cells 60,50 -output "$dir/abs.h5" > "$dir/abs.log" 2>&1 || { cat "$dir/abs.log"; fail "verify -output"; }

# one_line RC PATTERN LOG: exit RC, exactly one "simreach:" line matching PATTERN, no abort banner
one_line() {
  local want=$1 pat=$2 log=$3 got=$4
  [ "$got" = "$want" ] || { cat "$log"; fail "exit $got, want $want: $log"; }
  [ "$(grep -c '^simreach:' "$log")" = 1 ] || { cat "$log"; fail "not exactly one simreach: line: $log"; }
  grep -q "^simreach: .*$pat" "$log" || { cat "$log"; fail "the line lacks '$pat': $log"; }
  grep -q "MPI_ABORT\|PETSC ERROR" "$log" && { cat "$log"; fail "an MPI_ABORT banner or a PETSc block: $log"; }
  return 0
}
echo "an existing file" > "$dir/keep.h5"
keep=$(sha256sum < "$dir/keep.h5")
cmds=("${CL[*]} -o"
  "verify -network $dir/pend.h5 -cells 60,50 -output"
  "safe $dir/abs.h5 -trajectories 0 -output"
  "network $dir/pend.h5 -output"
  "study -options_file $src/tests/study_tiny.opts -output")
i=0
for c in "${cmds[@]}"; do
  opt=${c##* }
  for bad in /dev/null "$dir" "$dir/nosuchdir/x.h5" "$dir/keep.h5"; do
    [ "$bad" = "$dir/keep.h5" ] && [ "${c%% *}" = study ] && continue # a study resumes or refuses an existing file by its own rule
    i=$((i + 1))
    sr_run 2 $c "$bad" > "$dir/r$i.log" 2>&1
    rc=$?
    case $bad in
      /dev/null) pat="option $opt /dev/null: is a device" ;;
      "$dir") pat="option $opt $dir: is a directory" ;;
      */nosuchdir/*) pat="the folder $dir/nosuchdir: No such file or directory" ;;
      *) pat="option $opt $dir/keep.h5: the file exists; give -force" ;;
    esac
    one_line 2 "$pat" "$dir/r$i.log" $rc
    grep -q "closedloop: wall\|proven .* failed\|fixed point after" "$dir/r$i.log" && { cat "$dir/r$i.log"; fail "the work ran before the output was refused: $c $bad"; }
  done
done
[ "$(sha256sum < "$dir/keep.h5")" = "$keep" ] || fail "keep.h5 changed"

# write failures: a full tmpfs, then ulimit -f
fs=$dir/tmpfs
mkdir -p "$fs"
mounted=0
if mount -t tmpfs -o size=256k tmpfs "$fs" 2> /dev/null; then
  mounted=1
  trap 'umount "$fs" 2> /dev/null' EXIT
fi
check_failed() { # LOG RC FILE: the write failure's one line, exit 4, nothing left, the old file unchanged
  one_line 4 "$3" "$1" "$2"
  ls "$3".part "$3".lock 2> /dev/null && fail ".part or .lock left for $3"
  [ "$(sha256sum < "$3")" = "$keep" ] || fail "the existing $3 was changed"
  return 0
}
if [ $mounted = 1 ]; then
  cp "$dir/keep.h5" "$fs/out.h5"
  head -c 220000 /dev/zero > "$fs/fill" # leaves about 36 KiB
  sr_run 2 verify -network "$dir/pend.h5" -cells 60,50 -output "$fs/out.h5" -force > "$dir/w1.log" 2>&1
  check_failed "$dir/w1.log" $? "$fs/out.h5"
  sr_run 2 safe "$dir/abs.h5" -trajectories 0 -output "$fs/out.h5" -force > "$dir/w2.log" 2>&1
  # 3000 cells need 36 KiB + 64 KiB: refused by the free-space check or the reservation
  check_failed "$dir/w2.log" $? "$fs/out.h5"
  head -c 34000 /dev/zero > "$fs/fill2" # leaves about 2 KiB: the tubes file does not fit
  sr_run 2 "${CL[@]}" -o "$fs/out.h5" -force > "$dir/w3.log" 2>&1
  check_failed "$dir/w3.log" $? "$fs/out.h5"
  grep -q "closedloop: FALSIFIED" "$dir/w3.log" || fail "the closedloop verdict is missing"
  echo "tmpfs of 256 KiB: verify, safe and closedloop outputs refused cleanly"
else
  echo "tmpfs: not mounted (mount not permitted here); the file-size limit below covers the write failures"
fi
# ulimit -f (in each rank: mpiexec itself keeps no limit; the shared-memory transport is left out
# so that Open MPI does not trip over the limit itself)
L=(--mca btl self,tcp)
cp "$dir/keep.h5" "$dir/lim.h5"
"$MPIEXEC" -n 2 $MPIEXEC_EXTRA "${L[@]}" bash -c "ulimit -f 16; exec \"$SIMREACH\" verify -network \"$dir/pend.h5\" -cells 60,50 -output \"$dir/lim.h5\" -force" > "$dir/u1.log" 2>&1
check_failed "$dir/u1.log" $? "$dir/lim.h5"
grep -q "ulimit -f" "$dir/u1.log" || fail "verify: the line does not name the file-size limit"
"$MPIEXEC" -n 2 $MPIEXEC_EXTRA "${L[@]}" bash -c "ulimit -f 16; exec \"$SIMREACH\" $(printf '%q ' "${CL[@]}") -o \"$dir/lim.h5\" -force" > "$dir/u2.log" 2>&1
check_failed "$dir/u2.log" $? "$dir/lim.h5"
grep -q "ulimit -f" "$dir/u2.log" || fail "closedloop: the line does not name the file-size limit"
"$MPIEXEC" -n 2 $MPIEXEC_EXTRA "${L[@]}" bash -c "ulimit -f 2; exec \"$SIMREACH\" network \"$dir/pend.h5\" -output \"$dir/lim.h5\" -force" > "$dir/u3.log" 2>&1
check_failed "$dir/u3.log" $? "$dir/lim.h5"
grep -q "errno EFBIG" "$dir/u3.log" || fail "network: the line does not name EFBIG"
echo "PASS: outputs refused before the work; write failures one line, exit 4, nothing left, old files unchanged"
